#include "views/figures/pattern_decode.h"

#include "views/plot/plane_viewport.h"

#include "core/patterns/decode_cache.h"

#include <QCoreApplication>
#include <QPainter>

namespace attnlab {

namespace {

// The pattern view's translation context.
struct DecodeText {
    Q_DECLARE_TR_FUNCTIONS(attnlab::PatternView)
};

const QColor kFutureVeil(255, 255, 255, 200);
const QColor kHeldTint(0x00, 0x9e, 0x73,
                       70); // Okabe–Ito bluish green, apart from the orange of the new token

std::int64_t keys(const std::vector<ColumnRange>& ranges) {
    std::int64_t count = 0;
    for (const ColumnRange& range : ranges)
        count += range.size();
    return count;
}

} // namespace

PatternDecode::PatternDecode()
    : m_jobs(QCoreApplication::translate("attnlab::PatternView", "decoding cache")) {}

void PatternDecode::update(const std::shared_ptr<const PatternSnapshot>& snapshot,
                           std::optional<std::int64_t> step, std::function<void()> arrived) {
    m_jobs.bumpGeneration();
    m_step = step;
    m_cache.reset();
    if (!step || !snapshot) return;
    m_jobs.submit<Cache>(
        [snapshot, t = *step](const CancelCheck& cancelled) {
            Cache cache{t, {}};
            for (const PatternPanel& panel : snapshot->panels) {
                if (cancelled()) break;
                cache.held.push_back(panel.pattern && t < panel.n ? cachedKeysAt(*panel.pattern, t)
                                                                  : std::vector<ColumnRange>{});
            }
            return cache;
        },
        [this, arrived = std::move(arrived)](const Cache& cache) {
            m_cache = std::make_shared<const Cache>(cache);
            arrived();
        });
}

void PatternDecode::paint(QPainter& painter, int index, const PlaneViewport& view) const {
    if (!m_step || !m_cache || index >= static_cast<int>(m_cache->held.size())) return;
    const std::int64_t t = m_cache->step, n = view.n();
    if (t + 1 >= n) return;
    const QRectF future = view.regionRect({t + 1, n, 0, n});
    painter.fillRect(future, kFutureVeil);
    for (const ColumnRange& range : m_cache->held[static_cast<std::size_t>(index)]) {
        QRectF column = view.regionRect({t + 1, n, range.begin, range.end});
        column.setWidth(std::max(column.width(), 1.5));
        painter.fillRect(column, kHeldTint);
    }
}

QStringList PatternDecode::statsLines(const PatternPanel& panel, int index) const {
    if (!m_step || !panel.pattern || *m_step >= panel.n) return {};
    const std::int64_t t = *m_step;
    QStringList lines;
    lines << DecodeText::tr("decoding step t = %1 (orange: the new token and the keys it reads)").arg(t);
    if (!m_cache || index >= static_cast<int>(m_cache->held.size())) return lines;
    const std::int64_t held = keys(m_cache->held[static_cast<std::size_t>(index)]);
    lines << DecodeText::tr("KV cache: %1 of the %2 keys so far (green columns), %3 evicted")
                 .arg(held)
                 .arg(t + 1)
                 .arg(t + 1 - held);
    return lines;
}

} // namespace attnlab
