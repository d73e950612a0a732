#pragma once

#include <QString>

namespace attnlab {

// One CSV field as RFC 4180 writes it: as is, or in double quotes (quotes doubled) when it holds a
// comma, a double quote or a line break, so a spreadsheet keeps it in one cell.
QString csvField(const QString& text);

} // namespace attnlab
