#include "views/shell/parameter_panel.h"

#include "views/shell/expression_composer.h"
#include "views/i18n/language.h"
#include "views/shell/model_presets.h"

#include "core/analysis/panel_spec.h"
#include "core/analysis/settings_check.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

namespace attnlab {

namespace {

constexpr int kSliderStepsPerOctave = 100; // the n slider is log2(n) · 100

int sliderOfN(std::int64_t n) { return static_cast<int>(std::lround(kSliderStepsPerOctave * std::log2(static_cast<double>(n)))); }
std::int64_t nOfSlider(int value) { return std::llround(std::exp2(static_cast<double>(value) / kSliderStepsPerOctave)); }

QString text(const std::string& value) { return QString::fromStdString(value); }

} // namespace

ParameterPanel::ParameterPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(buildVariantGroup());
    layout->addWidget(buildShapeGroup());
    layout->addWidget(buildParameterGroup());
    layout->addWidget(buildInputGroup());
    layout->addWidget(buildDisplayGroup());
    layout->addWidget(buildInferenceGroup());
    layout->addWidget(buildCompareGroup());
    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020; font-weight: bold;"));
    m_message->setObjectName(QStringLiteral("parameterMessage"));
    layout->addWidget(m_message);
    layout->addStretch(1);
    setSettings(m_settings);
}

QComboBox* ParameterPanel::makeVariantCombo(bool allowNone) {
    auto* combo = new QComboBox(this);
    auto* model = new QStandardItemModel(combo);
    if (allowNone) model->appendRow(new QStandardItem(tr("(none)")));
    std::vector<std::string> families;
    for (const auto& variant : allVariants())
        if (std::find(families.begin(), families.end(), variant.family) == families.end()) families.push_back(variant.family);
    for (const auto& family : families) {
        auto* header = new QStandardItem(coreText(family));
        header->setFlags(Qt::NoItemFlags);
        QFont bold = combo->font();
        bold.setBold(true);
        header->setFont(bold);
        model->appendRow(header);
        for (const auto& variant : allVariants()) {
            if (variant.family != family) continue;
            auto* item = new QStandardItem(QStringLiteral("   ") + coreText(variant.displayName));
            item->setData(text(variant.id), Qt::UserRole);
            item->setToolTip(coreText(variant.summary));
            model->appendRow(item);
        }
    }
    combo->setModel(model);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(18);
    return combo;
}

QComboBox* ParameterPanel::compareChooser(int k) const {
    return k >= 1 && k <= m_compareChoosers.size() ? m_compareChoosers[k - 1] : nullptr;
}

QWidget* ParameterPanel::buildVariantGroup() {
    auto* group = new QGroupBox(tr("Variant"), this);
    auto* layout = new QVBoxLayout(group);
    m_variant = makeVariantCombo(false);
    m_variant->setObjectName(QStringLiteral("variantChooser"));
    m_summary = new QLabel(group);
    m_summary->setWordWrap(true);
    m_summary->setStyleSheet(QStringLiteral("color: #444;"));
    layout->addWidget(m_variant);
    layout->addWidget(m_summary);
    m_editAsExpression = new QPushButton(tr("Edit as expression"), group);
    m_editAsExpression->setObjectName(QStringLiteral("editAsExpression"));
    m_editAsExpression->setToolTip(tr("Switch to the custom variant with an expression that gives exactly this pattern"));
    layout->addWidget(m_editAsExpression);
    connect(m_editAsExpression, &QPushButton::clicked, this, [this] {
        try {
            m_settings = editAsExpression(m_settings);
        } catch (const std::exception& error) {
            m_message->setText(QString::fromStdString(error.what()));
            m_message->setVisible(true);
            return;
        }
        updateCompare();
        commit();
    });
    connect(m_variant, &QComboBox::activated, this, [this](int index) {
        const QString id = m_variant->itemData(index, Qt::UserRole).toString();
        if (id.isEmpty() || id.toStdString() == m_settings.variant) return;
        m_settings.variant = id.toStdString();
        m_settings.params.clear();
        updateCompare();
        commit();
    });
    return group;
}

