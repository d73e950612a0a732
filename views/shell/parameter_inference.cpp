#include "views/shell/parameter_panel.h"

#include "core/jobs/memory_budget.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnlab {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace

void ParameterPanel::addKvHeadsRow(QFormLayout* form, QWidget* group) {
    m_kvHeads = new QSpinBox(group);
    m_kvHeads->setObjectName(QStringLiteral("kvHeads"));
    m_kvHeads->setRange(0, 256);
    m_kvHeads->setSpecialValueText(tr("= h"));
    m_kvHeads->setToolTip(tr("key/value heads h_kv: K and V have h_kv heads shared by groups of h / h_kv query heads "
                             "(h_kv = 1: multi-query attention); must divide h"));
    form->addRow(tr("key/value heads h_kv"), m_kvHeads);
    connect(m_kvHeads, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.kvHeads = value == m_settings.heads ? 0 : value;
        commit();
    });
}

QWidget* ParameterPanel::buildInferenceGroup() {
    auto* group = new QGroupBox(tr("Inference"), this);
    auto* form = new QFormLayout(group);
    m_modelLayers = new QSpinBox(group);
    m_modelLayers->setObjectName(QStringLiteral("modelLayers"));
    m_modelLayers->setRange(1, 1024);
    m_modelLayers->setToolTip(tr("layers of the whole model whose KV cache the inference view adds up"));
    form->addRow(tr("model layers"), m_modelLayers);
    m_memoryBudget = new QDoubleSpinBox(group);
    m_memoryBudget->setObjectName(QStringLiteral("memoryBudget"));
    m_memoryBudget->setRange(0, 1 << 20);
    m_memoryBudget->setDecimals(1);
    m_memoryBudget->setSuffix(tr(" GiB"));
    m_memoryBudget->setSpecialValueText(tr("this machine's RAM (%1 GiB)").arg(physicalMemoryBytes() / kGiB, 0, 'f', 1));
    m_memoryBudget->setToolTip(tr("the memory the KV cache may take: the inference view marks where each curve outgrows it"));
    form->addRow(tr("memory budget"), m_memoryBudget);
    m_kvDtype = new QComboBox(group);
    m_kvDtype->setObjectName(QStringLiteral("kvDtype"));
    m_kvDtype->addItem(tr("float32"), QStringLiteral("f32"));
    m_kvDtype->addItem(tr("float16"), QStringLiteral("f16"));
    m_kvDtype->addItem(tr("bfloat16"), QStringLiteral("bf16"));
    m_kvDtype->setToolTip(tr("the precision the KV cache keeps keys and values in (2 bytes per element for float16 and bfloat16); "
                             "the decoding step converts them to float32 as it reads"));
    form->addRow(tr("KV cache precision"), m_kvDtype);
    connect(m_kvDtype, &QComboBox::activated, this, [this](int index) {
        if (m_updating) return;
        m_settings.kvDtype = m_kvDtype->itemData(index).toString().toStdString();
        commit();
    });
    connect(m_modelLayers, &QSpinBox::valueChanged, this, [this](int value) {
        if (m_updating) return;
        m_settings.modelLayers = value;
        commit();
    });
    connect(m_memoryBudget, &QDoubleSpinBox::valueChanged, this, [this](double gib) {
        if (m_updating) return;
        m_settings.memoryBudget = static_cast<std::int64_t>(std::llround(gib * kGiB));
        commit();
    });
    return group;
}

void ParameterPanel::refreshInferenceWidgets() {
    const bool wasUpdating = std::exchange(m_updating, true);
    m_kvHeads->setRange(0, m_settings.heads);
    m_kvHeads->setValue(m_settings.kvHeads);
    m_modelLayers->setValue(static_cast<int>(m_settings.modelLayers));
    m_memoryBudget->setValue(static_cast<double>(m_settings.memoryBudget) / kGiB);
    m_kvDtype->setCurrentIndex(std::max(0, m_kvDtype->findData(QString::fromStdString(m_settings.kvDtype))));
    m_updating = wasUpdating;
}

} // namespace attnlab
