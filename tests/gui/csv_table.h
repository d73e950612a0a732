#pragma once

// CSV text read back the way a spreadsheet reads it (RFC 4180): fields split at commas outside double
// quotes, a doubled quote inside quotes is one quote. Records end at '\n' (the figures' CSV holds no line
// break inside a field).
#include <gtest/gtest.h>

#include <QString>
#include <QStringList>

#include <algorithm>
#include <map>
#include <vector>

namespace attnlab::guitest {

inline QStringList csvFields(const QString& line) {
    QStringList fields{QString()};
    bool quoted = false;
    for (qsizetype c = 0; c < line.size(); ++c) {
        const QChar ch = line[c];
        if (ch == QLatin1Char('"') && quoted && c + 1 < line.size() && line[c + 1] == QLatin1Char('"')) {
            fields.last() += ch;
            ++c;
        } else if (ch == QLatin1Char('"')) {
            quoted = !quoted;
        } else if (ch == QLatin1Char(',') && !quoted) {
            fields << QString();
        } else {
            fields.last() += ch;
        }
    }
    return fields;
}

struct CsvTable {
    QStringList header;
    std::vector<QStringList> rows;
};

inline CsvTable readCsv(const QString& text) {
    CsvTable table;
    QStringList lines = text.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    if (lines.isEmpty()) return table;
    table.header = csvFields(lines.takeFirst());
    for (const QString& line : lines) table.rows.push_back(csvFields(line));
    return table;
}

using CsvRecord = std::map<QString, QString>;

// The CSV's rows as column name → text, the header checked against `columns`.
inline std::vector<CsvRecord> csvRows(const QString& csv, const QStringList& columns) {
    const CsvTable table = readCsv(csv);
    EXPECT_EQ(table.header, columns);
    std::vector<CsvRecord> rows;
    for (const QStringList& fields : table.rows) {
        EXPECT_EQ(fields.size(), columns.size()) << fields.join(QLatin1Char(',')).toStdString();
        CsvRecord row;
        for (qsizetype c = 0; c < std::min(fields.size(), columns.size()); ++c) row[columns[c]] = fields[c];
        rows.push_back(std::move(row));
    }
    return rows;
}

// The number in `column`; a cell that is not a number fails the test.
inline double number(const CsvRecord& row, const char* column) {
    bool ok = false;
    const QString& text = row.at(QString::fromLatin1(column));
    const double value = text.toDouble(&ok);
    EXPECT_TRUE(ok) << column << " = " << text.toStdString();
    return value;
}

} // namespace attnlab::guitest
