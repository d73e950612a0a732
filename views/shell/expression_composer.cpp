#include "views/shell/expression_composer.h"

#include "core/errors.h"
#include "core/patterns/pattern_expression.h"
#include "core/registry.h"

#include <QCoreApplication>
#include <QFontDatabase>
#include <QGridLayout>
#include <QInputMethodEvent>
#include <QLabel>
#include <QLineEdit>
#include <QTextCharFormat>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace attnlab {

namespace {

constexpr int kBlockColumns = 3;

bool isOperator(const QString& block) { return block == QLatin1String("|") || block == QLatin1String("&") || block == QLatin1String("!"); }

// True when the text before `cursor` ends a term (a name, a number or a closing parenthesis).
bool endsTerm(const QString& text, int cursor) {
    for (int k = cursor - 1; k >= 0; --k) {
        const QChar c = text[k];
        if (c.isSpace()) continue;
        return c.isLetterOrNumber() || c == QLatin1Char(')') || c == QLatin1Char('_');
    }
    return false;
}

// How many characters from the 0-based `position` the problem spans: the whole name or number that starts
// there, else the one character (the last one for an unexpected end).
int faultLength(const QString& text, int position) {
    int end = position;
    auto partOfWord = [&text](int k) { return k < text.size() && (text[k].isLetterOrNumber() || text[k] == QLatin1Char('_')); };
    while (partOfWord(end)) ++end;
    return std::max(1, end - position);
}

} // namespace

ExpressionCheck checkExpression(const QString& text) {
    try {
        parseExpression(text.toStdString());
        return {};
    } catch (const ExpressionError& error) {
        return {QString::fromStdString(error.what()), error.position()};
    } catch (const std::exception& error) {
        return {QString::fromStdString(error.what()), 1};
    }
}

QString insertBuildingBlock(const QString& text, int cursor, const QString& block, int* newCursor) {
    cursor = std::clamp(cursor, 0, static_cast<int>(text.size()));
    QString inserted = block;
    if (block == QLatin1String("!")) inserted = QStringLiteral("!");
    else if (isOperator(block)) inserted = QLatin1Char(' ') + block + QLatin1Char(' ');
    else if (endsTerm(text, cursor)) inserted = QStringLiteral(" | ") + block;
    QString result = text;
    result.insert(cursor, inserted);
    if (newCursor) *newCursor = cursor + static_cast<int>(inserted.size());
    return result;
}

LabSettings editAsExpression(const LabSettings& settings) {
    const VariantInfo& variant = requireVariant(settings.variant);
    if (!variant.printExpr) throw InputError("variant '" + variant.id + "' has no equivalent expression");
    PatternRequest request;
    request.shape = problemShape(settings, variant);
    const ParamSet params = prepareParams(variant, request.shape, settings.params);
    request.params = &params;
    LabSettings edited = settings;
    edited.variant = "custom";
    edited.params = {{"expr", variant.printExpr(request)}};
    // A variant whose form is fixed (xl is causal only) keeps its causal flag as the custom variant's.
    edited.causal = request.shape.causal;
    if (!edited.compareVariants.empty() && edited.compareVariants.front() == settings.variant) {
        edited.compareVariants.front() = "custom";
        if (!edited.compareParams.empty()) edited.compareParams.front() = edited.params;
    }
    return edited;
}

ExpressionComposer::ExpressionComposer(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("expressionEdit"));
    m_edit->setPlaceholderText(tr("e.g. band(8) | sink(4)"));
    m_edit->setToolTip(tr("A pattern expression: | union, & intersection, ! complement, parentheses; checked as you type"));
    m_edit->setMaxLength(static_cast<int>(kMaxExpressionLength) + 1);
    layout->addWidget(m_edit);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_marker = new QLabel(this);
    m_marker->setObjectName(QStringLiteral("expressionMarker"));
    m_marker->setFont(mono);
    m_marker->setTextFormat(Qt::PlainText);
    m_marker->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_marker->setVisible(false);
    layout->addWidget(m_marker);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("expressionError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_error->setVisible(false);
    layout->addWidget(m_error);
    auto* blocks = new QGridLayout;
    blocks->setSpacing(2);
    int index = 0;
    for (const QString& block : buildingBlocks()) {
        auto* button = new QToolButton(this);
        button->setText(QString(block).replace(QLatin1Char('&'), QStringLiteral("&&"))); // '&' alone marks a mnemonic
        button->setObjectName(QStringLiteral("block_") + block);
        button->setToolTip(isOperator(block) ? tr("Insert the operator %1").arg(block) : tr("Insert %1 at the cursor").arg(block));
        button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
        connect(button, &QToolButton::clicked, this, [this, block] { insertBlock(block); });
        blocks->addWidget(button, index / kBlockColumns, index % kBlockColumns);
        ++index;
    }
    layout->addLayout(blocks);
    connect(m_edit, &QLineEdit::textEdited, this, [this] { check(true); });
}

