#include "views/shell/parameter_panel.h"

#include "views/figures/pattern_blocks.h"

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

} // namespace attnlab
