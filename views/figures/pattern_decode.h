#pragma once

#include "views/figures/pattern_snapshot.h"
#include "views/jobs/job_runner.h"

#include <QStringList>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QPainter;

namespace attnlab {

class PlaneViewport;

// The pattern view at one decoding step t (an animation's FrameMark::decodeStep): the new token is query
// row t, marked with the keys it reads; the rows after it are not generated yet and are veiled; within
// them the columns of the keys the KV cache still holds (core/patterns/decode_cache.h) stay tinted, so
// that sinks, windows, chunks and the evicted keys between them show as t advances. The cache of each
// panel is computed on a worker.
class PatternDecode {
  public:
    PatternDecode();

    JobRunner& jobs() { return m_jobs; }
    bool busy() const { return m_jobs.busy(); }
    std::optional<std::int64_t> step() const { return m_step; }
    // Computes every panel's cache at `step` (nothing without a step); `arrived` runs when it has.
    void update(const std::shared_ptr<const PatternSnapshot>& snapshot, std::optional<std::int64_t> step,
                std::function<void()> arrived);
    // Paints the veil and the cached columns over panel `index` (nothing without a step or its cache).
    void paint(QPainter& painter, int index, const PlaneViewport& view) const;
    // The statistics lines of panel `index` at the step: the keys read, held and evicted.
    QStringList statsLines(const PatternPanel& panel, int index) const;

  private:
    struct Cache {
        std::int64_t step = 0;
        std::vector<std::vector<ColumnRange>> held; // per panel (empty for a panel without a pattern)
    };
    JobRunner m_jobs;
    std::optional<std::int64_t> m_step;
    std::shared_ptr<const Cache> m_cache;
};

} // namespace attnlab
