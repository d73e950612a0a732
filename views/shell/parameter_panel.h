#pragma once

#include "core/analysis/lab_settings.h"

#include <QMap>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPushButton;
class QSlider;
class QSpinBox;

namespace attnlab {

// Every user choice, built from the core registry's schema (allVariants(), ParamSpec): no form is
// written per variant. Each edit emits the complete new LabSettings; a combination core rejects
// (prepareParams throws InputError) is still emitted, and its one-line message is shown in the panel.
class ParameterPanel : public QWidget {
    Q_OBJECT
public:
    explicit ParameterPanel(QWidget* parent = nullptr);

    // The largest n (and grid cell count) the panel offers.
    static constexpr int kMaxN = 65536;

    // Shows `settings` without emitting settingsChanged.
    void setSettings(const LabSettings& settings);
    const LabSettings& settings() const { return m_settings; }

    // The current variant's parameter keys in schema order, the editor of one key (QSpinBox,
    // QCheckBox, QComboBox or QLineEdit by the key's type) and the note under it ("default … · range …").
    QStringList parameterKeys() const { return m_keys; }
    QWidget* parameterEditor(const QString& key) const { return m_editors.value(key); }
    QString parameterNote(const QString& key) const;
    // The variant chooser, the compare chooser k (1…3) and the message shown for invalid input.
    QComboBox* variantChooser() const { return m_variant; }
    QComboBox* compareChooser(int k) const;
    // The parameter editor of compare panel k (1…3): "KEY=VALUE … | title" for that panel alone.
    QLineEdit* compareParameterEditor(int k) const { return k >= 1 && k <= m_compareParamEdits.size() ? m_compareParamEdits[k - 1] : nullptr; }
    // True when panel `entry` (0 = the main variant) has `key` at the value the settings' preset gives it.
    bool fixedByPreset(std::size_t entry, const std::string& key) const;
    QSpinBox* lengthEditor() const { return m_n; }
    QLineEdit* tokensEditor() const { return m_tokens; }
    // Key/value heads h_kv (0 shows "= h": as many as the query heads).
    QSpinBox* kvHeadsEditor() const { return m_kvHeads; }
    // The token grid's rows: grid (H,W or T,H,W), order, the grid view's query and the message for a grid
    // or order text that is not valid (empty when there is none).
    QLineEdit* gridEditor() const { return m_grid; }
    QLineEdit* orderEditor() const { return m_order; }
    QSpinBox* gridQueryEditor() const { return m_gridQuery; }
    QString gridError() const;
    // "Edit as expression": shown for variants that print an equivalent expression.
    QPushButton* editAsExpressionButton() const { return m_editAsExpression; }
    QString message() const;

signals:
    void settingsChanged(const attnlab::LabSettings& settings);

private:
    QWidget* buildVariantGroup();
    QWidget* buildShapeGroup();
    QWidget* buildParameterGroup();
    QWidget* buildInputGroup();
    QWidget* buildDisplayGroup();
    QWidget* buildCompareGroup();
    // parameter_inference.cpp: the h_kv row of the Shape group and the Inference group (model layers,
    // memory budget).
    void addKvHeadsRow(QFormLayout* form, QWidget* group);
    QWidget* buildInferenceGroup();
    void refreshInferenceWidgets();
    // parameter_blocks.cpp: the block-view row of the Display group (off, or the block size B).
    void addBlockViewRow(QFormLayout* form, QWidget* group);
    void refreshBlockViewWidget();
    // The pattern view's queries m (0: every row), at most n.
    void addQueriesRow(QFormLayout* form, QWidget* group);
    void refreshQueriesWidget();
    // The block size of the block kernel's cost (FLOP and timing views) and the timing view's toggle for its
    // prediction.
    void addBlockCostRows(QFormLayout* form, QWidget* group);
    void refreshBlockCostWidgets();
    // parameter_flop_layer.cpp: the layer the FLOP view costs relu2 and mixed_chunk in (FLASH's GAU layer or
    // the standard one), enabled for those two.
    void addFlopLayerRow(QFormLayout* form, QWidget* group);
    void refreshFlopLayerWidget();
    // parameter_grid.cpp: the grid, order and grid-query rows of the Shape group.
    void addGridRows(QFormLayout* form, QWidget* group);
    void applyGridText();
    void refreshGridWidgets();
    QComboBox* makeVariantCombo(bool allowNone);
    QLineEdit* makeFileRow(QFormLayout* form, const QString& label, std::string LabSettings::*path);

    void rebuildParameterEditors();
    QWidget* makeEditor(const ParamSpec& spec, const QString& shown, bool overridden);
    void refreshWidgets();
    void refreshParameterValues();
    void setOverride(const std::string& key, const std::string& text);
    void clearOverride(const std::string& key);
    void updateCompare();
    void resetPanel(std::size_t entry);
    void setPanelText(std::size_t entry);
    void setLength(std::int64_t n);
    QString panelText(std::size_t entry) const;
    void commit();

    LabSettings m_settings;
    bool m_updating = false;
    std::string m_editorsVariant;

    QComboBox* m_variant = nullptr;
    QLabel* m_summary = nullptr;
    QPushButton* m_editAsExpression = nullptr;
    QSlider* m_nSlider = nullptr;
    QSpinBox* m_n = nullptr;
    QSpinBox* m_d = nullptr;
    QSpinBox* m_heads = nullptr;
    QSpinBox* m_head = nullptr;
    QSpinBox* m_kvHeads = nullptr;
    QSpinBox* m_modelLayers = nullptr;
    QDoubleSpinBox* m_memoryBudget = nullptr;
    QComboBox* m_kvDtype = nullptr;
    QCheckBox* m_causal = nullptr;
    QLineEdit* m_grid = nullptr;
    QLineEdit* m_order = nullptr;
    QSpinBox* m_gridQuery = nullptr;
    QLabel* m_gridError = nullptr;
    QFormLayout* m_paramForm = nullptr;
    QStringList m_keys;
    QMap<QString, QWidget*> m_editors;
    QMap<QString, QLabel*> m_defaultLabels;
    QComboBox* m_source = nullptr;
    QSpinBox* m_seed = nullptr;
    QList<QWidget*> m_fileWidgets;
    QMap<QString, QLineEdit*> m_fileEdits;
    QComboBox* m_display = nullptr;
    QComboBox* m_blockView = nullptr;
    QSpinBox* m_queries = nullptr;
    QLineEdit* m_tokens = nullptr;
    QSpinBox* m_layers = nullptr;
    QComboBox* m_unit = nullptr;
    QComboBox* m_flopLayer = nullptr;
    QComboBox* m_timingMode = nullptr;
    QComboBox* m_timingMaxN = nullptr;
    QCheckBox* m_timingGuides = nullptr;
    QComboBox* m_blockCost = nullptr;
    QCheckBox* m_timingBlockModel = nullptr;
    QComboBox* m_inputScale = nullptr;
    QComboBox* m_errorMeasure = nullptr;
    QCheckBox* m_compare = nullptr;
    QList<QComboBox*> m_compareChoosers;
    QList<QLineEdit*> m_compareParamEdits;
    QComboBox* m_preset = nullptr;
    QLabel* m_message = nullptr;
};

} // namespace attnlab
