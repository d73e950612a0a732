// The decoding step over cached keys and values (makeMaskedRowStep, core/decode/decode_step.h): the cache it
// keeps, the groups of query heads that read it together, the chunks those reads are cut into, and the
// merge of the chunks' partial softmaxes.
#include "core/decode/decode_step.h"

#include "core/decode/streamed_rows.h"
#include "core/jobs/parallel_tasks.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr double kLog2E = 1.4426950408889634;
// Chunks per thread the automatic split aims for: enough for threads that the machine slows unevenly to
// even out, each still hundreds of rows long.
constexpr std::int64_t kChunksPerThread = 8;
constexpr std::int64_t kMinChunkRows = 512;

// Query heads that read one key head, one value head and one list of cache rows.
struct HeadGroup {
    int first = 0; // query heads [first, first + count)
    int count = 0;
    int keyHead = 0;
    int valueHead = 0;
    std::vector<CacheSegment> rows;
};

// One chunk of a group's rows: segments [segment, segment + segments) of MaskedRowStep::m_segments.
struct ChunkTask {
    int group = 0;
    std::size_t segment = 0;
    int segments = 0;
    std::size_t partial = 0; // offset of its results in m_partials
};

// The ranges of `ranges` sorted and merged into disjoint ones.
std::vector<ColumnRange> unionOf(std::vector<ColumnRange> ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const ColumnRange& a, const ColumnRange& b) { return a.begin < b.begin; });
    std::vector<ColumnRange> merged;
    for (const ColumnRange& range : ranges) {
        if (range.size() <= 0) continue;
        if (!merged.empty() && range.begin <= merged.back().end)
            merged.back().end = std::max(merged.back().end, range.end);
        else
            merged.push_back(range);
    }
    return merged;
}

class MaskedRowStep : public DecodeStep {
  public:
    MaskedRowStep(const AttentionInputs& context, MaskedRowSpec spec, const DecodeOptions& options)
        : m_context(context), m_spec(std::move(spec)), m_threads(options.threads) {
        if (!m_spec.relativePositions.empty()) m_scoring.relativePositions = &m_spec.relativePositions;
        m_scoring.d = context.q->cols;
        m_scoring.softmax = m_spec.scoring.kind == MaskedScoring::Kind::Softmax;
        m_scoring.reluFactor = static_cast<float>(1.0 / m_spec.scoring.normalizer);
        m_queryScale = static_cast<float>(m_scoring.softmax ? m_spec.scoring.scale * kLog2E : 1.0);
        const std::int64_t last = context.v->rows - 1;
        std::vector<std::vector<ColumnRange>> columns(m_spec.patterns.size());
        std::vector<ColumnRange> all;
        for (std::size_t p = 0; p < columns.size(); ++p) {
            m_spec.patterns[p]->rowRanges(last, columns[p]);
            all.insert(all.end(), columns[p].begin(), columns[p].end());
        }
        m_cached = unionOf(std::move(all));
        fillCache(options.kvDtype);
        formGroups(columns);
        formChunks(options);
        m_queries.reserve(static_cast<std::size_t>(context.q->heads * m_keys.paddedCols()));
        std::fill(m_queries.data(), m_queries.data() + context.q->heads * m_keys.paddedCols(), 0.0f);
    }

    void run(float* out) override {
        const Tensor3& q = *m_context.q;
        const std::int64_t d = q.cols, padded = m_keys.paddedCols();
        for (int t = 0; t < q.heads; ++t) {
            const float* query = q.row(t, q.rows - 1);
            for (std::int64_t c = 0; c < d; ++c)
                m_queries.data()[t * padded + c] = query[c] * m_queryScale;
        }
        runTasks(static_cast<std::int64_t>(m_tasks.size()), m_threads, {},
                 [this](std::int64_t task) { runTask(static_cast<std::size_t>(task)); });
        const std::int64_t dv = m_context.v->cols;
        for (int t = 0; t < q.heads; ++t) {
            const std::size_t begin = m_headPartialStart[static_cast<std::size_t>(t)],
                              end = m_headPartialStart[static_cast<std::size_t>(t) + 1];
            mergePartials(m_headPartials.data() + begin, static_cast<int>(end - begin), dv, m_scoring.softmax,
                          out + t * dv);
        }
    }

  private:
    // The cached rows in order: keys (per query head with ownKeys, else per key/value head) and values.
    void fillCache(KvDtype dtype) {
        const Tensor3& keys = m_spec.ownKeys ? *m_spec.ownKeys : *m_context.k;
        const Tensor3& values = *m_context.v;
        std::int64_t rows = 0;
        for (const ColumnRange& range : m_cached)
            rows += range.size();
        m_keys.assign(dtype, keys.heads, rows, keys.cols);
        m_values.assign(dtype, values.heads, rows, values.cols);
        if (m_scoring.relativePositions) m_positions.reserve(static_cast<std::size_t>(rows));
        std::int64_t row = 0;
        for (const ColumnRange& range : m_cached)
            for (std::int64_t j = range.begin; j < range.end; ++j, ++row)
                if (m_scoring.relativePositions) m_positions.push_back(j);
        const int heads = std::max(keys.heads, values.heads);
        runTasks(heads, m_threads, {}, [&](std::int64_t head) {
            const int h = static_cast<int>(head);
            std::int64_t r = 0;
            for (const ColumnRange& range : m_cached)
                for (std::int64_t j = range.begin; j < range.end; ++j, ++r) {
                    if (h < keys.heads) m_keys.setRow(h, r, keys.row(h, j));
                    if (h < values.heads) m_values.setRow(h, r, values.row(h, j));
                }
        });
    }

