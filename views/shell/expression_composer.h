#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>
#include <QWidget>

#include <cstddef>
#include <optional>

class QLabel;
class QLineEdit;

namespace attnlab {

// The result of checking one expression text: empty when it parses, else the problem and its 1-based
// character position (length + 1 for an unexpected end).
struct ExpressionCheck {
    QString message;
    std::size_t position = 0;
    bool ok() const { return message.isEmpty(); }
};
ExpressionCheck checkExpression(const QString& text);

// The text of `text` after inserting the building block `block` at `cursor`: joined to a term that ends
// just before with " | " (so clicking band(8) then global(0) gives "band(8) | global(0)"); operators
// are inserted with spaces around them. The new cursor is placed after the insertion.
QString insertBuildingBlock(const QString& text, int cursor, const QString& block, int* newCursor);

// "Edit as expression": `settings` switched to the custom variant with the printed expression of its
// variant (same shape and parameters), so the pattern shown does not change. The first compare entry, the
// variant itself, becomes custom too. Throws InputError when the variant prints no expression.
LabSettings editAsExpression(const LabSettings& settings);

// The pattern composer of the `custom` variant: an expression field that is parsed on every edit, the
// problem shown inline (message, and the expression with its position marked and underlined) while the
// last good expression stays in effect, and buttons that insert the language's primitives with
// example arguments. Emits expressionAccepted for every edit that parses.
class ExpressionComposer : public QWidget {
    Q_OBJECT
public:
    explicit ExpressionComposer(QWidget* parent = nullptr);

    // Shows `text` (e.g. from a session) without emitting.
    void setExpression(const QString& text);
    // Whether the figures draw the expression in effect: false while the settings' check refuses it (a
    // grid primitive without a grid), so that a mistake's message does not promise a pattern on screen.
    void setFiguresDrawn(bool drawn) { m_drawn = drawn; }
    QString expression() const;
    QLineEdit* editor() const { return m_edit; }
    // The inline problem ("" while the expression parses) and the marker line under the expression.
    QString errorText() const;
    QString markerText() const;
    // The building-block buttons' texts, in order, and inserting one as a click does.
    static QStringList buildingBlocks();
    void insertBlock(const QString& block);

signals:
    void expressionAccepted(const QString& text);

private:
    void check(bool emitWhenGood);
    // Underlines `length` characters from the 0-based `start` (none when length is 0).
    void underline(int start, int length);

    QLineEdit* m_edit = nullptr;
    // The expression the settings hold, the one the figures draw: the last that parsed, or none when the
    // text given to setExpression did not parse.
    std::optional<QString> m_applied;
    bool m_drawn = true;
    QLabel* m_error = nullptr;
    QLabel* m_marker = nullptr;
};

} // namespace attnlab
