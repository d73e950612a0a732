#include "views/shell/parameter_panel.h"

#include "core/cost/cost_model.h"
#include "core/registry.h"

#include <QComboBox>
#include <QFormLayout>

#include <utility>

namespace attnlab {

void ParameterPanel::addFlopLayerRow(QFormLayout* form, QWidget* group) {
    m_flopLayer = new QComboBox(group);
    m_flopLayer->setObjectName(QStringLiteral("flopLayer"));
    m_flopLayer->addItem(tr("FLASH's GAU layer (no FFN)"), false);
    m_flopLayer->addItem(tr("attention + FFN 4hd"), true);
    form->addRow(tr("FLOP layer"), m_flopLayer);
    connect(m_flopLayer, &QComboBox::activated, this, [this](int index) {
        m_settings.flopsStandardLayer = m_flopLayer->itemData(index).toBool();
        commit();
    });
}

void ParameterPanel::refreshFlopLayerWidget() {
    const bool wasUpdating = std::exchange(m_updating, true);
    const VariantInfo* variant = findVariant(m_settings.variant);
    const bool gau = variant && hasGauLayer(*variant);
    m_flopLayer->setEnabled(gau);
    m_flopLayer->setToolTip(gau ? tr("The layer the FLOP view costs %1 in: FLASH's gated attention unit, which replaces attention "
                                     "and the FFN, or the standard layer with a 4hd FFN")
                                      .arg(QString::fromStdString(variant->id))
                                : tr("Only relu2 and mixed_chunk have a GAU layer; every other variant is costed in the "
                                     "standard layer"));
    m_flopLayer->setCurrentIndex(gau && !m_settings.flopsStandardLayer ? 0 : 1);
    m_updating = wasUpdating;
}

} // namespace attnlab
