#include "views/figures/grid_query.h"

#include <algorithm>

namespace attnlab {

std::shared_ptr<const GridPicture> GridQuery::picture(int index) const {
    if (index < 0 || index >= static_cast<int>(m_pictures.size())) return nullptr;
    return m_pictures[static_cast<std::size_t>(index)];
}

void GridQuery::reset(std::int64_t query, Pictures pictures) {
    m_jobs.bumpGeneration();
    m_query = query;
    m_pictures = std::move(pictures);
}

bool GridQuery::move(std::int64_t query, std::int64_t cells, PictureBuilder build, std::function<void()> arrived) {
    query = std::clamp<std::int64_t>(query, 0, cells - 1);
    if (query == m_query) return false;
    m_query = query;
    m_jobs.bumpGeneration();
    m_jobs.submit<Pictures>([build = std::move(build), query](const CancelCheck&) { return build(query); },
                            [this, arrived = std::move(arrived)](const Pictures& pictures) {
                                m_pictures = pictures;
                                arrived();
                            });
    return true;
}

} // namespace attnlab
