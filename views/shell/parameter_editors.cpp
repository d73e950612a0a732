// The variant parameter editors of the parameter panel, built from the registry's schema: one editor per
// key by its type, with its default and range noted under it and a reset button for an override.
#include "views/shell/parameter_panel.h"

#include "views/shell/expression_composer.h"
#include "views/i18n/language.h"

#include "core/analysis/settings_check.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>

namespace attnlab {

namespace {

QString text(const std::string& value) { return QString::fromStdString(value); }

int clampToInt(std::int64_t value) { return static_cast<int>(std::clamp<std::int64_t>(value, INT_MIN, INT_MAX)); }

// The resolved value of every key, as text: the user's override where valid, else the default.
std::map<std::string, std::string> shownValues(const VariantInfo& variant, const LabSettings& settings) {
    const ProblemShape shape = problemShape(settings, variant);
    ParamSet resolved;
    try {
        resolved = resolveParams(variant.id, variant.params, settings.params, shape.context());
    } catch (const InputError&) {
        resolved = resolveParams(variant.id, variant.params, {}, shape.context());
    }
    std::map<std::string, std::string> shown;
    for (const auto& [key, value] : resolved.values()) shown[key] = paramValueText(value);
    for (const auto& [key, value] : settings.params) shown[key] = value;
    return shown;
}

std::map<std::string, std::string> defaultValues(const VariantInfo& variant, const LabSettings& settings) {
    const ProblemShape shape = problemShape(settings, variant);
    std::map<std::string, std::string> defaults;
    try {
        const ParamSet resolved = resolveParams(variant.id, variant.params, {}, shape.context());
        for (const auto& [key, value] : resolved.values()) defaults[key] = paramValueText(value);
    } catch (const InputError&) {
    }
    return defaults;
}

} // namespace

void ParameterPanel::rebuildParameterEditors() {
    while (m_paramForm->rowCount() > 0) m_paramForm->removeRow(0);
    m_keys.clear();
    m_editors.clear();
    m_defaultLabels.clear();
    const VariantInfo* variant = findVariant(m_settings.variant);
    m_editorsVariant = m_settings.variant;
    if (!variant) return;
    const auto shown = shownValues(*variant, m_settings);
    for (const auto& spec : variant->params) {
        const QString key = text(spec.key);
        const bool overridden = m_settings.params.count(spec.key) != 0;
        QWidget* editor = makeEditor(spec, text(shown.at(spec.key)), overridden);
        editor->setObjectName(QStringLiteral("param_") + key);
        editor->setToolTip(coreText(spec.description));
        auto* reset = new QToolButton(this);
        reset->setText(QStringLiteral("↺"));
        reset->setToolTip(tr("back to the default"));
        connect(reset, &QToolButton::clicked, this, [this, key = spec.key] { clearOverride(key); });
        auto* row = new QHBoxLayout;
        row->addWidget(editor, 1);
        row->addWidget(reset);
        auto* cell = new QVBoxLayout;
        cell->setSpacing(1);
        cell->addLayout(row);
        auto* note = new QLabel(this);
        note->setObjectName(QStringLiteral("paramNote_") + key);
        note->setStyleSheet(QStringLiteral("color: #555; font-size: 8pt;"));
        note->setWordWrap(true);
        cell->addWidget(note);
        auto* name = new QLabel(key, this);
        name->setToolTip(coreText(spec.description));
        m_paramForm->addRow(name, cell);
        m_keys << key;
        m_editors.insert(key, editor);
        m_defaultLabels.insert(key, note);
    }
    if (variant->params.empty()) m_paramForm->addRow(new QLabel(tr("(no parameters)"), this));
    refreshParameterValues();
}

QWidget* ParameterPanel::makeEditor(const ParamSpec& spec, const QString& shown, bool overridden) {
    const std::string key = spec.key;
    switch (spec.type) {
    case ParamType::Integer: {
        auto* spin = new QSpinBox(this);
        spin->setRange(clampToInt(spec.minValue.value_or(INT_MIN)), clampToInt(spec.maxValue.value_or(INT_MAX)));
        spin->setValue(shown.toInt());
        spin->setKeyboardTracking(false);
        connect(spin, &QSpinBox::valueChanged, this, [this, key](int value) { setOverride(key, std::to_string(value)); });
        return spin;
    }
    case ParamType::Boolean: {
        auto* check = new QCheckBox(this);
        check->setChecked(shown == QLatin1String("true"));
        connect(check, &QCheckBox::toggled, this, [this, key](bool on) { setOverride(key, on ? "true" : "false"); });
        return check;
    }
    case ParamType::Choice: {
        auto* combo = new QComboBox(this);
        for (const auto& choice : spec.choices) combo->addItem(text(choice));
        combo->setCurrentText(shown);
        connect(combo, &QComboBox::activated, this, [this, key, combo] { setOverride(key, combo->currentText().toStdString()); });
        return combo;
    }
    case ParamType::String: {
        auto* composer = new ExpressionComposer(this);
        composer->setExpression(shown);
        connect(composer, &ExpressionComposer::expressionAccepted, this, [this, key](const QString& value) {
            if (value.trimmed().isEmpty()) clearOverride(key);
            else setOverride(key, value.toStdString());
        });
        return composer;
    }
    case ParamType::IndexList: {
        auto* edit = new QLineEdit(this);
        edit->setPlaceholderText(tr("comma list, e.g. 0,1,2"));
        if (overridden) edit->setText(shown);
        connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] {
            const std::string value = edit->text().trimmed().toStdString();
            if (value.empty()) clearOverride(key);
            else setOverride(key, value);
        });
        return edit;
    }
    }
    return new QWidget(this);
}