    // Cache row of position j (j lies in the cached ranges).
    std::int64_t cacheRow(std::int64_t j) const {
        std::int64_t offset = 0;
        for (const ColumnRange& range : m_cached) {
            if (j < range.end) return offset + (j - range.begin);
            offset += range.size();
        }
        return offset;
    }

    // With one pattern and keys per key/value head, a key/value head's query heads form one group reading
    // every cached row; otherwise each query head is its own group, reading its pattern's rows.
    void formGroups(const std::vector<std::vector<ColumnRange>>& columns) {
        const int heads = m_context.q->heads, kvHeads = m_context.v->heads;
        if (columns.size() == 1 && !m_spec.ownKeys) {
            const int members = heads / kvHeads;
            for (int g = 0; g < kvHeads; ++g)
                m_groups.push_back({g * members, members, g, g, {{0, m_keys.rows()}}});
            return;
        }
        for (int t = 0; t < heads; ++t) {
            HeadGroup group{t, 1, m_spec.ownKeys ? t : m_context.kvHead(t), m_context.kvHead(t), {}};
            for (const ColumnRange& range : columns[columns.size() == 1 ? 0 : static_cast<std::size_t>(t)])
                if (range.size() > 0)
                    group.rows.push_back({cacheRow(range.begin), cacheRow(range.begin) + range.size()});
            m_groups.push_back(std::move(group));
        }
    }

    // Cuts every group's rows into chunks of at most chunkRows rows, and lays out their results.
    void formChunks(const DecodeOptions& options) {
        std::int64_t total = 0;
        for (const HeadGroup& group : m_groups)
            for (const CacheSegment& rows : group.rows)
                total += rows.size();
        const std::int64_t wanted = m_threads > 1 ? kChunksPerThread * m_threads : 1;
        const std::int64_t chunkRows = options.chunkKeys > 0
                                           ? options.chunkKeys
                                           : std::max(kMinChunkRows, (total + wanted - 1) / wanted);
        const std::int64_t stride = kPartialHeader + m_values.paddedCols();
        std::vector<std::vector<std::size_t>> headChunks(static_cast<std::size_t>(m_context.q->heads));
        std::size_t partials = 0;
        for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
            const HeadGroup& group = m_groups[static_cast<std::size_t>(g)];
            std::int64_t filled = chunkRows; // rows in the chunk being formed; chunkRows: start a new one
            for (const CacheSegment& rows : group.rows)
                for (std::int64_t begin = rows.begin; begin < rows.end;) {
                    if (filled == chunkRows) {
                        m_tasks.push_back({g, m_segments.size(), 0, partials});
                        for (int r = 0; r < group.count; ++r)
                            headChunks[static_cast<std::size_t>(group.first + r)].push_back(partials +
                                                                                            r * stride);
                        partials += static_cast<std::size_t>(group.count * stride);
                        filled = 0;
                    }
                    const std::int64_t end = std::min(rows.end, begin + chunkRows - filled);
                    m_segments.push_back({begin, end});
                    ++m_tasks.back().segments;
                    filled += end - begin;
                    begin = end;
                }
        }
        m_partials.reserve(partials);
        for (const auto& chunks : headChunks) {
            m_headPartialStart.push_back(m_headPartials.size());
            for (const std::size_t offset : chunks)
                m_headPartials.push_back(m_partials.data() + offset);
        }
        m_headPartialStart.push_back(m_headPartials.size());
    }

    void runTask(std::size_t index) {
        const ChunkTask& task = m_tasks[index];
        const HeadGroup& group = m_groups[static_cast<std::size_t>(task.group)];
        ChunkJob job;
        job.queries = m_queries.data() + group.first * m_keys.paddedCols();
        job.heads = group.count;
        job.keys = &m_keys;
        job.keyHead = group.keyHead;
        job.values = &m_values;
        job.valueHead = group.valueHead;
        job.segments = m_segments.data() + task.segment;
        job.segmentCount = task.segments;
        job.positions = m_positions.data();
        job.queryPosition = m_context.v->rows - 1;
        job.partials = m_partials.data() + task.partial;
        runChunk(job, m_scoring);
    }

    AttentionInputs m_context;
    MaskedRowSpec m_spec;
    int m_threads;
    RowScoring m_scoring;
    float m_queryScale = 1.0f;
    std::vector<ColumnRange> m_cached; // positions whose keys and values the cache holds, in order
    KvRows m_keys, m_values;
    std::vector<std::int64_t> m_positions; // position of each cache row (relative positions only)
    std::vector<HeadGroup> m_groups;
    std::vector<CacheSegment> m_segments;
    std::vector<ChunkTask> m_tasks;
    tile::AlignedBuffer m_queries;               // [h][keys' paddedCols]: the new token's queries, scaled
    tile::AlignedBuffer m_partials;              // every chunk's results
    std::vector<const float*> m_headPartials;    // per query head, its chunks' results, in order
    std::vector<std::size_t> m_headPartialStart; // query head t's are [start[t], start[t + 1])
};

} // namespace

std::unique_ptr<DecodeStep> makeMaskedRowStep(const AttentionInputs& context, MaskedRowSpec spec,
                                              const DecodeOptions& options) {
    return std::make_unique<MaskedRowStep>(context, std::move(spec), options);
}

} // namespace attnlab