QWidget* ParameterPanel::buildShapeGroup() {
    auto* group = new QGroupBox(tr("Shape"), this);
    auto* form = new QFormLayout(group);
    m_nSlider = new QSlider(Qt::Horizontal, group);
    m_nSlider->setRange(0, sliderOfN(kMaxN));
    m_n = new QSpinBox(group);
    m_n->setRange(1, kMaxN);
    m_n->setToolTip(tr("sequence length n (the slider is logarithmic)"));
    auto* nRow = new QHBoxLayout;
    nRow->addWidget(m_nSlider, 1);
    nRow->addWidget(m_n);
    form->addRow(QStringLiteral("n"), nRow);
    m_d = new QSpinBox(group);
    m_d->setRange(1, 4096);
    m_d->setToolTip(tr("head size d of Q and K (V uses the same)"));
    form->addRow(QStringLiteral("d"), m_d);
    m_heads = new QSpinBox(group);
    m_heads->setRange(1, 256);
    form->addRow(tr("heads h"), m_heads);
    addKvHeadsRow(form, group);
    m_head = new QSpinBox(group);
    m_head->setToolTip(tr("the head drawn by per-head views"));
    form->addRow(tr("shown head"), m_head);
    m_causal = new QCheckBox(tr("causal (j ≤ i)"), group);
    form->addRow(QString(), m_causal);
    addGridRows(form, group);

    connect(m_nSlider, &QSlider::valueChanged, this, [this](int value) {
        if (m_updating) return;
        setLength(nOfSlider(value));
        commit();
    });
    connect(m_n, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        setLength(value);
        commit();
    });
    connect(m_d, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.d = value;
        commit();
    });
    connect(m_heads, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.heads = value;
        m_settings.head = std::min(m_settings.head, value - 1);
        if (m_settings.kvHeads > 0 && value % m_settings.kvHeads != 0) m_settings.kvHeads = 0;
        commit();
    });
    connect(m_head, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.head = value;
        commit();
    });
    connect(m_causal, &QCheckBox::toggled, this, [this](bool checked) {
        if (m_updating) return;
        m_settings.causal = checked;
        commit();
    });
    return group;
}

QWidget* ParameterPanel::buildParameterGroup() {
    auto* group = new QGroupBox(tr("Variant parameters"), this);
    m_paramForm = new QFormLayout(group);
    return group;
}

QLineEdit* ParameterPanel::makeFileRow(QFormLayout* form, const QString& label, std::string LabSettings::*path) {
    auto* edit = new QLineEdit(this);
    edit->setPlaceholderText(label + QStringLiteral(".npy"));
    auto* browse = new QToolButton(this);
    browse->setText(QStringLiteral("…"));
    auto* row = new QHBoxLayout;
    row->addWidget(edit, 1);
    row->addWidget(browse);
    form->addRow(label, row);
    m_fileWidgets << edit << browse;
    m_fileEdits.insert(label, edit);
    connect(edit, &QLineEdit::editingFinished, this, [this, edit, path] {
        if (m_updating || m_settings.*path == edit->text().toStdString()) return;
        m_settings.*path = edit->text().toStdString();
        commit();
    });
    connect(browse, &QToolButton::clicked, this, [this, edit, label, path] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Open %1").arg(label), edit->text(),
                                                          tr("NumPy arrays (*.npy)"));
        if (file.isEmpty()) return;
        edit->setText(file);
        m_settings.*path = file.toStdString();
        commit();
    });
    return edit;
}

