#pragma once

// The query cell of a grid view and its picture in each panel (docs/grids.md), shared by the pattern and
// receptive-field views: set whole from each new snapshot, or moved by the user and then recomputed on a
// worker. A move overtaken by a newer snapshot or move never arrives (the runner's generation).

#include "views/figures/pattern_grid.h"
#include "views/jobs/job_runner.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

class GridQuery {
public:
    using Pictures = std::vector<std::shared_ptr<const GridPicture>>; // per panel; null where a panel has none
    using PictureBuilder = std::function<Pictures(std::int64_t query)>; // runs on the worker

    explicit GridQuery(const QString& jobName) : m_jobs(jobName) {}
    JobRunner& jobs() { return m_jobs; }
    bool busy() const { return m_jobs.busy(); }
    std::int64_t query() const { return m_query; }
    std::shared_ptr<const GridPicture> picture(int index) const;

    // A new snapshot's query and pictures; a move in flight is dropped.
    void reset(std::int64_t query, Pictures pictures);
    void cancel() { m_jobs.bumpGeneration(); }
    // Moves the query to `query`, clamped to the grid's `cells`; the pictures follow from `build` and
    // `arrived` runs on the UI thread once they are in. False, and nothing started, when it does not move.
    bool move(std::int64_t query, std::int64_t cells, PictureBuilder build, std::function<void()> arrived);

private:
    JobRunner m_jobs;
    std::int64_t m_query = -1;
    Pictures m_pictures;
};

} // namespace attnlab