void ParameterPanel::refreshParameterValues() {
    const VariantInfo* variant = findVariant(m_settings.variant);
    if (!variant) return;
    const auto shown = shownValues(*variant, m_settings);
    const auto defaults = defaultValues(*variant, m_settings);
    const bool wasUpdating = std::exchange(m_updating, true);
    for (const auto& spec : variant->params) {
        const QString key = text(spec.key);
        QWidget* editor = m_editors.value(key);
        if (!editor) continue;
        const QSignalBlocker blocker(editor);
        const QString value = text(shown.at(spec.key));
        const bool overridden = m_settings.params.count(spec.key) != 0;
        if (auto* spin = qobject_cast<QSpinBox*>(editor)) spin->setValue(value.toInt());
        else if (auto* check = qobject_cast<QCheckBox*>(editor)) check->setChecked(value == QLatin1String("true"));
        else if (auto* combo = qobject_cast<QComboBox*>(editor)) combo->setCurrentText(value);
        else if (auto* edit = qobject_cast<QLineEdit*>(editor)) edit->setText(overridden ? value : QString());
        else if (auto* composer = qobject_cast<ExpressionComposer*>(editor)) {
            // While the user's text does not parse it stays as typed; the settings keep the last good one.
            if (checkExpression(composer->expression()).ok()) composer->setExpression(value);
            composer->setFiguresDrawn(settingsProblem(m_settings).empty());
        }
        QFont font = editor->font();
        font.setItalic(!overridden);
        editor->setFont(font);
        const auto resolved = defaults.find(spec.key);
        // The default as written in the schema, what it resolves to at this shape when that differs, and the range.
        QString defaultValue = coreText(spec.defaultText);
        if (resolved != defaults.end() && !resolved->second.empty() && text(resolved->second) != text(spec.defaultText))
            defaultValue = tr("%1 = %2").arg(defaultValue, text(resolved->second));
        QString note = spec.rangeText.empty() ? tr("default %1").arg(defaultValue)
                                              : tr("default %1 · range %2").arg(defaultValue, coreText(spec.rangeText));
        if (fixedByPreset(0, spec.key)) note += QLatin1Char(' ') + tr("· fixed by the preset %1").arg(text(m_settings.preset));
        m_defaultLabels.value(key)->setText(note);
    }
    m_updating = wasUpdating;
}

void ParameterPanel::setOverride(const std::string& key, const std::string& value) {
    if (m_updating) return;
    m_settings.params[key] = value;
    if (!m_settings.compareParams.empty()) m_settings.compareParams.front() = m_settings.params;
    commit();
}

void ParameterPanel::clearOverride(const std::string& key) {
    if (m_settings.params.erase(key) == 0) return;
    if (!m_settings.compareParams.empty()) m_settings.compareParams.front() = m_settings.params;
    commit();
}

} // namespace attnlab
