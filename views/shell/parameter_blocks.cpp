#include "views/shell/parameter_panel.h"

#include "views/figures/pattern_blocks.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QSpinBox>

#include <utility>

namespace attnlab {

void ParameterPanel::addBlockViewRow(QFormLayout* form, QWidget* group) {
    m_blockView = new QComboBox(group);
    m_blockView->setObjectName(QStringLiteral("blockView"));
    m_blockView->addItem(tr("off"), qlonglong{0});
    for (std::int64_t size = kMinBlockViewSize; size <= kMaxBlockViewSize; size *= 2)
        m_blockView->addItem(tr("%1 × %1 blocks").arg(size), static_cast<qlonglong>(size));
    m_blockView->setToolTip(tr("What a block kernel computes: the pattern cut into B × B blocks, empty blocks clear, "
                               "partial ones hatched, full ones solid, with their counts"));
    form->addRow(tr("block grid"), m_blockView);
    connect(m_blockView, &QComboBox::activated, this, [this](int index) {
        m_settings.blockView = m_blockView->itemData(index).toLongLong();
        commit();
    });
}

void ParameterPanel::addQueriesRow(QFormLayout* form, QWidget* group) {
    m_queries = new QSpinBox(group);
    m_queries->setObjectName(QStringLiteral("queries"));
    m_queries->setSpecialValueText(tr("all n rows"));
    m_queries->setToolTip(tr("Only the last m rows query, against all n keys: a chunk of prefill over a cache, or m tokens "
                             "verified at once (the pattern view frames the m × n rectangle and counts its cells)"));
    form->addRow(tr("queries m"), m_queries);
    connect(m_queries, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating || value == m_settings.queries) return;
        m_settings.queries = value;
        commit();
    });
}

void ParameterPanel::refreshQueriesWidget() {
    const bool wasUpdating = std::exchange(m_updating, true);
    m_queries->setRange(0, static_cast<int>(m_settings.n));
    m_queries->setValue(static_cast<int>(m_settings.queries));
    m_updating = wasUpdating;
}

void ParameterPanel::refreshBlockViewWidget() {
    const bool wasUpdating = std::exchange(m_updating, true);
    // A size from a session or a figure command that is not listed is added so it shows as it is.
    if (m_blockView->findData(static_cast<qlonglong>(m_settings.blockView)) < 0)
        m_blockView->addItem(tr("%1 × %1 blocks").arg(m_settings.blockView), static_cast<qlonglong>(m_settings.blockView));
    m_blockView->setCurrentIndex(m_blockView->findData(static_cast<qlonglong>(m_settings.blockView)));
    m_updating = wasUpdating;
}

void ParameterPanel::addBlockCostRows(QFormLayout* form, QWidget* group) {
    m_blockCost = new QComboBox(group);
    m_blockCost->setObjectName(QStringLiteral("blockCost"));
    for (std::int64_t size = kMinBlockViewSize; size <= kMaxBlockViewSize; size *= 2)
        m_blockCost->addItem(tr("%1 × %1 blocks").arg(size), static_cast<qlonglong>(size));
    m_blockCost->setToolTip(tr("FLOP and timing views: a block kernel's cost, every cell of each non-empty B × B block "
                               "computed, beside the exact cost of the allowed cells"));
    form->addRow(tr("block kernel cost"), m_blockCost);
    connect(m_blockCost, &QComboBox::activated, this, [this](int index) {
        m_settings.blockCost = m_blockCost->itemData(index).toLongLong();
        commit();
    });
    m_timingBlockModel = new QCheckBox(tr("timing: block kernel's prediction"), group);
    m_timingBlockModel->setObjectName(QStringLiteral("timingBlockModel"));
    m_timingBlockModel->setToolTip(tr("Also draw the block kernel's computed cells, fitted to the measured times as the cost "
                                      "model is: which of the two the measured curve follows"));
    form->addRow(QString(), m_timingBlockModel);
    connect(m_timingBlockModel, &QCheckBox::toggled, this, [this](bool on) {
        if (m_updating) return;
        m_settings.timingBlockModel = on;
        commit();
    });
}

void ParameterPanel::refreshBlockCostWidgets() {
    const bool wasUpdating = std::exchange(m_updating, true);
    if (m_blockCost->findData(static_cast<qlonglong>(m_settings.blockCost)) < 0)
        m_blockCost->addItem(tr("%1 × %1 blocks").arg(m_settings.blockCost), static_cast<qlonglong>(m_settings.blockCost));
    m_blockCost->setCurrentIndex(m_blockCost->findData(static_cast<qlonglong>(m_settings.blockCost)));
    m_timingBlockModel->setChecked(m_settings.timingBlockModel);
    m_updating = wasUpdating;
}

} // namespace attnlab
