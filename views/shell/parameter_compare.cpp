// The parameter panel's compare group: 2–4 panels side by side, each with its own variant, parameters
// and title, and the parameters a figure preset fixed.
#include "views/shell/parameter_panel.h"

#include "views/shell/model_presets.h"

#include "core/analysis/panel_spec.h"
#include "core/errors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>

#include <algorithm>

namespace attnlab {

QWidget* ParameterPanel::buildCompareGroup() {
    auto* group = new QGroupBox(tr("Compare (same inputs)"), this);
    auto* form = new QFormLayout(group);
    m_compare = new QCheckBox(tr("side by side with"), group);
    form->addRow(m_compare);
    for (int k = 0; k < 3; ++k) {
        QComboBox* combo = makeVariantCombo(k > 0);
        combo->setObjectName(QStringLiteral("compareChooser%1").arg(k + 1));
        form->addRow(QStringLiteral("%1.").arg(k + 2), combo);
        m_compareChoosers << combo;
        auto* params = new QLineEdit(group);
        params->setObjectName(QStringLiteral("compareParams%1").arg(k + 1));
        params->setPlaceholderText(tr("KEY=VALUE … title=TEXT"));
        params->setToolTip(tr("This panel's own parameters, e.g. window=8 dilation=2, and after title= its title"));
        form->addRow(QString(), params);
        m_compareParamEdits << params;
        connect(combo, &QComboBox::activated, this, [this, k] {
            updateCompare();
            resetPanel(static_cast<std::size_t>(k) + 1);
            commit();
        });
        connect(params, &QLineEdit::editingFinished, this, [this, k] {
            if (!m_updating) setPanelText(static_cast<std::size_t>(k) + 1);
        });
    }
    connect(m_compare, &QCheckBox::toggled, this, [this] {
        if (m_updating) return;
        m_settings.compareParams.clear();
        m_settings.panelTitles.clear();
        m_settings.panelOrders.clear();
        updateCompare();
        commit();
    });
    return group;
}

void ParameterPanel::updateCompare() {
    // Other variants than the preset's: the settings are no longer that figure.
    m_settings.preset.clear();
    m_settings.presetN = 0;
    m_settings.compareVariants.clear();
    if (!m_compare->isChecked()) {
        m_settings.compareParams.clear();
        m_settings.panelTitles.clear();
        m_settings.panelOrders.clear();
        return;
    }
    m_settings.compareVariants.push_back(m_settings.variant);
    for (QComboBox* combo : m_compareChoosers) {
        const QString id = combo->currentData(Qt::UserRole).toString();
        if (!id.isEmpty()) m_settings.compareVariants.push_back(id.toStdString());
    }
    // Every panel keeps its own overrides: entries past the variants are dropped, missing ones added.
    m_settings.compareParams.resize(m_settings.compareVariants.size());
    m_settings.compareParams.front() = m_settings.params;
    if (m_settings.panelTitles.size() > m_settings.compareVariants.size()) m_settings.panelTitles.resize(m_settings.compareVariants.size());
    if (m_settings.panelOrders.size() > m_settings.compareVariants.size()) m_settings.panelOrders.resize(m_settings.compareVariants.size());
}

void ParameterPanel::resetPanel(std::size_t entry) {
    if (entry < m_settings.compareParams.size()) m_settings.compareParams[entry].clear();
    if (entry < m_settings.panelTitles.size()) m_settings.panelTitles[entry].clear();
    if (entry < m_settings.panelOrders.size()) m_settings.panelOrders[entry].clear();
}

void ParameterPanel::setPanelText(std::size_t entry) {
    if (entry >= m_settings.compareVariants.size()) return;
    const std::string typed = m_compareParamEdits[static_cast<int>(entry) - 1]->text().toStdString();
    try {
        const PanelSpec spec = parsePanelSpec(m_settings.compareVariants[entry] + " " + typed);
        m_settings.compareParams.resize(m_settings.compareVariants.size());
        m_settings.compareParams[entry] = spec.choice.params;
        m_settings.panelTitles.resize(m_settings.compareVariants.size());
        m_settings.panelTitles[entry] = spec.title;
        m_settings.panelOrders.resize(m_settings.compareVariants.size());
        m_settings.panelOrders[entry] = spec.choice.order;
        commit();
    } catch (const InputError& error) {
        m_message->setText(QString::fromStdString(error.what()));
        m_message->setVisible(true);
    }
}

void ParameterPanel::setLength(std::int64_t n) {
    m_settings.n = n;
    m_settings.queries = std::min(m_settings.queries, n); // m ≤ n: the last rows of a shorter sequence
    // A preset that scales with n recomputes the parameters the paper ties to n (e.g. the stride √n).
    const FigurePreset* preset = findFigurePreset(m_settings.preset);
    if (!preset || !preset->atLength) return;
    const LabSettings scaled = preset->atLength(n);
    if (m_settings.variant != scaled.variant || m_settings.compareVariants != scaled.compareVariants) return;
    m_settings.params = scaled.params;
    m_settings.compareParams = scaled.compareParams;
}

QString ParameterPanel::panelText(std::size_t entry) const {
    const auto choices = chosenVariants(m_settings);
    if (entry >= choices.size()) return {};
    QString typed = QString::fromStdString(formatPanelParams({{}, choices[entry].params, choices[entry].order})).trimmed();
    if (entry < m_settings.panelTitles.size() && !m_settings.panelTitles[entry].empty())
        typed += QStringLiteral(" title=") + QString::fromStdString(m_settings.panelTitles[entry]);
    return typed.trimmed();
}

bool ParameterPanel::fixedByPreset(std::size_t entry, const std::string& key) const {
    const FigurePreset* preset = findFigurePreset(m_settings.preset);
    if (!preset) return false;
    const auto ours = chosenVariants(m_settings);
    const auto theirs = chosenVariants(presetSettingsAt(*preset, m_settings.n));
    if (entry >= ours.size() || entry >= theirs.size() || ours[entry].variant != theirs[entry].variant) return false;
    const auto value = theirs[entry].params.find(key);
    return value != theirs[entry].params.end() && ours[entry].params.count(key) && ours[entry].params.at(key) == value->second;
}

} // namespace attnlab
