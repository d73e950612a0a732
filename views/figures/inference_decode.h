#pragma once

#include "views/jobs/job_runner.h"

#include "core/analysis/inference.h"
#include "core/patterns/pattern.h"

#include <QColor>
#include <QRectF>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QPainter;

namespace attnlab {

class PlotAxes;

// The inference view at one decoding step (an animation's FrameMark::decodeStep t): the new token at
// position t, so a context of n = t + 1. A marker at that n on both panels and, under them, one strip per
// curve over the positions 0 … t: the keys its cache holds at that step (those row t of the variant's
// causal pattern reads) in the curve's colour, the evicted ones grey, with the cache's size at that n
// (decodeCache). Computed on a worker.
class InferenceDecode {
  public:
    InferenceDecode();

    JobRunner& jobs() { return m_jobs; }
    bool busy() const { return m_jobs.busy(); }
    bool active() const { return m_step.has_value(); }
    void update(const LabSettings& settings, const std::vector<InferenceChoice>& choices,
                std::optional<std::int64_t> step, std::function<void()> arrived);
    // Paints the strips at the bottom of `area` and returns the room left above them (`area` when inactive).
    // `colorOf(k)`: the colour of choice k (the variant colour its curves have in the figure).
    QRectF paintStrips(QPainter& painter, const QRectF& area, const std::function<QColor(std::size_t)>& colorOf) const;
    // The step's context n as a vertical marker.
    void paintMarker(const PlotAxes& axes) const;

    // The largest context whose strips are drawn from the pattern (beyond it only the sizes are stated).
    static constexpr std::int64_t kMaxStripContext = std::int64_t{1} << 20;

    struct Strip {
        std::string label;
        std::optional<std::int64_t> retainedKeys; // nullopt: a recurrent state only
        double layerBytes = 0;
        bool drawn = false; // `held` comes from the pattern
        std::vector<ColumnRange> held;
        std::string error;
    };

  private:
    JobRunner m_jobs;
    std::optional<std::int64_t> m_step;
    std::shared_ptr<const std::vector<Strip>> m_strips;
};

} // namespace attnlab
