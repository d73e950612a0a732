#include "views/figures/inference_decode.h"

#include "views/i18n/language.h"
#include "views/plot/plot_axes.h"
#include "views/plot/figure_text.h"
#include "views/plot/text_style.h"

#include "core/cost/job_limits.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

namespace attnlab {

namespace {

// The inference view's translation context.
struct DecodeText {
    Q_DECLARE_TR_FUNCTIONS(attnlab::InferenceView)
};

constexpr double kStripLine = 14.0;
const QColor kEvicted(0xe4, 0xe4, 0xe4);

InferenceDecode::Strip stripAt(const LabSettings& settings, const InferenceChoice& choice, std::int64_t t) {
    InferenceDecode::Strip strip;
    strip.label = choice.label;
    try {
        const VariantInfo& variant = requireVariant(choice.choice.variant);
        LabSettings at = settings;
        at.n = t + 1;
        at.causal = true;
        at.grid.clear();
        at.order.clear();
        ProblemShape shape = problemShape(at, variant);
        shape.causal = true;
        const ParamSet params = prepareParams(variant, shape, choice.choice.params);
        const DecodeCost cache = decodeCache(variant, shape, params);
        strip.retainedKeys = cache.retainedKeys;
        strip.layerBytes = cache.kvCacheBytes;
        if (variant.hasMask && !variant.dataDependentPattern &&
            shape.n <= InferenceDecode::kMaxStripContext) {
            requirePatternBuildLimits(variant, shape, params);
            buildPattern(variant, shape, params)->rowRanges(t, strip.held);
            strip.drawn = true;
        }
    } catch (const InputError& error) {
        strip.error = error.what();
    }
    return strip;
}

} // namespace

InferenceDecode::InferenceDecode()
    : m_jobs(QCoreApplication::translate("attnlab::InferenceView", "decoding cache")) {}

void InferenceDecode::update(const LabSettings& settings, const std::vector<InferenceChoice>& choices,
                             std::optional<std::int64_t> step, std::function<void()> arrived) {
    m_jobs.bumpGeneration();
    m_step = step;
    m_strips.reset();
    if (!step) return;
    m_jobs.submit<std::vector<Strip>>(
        [settings, choices, t = *step](const CancelCheck& cancelled) {
            std::vector<Strip> strips;
            for (const InferenceChoice& choice : choices) {
                if (cancelled()) break;
                strips.push_back(stripAt(settings, choice, t));
            }
            return strips;
        },
        [this, arrived = std::move(arrived)](const std::vector<Strip>& strips) {
            m_strips = std::make_shared<const std::vector<Strip>>(strips);
            arrived();
        });
}

QRectF InferenceDecode::paintStrips(QPainter& painter, const QRectF& area,
                                    const std::function<QColor(std::size_t)>& colorOf) const {
    if (!m_step) return area;
    const std::int64_t t = *m_step;
    const std::size_t count = m_strips ? m_strips->size() : 0;
    const double height = kStripLine * static_cast<double>(count + 1) + 6;
    const QRectF box(area.left(), area.bottom() - height, area.width(), height);
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.5));
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    painter.setPen(Qt::black);
    drawAlignedText(painter, 
        QRectF(box.left(), box.top(), box.width(), kStripLine), Qt::AlignLeft | Qt::AlignVCenter,
        DecodeText::tr("At the new token t = %1 (context n = %2): the keys each layer keeps (coloured), "
                    "evicted (grey), over positions 0 … t")
            .arg(t)
            .arg(t + 1));
    const double labelWidth = std::min(260.0, box.width() * 0.4);
    for (std::size_t k = 0; k < count; ++k) {
        const Strip& strip = (*m_strips)[k];
        const double y = box.top() + kStripLine * static_cast<double>(k + 1) + 2;
        QString text = coreText(strip.label) + QStringLiteral(": ");
        if (!strip.error.empty())
            text += QString::fromStdString(strip.error);
        else if (!strip.retainedKeys)
            text += DecodeText::tr("a recurrent state, %1").arg(bytesText(strip.layerBytes));
        else
            text += DecodeText::tr("%1 keys, %2")
                        .arg(compactNumber(static_cast<double>(*strip.retainedKeys)),
                             bytesText(strip.layerBytes));
        painter.setPen(Qt::black);
        drawAlignedText(painter, QRectF(box.left(), y, labelWidth - 6, kStripLine - 2),
                        Qt::AlignLeft | Qt::AlignVCenter,
                        metrics.elidedText(text, Qt::ElideRight, labelWidth - 6));
        const QRectF bar(box.left() + labelWidth, y + 2, box.width() - labelWidth, kStripLine - 6);
        if (!strip.drawn) continue;
        painter.fillRect(bar, kEvicted);
        const double scale = bar.width() / static_cast<double>(t + 1);
        for (const ColumnRange& range : strip.held) {
            const double width = std::max(1.5, static_cast<double>(range.size()) * scale);
            painter.fillRect(
                QRectF(bar.left() + static_cast<double>(range.begin) * scale, bar.top(), width, bar.height()),
                colorOf(k));
        }
    }
    painter.restore();
    return QRectF(area.left(), area.top(), area.width(), area.height() - height - 4);
}

void InferenceDecode::paintMarker(const PlotAxes& axes) const {
    if (!m_step) return;
    axes.drawVerticalMarkers({{static_cast<double>(*m_step + 1), DecodeText::tr("t = %1").arg(*m_step),
                               QColor(0x30, 0x30, 0x30), 0}});
}

} // namespace attnlab
