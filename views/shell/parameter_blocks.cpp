#include "views/shell/parameter_panel.h"

#include "views/figures/pattern_blocks.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>

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