QWidget* ParameterPanel::buildInputGroup() {
    auto* group = new QGroupBox(tr("Inputs Q, K, V"), this);
    auto* form = new QFormLayout(group);
    m_source = new QComboBox(group);
    m_source->addItem(tr("Random Gaussian"), static_cast<int>(InputSource::RandomGaussian));
    m_source->addItem(tr("Local similarity"), static_cast<int>(InputSource::LocalSimilarity));
    m_source->addItem(tr("NPY files"), static_cast<int>(InputSource::NpyFiles));
    m_source->setToolTip(tr("Local similarity: q_i·k_j largest for j near i, so weights look like trained attention"));
    form->addRow(tr("source"), m_source);
    m_seed = new QSpinBox(group);
    m_seed->setRange(0, INT_MAX);
    form->addRow(tr("seed"), m_seed);
    makeFileRow(form, QStringLiteral("Q"), &LabSettings::qPath);
    makeFileRow(form, QStringLiteral("K"), &LabSettings::kPath);
    makeFileRow(form, QStringLiteral("V"), &LabSettings::vPath);
    auto* presets = new QComboBox(group);
    presets->addItem(tr("Model shape…"));
    for (const auto& preset : modelPresets()) presets->addItem(presetText(preset.name));
    m_preset = presets;
    form->addRow(tr("preset"), presets);

    connect(m_source, &QComboBox::activated, this, [this](int index) {
        m_settings.source = static_cast<InputSource>(m_source->itemData(index).toInt());
        commit();
    });
    connect(m_seed, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.inputSeed = static_cast<std::uint64_t>(value);
        commit();
    });
    connect(presets, &QComboBox::activated, this, [this, presets](int index) {
        if (index <= 0) return;
        m_settings = applyModelPreset(m_settings, modelPresets()[static_cast<std::size_t>(index - 1)]);
        presets->setCurrentIndex(0);
        commit();
    });
    return group;
}

QWidget* ParameterPanel::buildDisplayGroup() {
    auto* group = new QGroupBox(tr("Display"), this);
    auto* form = new QFormLayout(group);
    m_display = new QComboBox(group);
    m_display->setObjectName(QStringLiteral("patternDisplay"));
    m_display->addItems({tr("Mask M"), tr("Weights W"), tr("Weights W + mask outline"),
                         tr("Mask M coloured by component"), tr("Components as separate heads")});
    form->addRow(tr("pattern shows"), m_display);
    addBlockViewRow(form, group);
    addQueriesRow(form, group);
    m_tokens = new QLineEdit(group);
    m_tokens->setObjectName(QStringLiteral("tokens"));
    m_tokens->setPlaceholderText(tr("The cat sat on the mat"));
    m_tokens->setToolTip(tr("Words separated by spaces label the pattern's rows and columns when there are exactly n of them"));
    form->addRow(tr("tokens"), m_tokens);
    connect(m_tokens, &QLineEdit::editingFinished, this, [this] {
        if (m_updating || m_tokens->text().toStdString() == m_settings.tokens) return;
        m_settings.tokens = m_tokens->text().toStdString();
        commit();
    });
    m_layers = new QSpinBox(group);
    m_layers->setRange(1, 64);
    form->addRow(tr("layers L"), m_layers);
    m_unit = new QComboBox(group);
    m_unit->addItems({tr("MACs"), tr("FLOPs (2 × MACs)")});
    form->addRow(tr("cost unit"), m_unit);
    addFlopLayerRow(form, group);
    m_timingMode = new QComboBox(group);
    m_timingMode->setObjectName(QStringLiteral("timingMode"));
    m_timingMode->addItem(tr("Variants: attention core vs n"), static_cast<int>(TimingMode::Variants));
    m_timingMode->addItem(tr("Layer: projections, core, FFN vs n"), static_cast<int>(TimingMode::Layer));
    form->addRow(tr("timing"), m_timingMode);
    m_timingMaxN = new QComboBox(group);
    m_timingMaxN->setObjectName(QStringLiteral("timingMaxN"));
    for (std::int64_t n = 256; n <= 65536; n *= 2) m_timingMaxN->addItem(QString::number(n), static_cast<qlonglong>(n));
    m_timingMaxN->setToolTip(tr("the timing sweep measures n = 64, 128, … up to this"));
    form->addRow(tr("timing up to n"), m_timingMaxN);
    m_timingGuides = new QCheckBox(tr("guide lines n², n√n, n"), group);
    m_timingGuides->setObjectName(QStringLiteral("timingGuides"));
    form->addRow(QString(), m_timingGuides);
    connect(m_timingGuides, &QCheckBox::toggled, this, [this](bool on) {
        if (m_updating) return;
        m_settings.timingGuides = on;
        commit();
    });
    addBlockCostRows(form, group);
    m_inputScale = new QComboBox(group);
    m_inputScale->setObjectName(QStringLiteral("accuracyInputScale"));
    for (const double scale : {0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0}) m_inputScale->addItem(QString::number(scale), scale);
    m_inputScale->setToolTip(tr("accuracy view: Q and K multiplied by s, the logits q·k/√d by s² (the softmax temperature)"));
    form->addRow(tr("accuracy input scale s"), m_inputScale);
    m_errorMeasure = new QComboBox(group);
    m_errorMeasure->setObjectName(QStringLiteral("accuracyErrorMeasure"));
    m_errorMeasure->addItem(tr("output: ‖out − out_full‖ / ‖out_full‖"), false);
    m_errorMeasure->addItem(tr("effective weights: ‖W − W_full‖ / ‖W_full‖"), true);
    form->addRow(tr("accuracy error"), m_errorMeasure);
    connect(m_inputScale, &QComboBox::activated, this, [this](int index) {
        m_settings.accuracyInputScale = m_inputScale->itemData(index).toDouble();
        commit();
    });
    connect(m_errorMeasure, &QComboBox::activated, this, [this](int index) {
        m_settings.accuracyOnWeights = m_errorMeasure->itemData(index).toBool();
        commit();
    });
    connect(m_timingMode, &QComboBox::activated, this, [this](int index) {
        m_settings.timingMode = static_cast<TimingMode>(m_timingMode->itemData(index).toInt());
        commit();
    });
    connect(m_timingMaxN, &QComboBox::activated, this, [this](int index) {
        m_settings.timingMaxN = m_timingMaxN->itemData(index).toLongLong();
        commit();
    });
    connect(m_display, &QComboBox::activated, this, [this](int index) {
        m_settings.showWeights = index == 1 || index == 2;
        m_settings.showMaskOutline = index == 2;
        m_settings.showComponents = index >= 3;
        m_settings.splitComponents = index == 4;
        commit();
    });
    connect(m_layers, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.layers = value;
        commit();
    });
    connect(m_unit, &QComboBox::activated, this, [this](int index) {
        m_settings.flopsAsMacs = index == 0;
        commit();
    });
    return group;
}