QStringList ExpressionComposer::buildingBlocks() {
    return {QStringLiteral("band(8)"),     QStringLiteral("causal"),       QStringLiteral("global(0)"),
            QStringLiteral("stride(8)"),   QStringLiteral("block(64)"),    QStringLiteral("dilated(4, 2)"),
            QStringLiteral("sink(4)"),     QStringLiteral("prefix(16)"),   QStringLiteral("segment(32, 16)"),
            QStringLiteral("summary(8, 1)"), QStringLiteral("docs(64, 64)"), QStringLiteral("random(2, 0)"),
            QStringLiteral("rows(0)"),     QStringLiteral("cols(0)"),      QStringLiteral("diag"),
            QStringLiteral("all"),         QStringLiteral("|"),            QStringLiteral("&"),
            QStringLiteral("!")};
}

void ExpressionComposer::setExpression(const QString& text) {
    if (m_edit->text() != text) m_edit->setText(text);
    m_applied = checkExpression(text).ok() ? std::optional<QString>(text) : std::nullopt;
    check(false);
}

QString ExpressionComposer::expression() const { return m_edit->text(); }

QString ExpressionComposer::errorText() const { return m_error->isVisible() ? m_error->text() : QString(); }

QString ExpressionComposer::markerText() const { return m_marker->isVisible() ? m_marker->text() : QString(); }

void ExpressionComposer::insertBlock(const QString& block) {
    int cursor = 0;
    const QString text = insertBuildingBlock(m_edit->text(), m_edit->cursorPosition(), block, &cursor);
    m_edit->setText(text);
    m_edit->setCursorPosition(cursor);
    m_edit->setFocus();
    check(true);
}

void ExpressionComposer::check(bool emitWhenGood) {
    const QString text = m_edit->text();
    const ExpressionCheck result = checkExpression(text);
    m_error->setVisible(!result.ok());
    m_marker->setVisible(!result.ok());
    m_edit->setStyleSheet(result.ok() ? QString() : QStringLiteral("QLineEdit { border: 1px solid #b00020; }"));
    if (!result.ok()) {
        // Says what the figures show instead: the expression still in effect, or nothing at all.
        m_error->setText(m_applied && m_drawn ? tr("%1 — not applied: the figures show the last valid expression, %2").arg(result.message, *m_applied)
                                   : tr("%1 — nothing is drawn until the expression is valid").arg(result.message));
        // The expression (elided around the problem) with carets under the name or character at fault.
        const int position = static_cast<int>(std::min<std::size_t>(result.position, static_cast<std::size_t>(text.size()) + 1)) - 1;
        const int length = faultLength(text, position);
        const int first = std::max(0, position - 40);
        const QString shown = text.mid(first, 60);
        m_marker->setText(shown + QLatin1Char('\n') + QString(position - first, QLatin1Char(' ')) + QString(length, QLatin1Char('^')));
        underline(position, length);
        return;
    }
    underline(0, 0);
    if (emitWhenGood) {
        m_applied = text;
        emit expressionAccepted(text);
    }
}

void ExpressionComposer::underline(int start, int length) {
    // QLineEdit has no character formats of its own; an input-method event with no preedit text sets them.
    QList<QInputMethodEvent::Attribute> attributes;
    if (length > 0 && !m_edit->text().isEmpty()) {
        QTextCharFormat format;
        format.setUnderlineStyle(QTextCharFormat::WaveUnderline);
        format.setUnderlineColor(QColor(0xb0, 0x00, 0x20));
        const int at = std::min(start, static_cast<int>(m_edit->text().size()) - 1);
        const int covered = std::min(length, static_cast<int>(m_edit->text().size()) - at);
        attributes << QInputMethodEvent::Attribute(QInputMethodEvent::TextFormat, at - m_edit->cursorPosition(), covered, format);
    }
    QInputMethodEvent event(QString(), attributes);
    QCoreApplication::sendEvent(m_edit, &event);
}

} // namespace attnlab