void ParameterPanel::setSettings(const LabSettings& settings) {
    m_settings = settings;
    refreshWidgets();
}

void ParameterPanel::refreshWidgets() {
    const bool wasUpdating = std::exchange(m_updating, true);
    const VariantInfo* variant = findVariant(m_settings.variant);
    m_variant->setCurrentIndex(m_variant->findData(text(m_settings.variant), Qt::UserRole));
    m_summary->setText(variant ? coreText(variant->summary) : QString());
    m_editAsExpression->setVisible(variant && variant->printExpr);
    m_nSlider->setValue(sliderOfN(m_settings.n));
    m_n->setValue(static_cast<int>(m_settings.n));
    m_d->setValue(static_cast<int>(m_settings.d));
    m_heads->setValue(m_settings.heads);
    m_head->setRange(0, std::max(0, m_settings.heads - 1));
    m_head->setValue(m_settings.head);
    refreshInferenceWidgets();
    refreshBlockViewWidget();
    refreshQueriesWidget();
    refreshBlockCostWidgets();
    refreshFlopLayerWidget();
    refreshGridWidgets();
    const CausalSupport support = variant ? variant->causalSupport : CausalSupport::Both;
    m_causal->setEnabled(support == CausalSupport::Both);
    m_causal->setChecked(support == CausalSupport::Both ? m_settings.causal : support == CausalSupport::CausalOnly);
    m_causal->setToolTip(support == CausalSupport::Both ? tr("queries see only keys j ≤ i")
                                                        : support == CausalSupport::CausalOnly ? tr("this variant is causal only") : tr("this variant is bidirectional only"));
    m_source->setCurrentIndex(m_source->findData(static_cast<int>(m_settings.source)));
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(m_settings.inputSeed, INT_MAX)));
    m_fileEdits.value(QStringLiteral("Q"))->setText(text(m_settings.qPath));
    m_fileEdits.value(QStringLiteral("K"))->setText(text(m_settings.kPath));
    m_fileEdits.value(QStringLiteral("V"))->setText(text(m_settings.vPath));
    for (QWidget* widget : m_fileWidgets) widget->setEnabled(m_settings.source == InputSource::NpyFiles);
    m_display->setCurrentIndex(m_settings.showWeights       ? (m_settings.showMaskOutline ? 2 : 1)
                               : m_settings.splitComponents ? 4
                               : m_settings.showComponents  ? 3
                                                            : 0);
    m_layers->setValue(static_cast<int>(m_settings.layers));
    if (m_tokens->text().toStdString() != m_settings.tokens) m_tokens->setText(text(m_settings.tokens));
    m_unit->setCurrentIndex(m_settings.flopsAsMacs ? 0 : 1);
    m_timingMode->setCurrentIndex(m_timingMode->findData(static_cast<int>(m_settings.timingMode)));
    // A max n from a session that is not a listed power of two is added so it shows as it is.
    if (m_timingMaxN->findData(static_cast<qlonglong>(m_settings.timingMaxN)) < 0)
        m_timingMaxN->addItem(QString::number(m_settings.timingMaxN), static_cast<qlonglong>(m_settings.timingMaxN));
    m_timingMaxN->setCurrentIndex(m_timingMaxN->findData(static_cast<qlonglong>(m_settings.timingMaxN)));
    m_timingGuides->setChecked(m_settings.timingGuides);
    // A scale from a session that is not listed is added so it shows as it is.
    if (m_inputScale->findData(m_settings.accuracyInputScale) < 0)
        m_inputScale->addItem(QString::number(m_settings.accuracyInputScale), m_settings.accuracyInputScale);
    m_inputScale->setCurrentIndex(m_inputScale->findData(m_settings.accuracyInputScale));
    m_errorMeasure->setCurrentIndex(m_errorMeasure->findData(m_settings.accuracyOnWeights));
    m_compare->setChecked(m_settings.compareVariants.size() > 1);
    for (int k = 0; k < m_compareChoosers.size(); ++k) {
        QComboBox* combo = m_compareChoosers[k];
        const std::size_t entry = static_cast<std::size_t>(k) + 1;
        const bool used = entry < m_settings.compareVariants.size();
        const int index = used ? combo->findData(text(m_settings.compareVariants[entry]), Qt::UserRole) : 0;
        combo->setCurrentIndex(index >= 0 ? index : 0);
        if (k == 0 && !used) combo->setCurrentIndex(combo->findData(QStringLiteral("full"), Qt::UserRole));
        combo->setEnabled(m_compare->isChecked());
        QLineEdit* params = m_compareParamEdits[k];
        params->setEnabled(m_compare->isChecked() && used);
        params->setText(used ? panelText(entry) : QString());
        QStringList fixed;
        const std::vector<VariantChoice> choices = chosenVariants(m_settings);
        if (used)
            for (const auto& [key, value] : choices[entry].params)
                if (fixedByPreset(entry, key)) fixed << QString::fromStdString(key);
        params->setStyleSheet(fixed.isEmpty() ? QString() : QStringLiteral("background: #eef4fb;"));
        params->setToolTip(fixed.isEmpty() ? tr("This panel's own parameters, e.g. window=8 dilation=2, and after title= its title")
                                           : tr("Fixed by the preset %1: %2").arg(QString::fromStdString(m_settings.preset), fixed.join(QStringLiteral(", "))));
    }
    if (m_editorsVariant != m_settings.variant) rebuildParameterEditors();
    else refreshParameterValues();
    QString problem = QString::fromStdString(settingsProblem(m_settings));
    if (problem.isEmpty()) problem = QString::fromStdString(presetLengthNote(m_settings));
    m_message->setText(problem);
    m_message->setVisible(!problem.isEmpty());
    m_updating = wasUpdating;
}

QString ParameterPanel::message() const { return m_message->text(); }

QString ParameterPanel::parameterNote(const QString& key) const {
    const QLabel* note = m_defaultLabels.value(key);
    return note ? note->text() : QString();
}

void ParameterPanel::commit() {
    if (m_updating) return;
    refreshWidgets();
    emit settingsChanged(m_settings);
}

} // namespace attnlab
