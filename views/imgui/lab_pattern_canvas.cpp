#include "views/imgui/lab_pattern_canvas.h"

#include "views/figures/view_inputs.h"

#include "core/registry.h"

#include <QOpenGLFunctions>

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace attnlab {

namespace {

// Patterns up to this n (from generated inputs) are built and drawn within the frame that asks for
// them; larger ones are built on a worker while the canvas keeps showing the last image.
constexpr std::int64_t kInlineMaxN = 4096;
// Data-dependent patterns need Q and K: beyond this many generated values they go to the worker too.
constexpr std::int64_t kInlineMaxInputValues = std::int64_t{1} << 22;

LabPattern buildLabPattern(const LabSettings& settings, std::uint64_t generation) {
    LabPattern result;
    result.generation = generation;
    result.n = settings.n;
    try {
        const VariantInfo& variant = requireVariant(settings.variant);
        // Q and K only where they matter: the files' shape replaces the sliders', lsh hashes them.
        std::optional<ProblemInputs> inputs;
        if (settings.source == InputSource::NpyFiles || variant.dataDependentPattern) inputs = loadInputs(settings, variant);
        if (inputs) result.note = inputs->note;
        const ResolvedVariant resolved = resolveViewVariant(settings, variant, settings.params, inputs ? &*inputs : nullptr);
        // On a grid the pattern comes by component: the grid panel colours each cell by the term allowing it.
        TokenGridPtr grid = settingsGrid(settings);
        if (grid && grid->cells() != resolved.shape.n) grid.reset();
        ViewPattern built = buildViewPattern(resolved, settings.head, inputs ? &*inputs : nullptr, grid != nullptr);
        result.n = resolved.shape.n;
        if (built.components) {
            std::shared_ptr<const PatternComponents> components = std::move(built.components);
            result.pattern = std::shared_ptr<const Pattern>(components, &components->pattern());
            result.legend = componentLegendOf(*components, componentTexts(resolved));
            result.components = std::move(components);
            result.grid = std::move(grid);
        } else {
            result.pattern = std::move(built.pattern);
        }
        result.nnz = result.pattern->nnz();
    } catch (const std::exception& error) { // InputError, or bad_alloc for a size the machine cannot hold
        result.error = QString::fromStdString(error.what());
    }
    return result;
}

DensityTile computeTile(const LabPattern& lab, const DensityTileRequest& request) {
    const DensityImage density = regionDensity(*lab.pattern, request.region, request.block);
    return DensityTile{lab.generation, lab.n, request.region, blocksRegion(request.region, density, request.block), request.block,
                       densityColorImage(density).convertToFormat(QImage::Format_RGBA8888)};
}

LabGridPicture computeGridPicture(const LabPattern& lab, std::int64_t query) {
    LabGridPicture built{lab.generation, buildGridPicture(*lab.pattern, lab.components.get(), std::nullopt, *lab.grid, query), QImage()};
    built.image = built.picture.image.convertToFormat(QImage::Format_RGBA8888);
    return built;
}

bool runsInline(const LabSettings& key) {
    if (key.source == InputSource::NpyFiles || key.n > kInlineMaxN) return false;
    const VariantInfo* variant = findVariant(key.variant);
    return !variant || !variant->dataDependentPattern ||
           static_cast<std::int64_t>(key.heads) * key.n * key.d <= kInlineMaxInputValues;
}

} // namespace

void LabPatternCanvas::sync(const LabSettings& settings) {
    if (m_hasKey && sameFields(settings, m_key, SettingsUse::LabPattern)) return;
    m_key = settings;
    m_hasKey = true;
    const std::uint64_t generation = ++m_generation;
    m_patternRunner.bumpGeneration();
    if (runsInline(m_key)) {
        adoptPattern(buildLabPattern(m_key, generation));
        return;
    }
    m_patternRunner.submit<LabPattern>([key = m_key, generation](const CancelCheck&) { return buildLabPattern(key, generation); },
                                       [this](const LabPattern& built) { adoptPattern(built); });
}

void LabPatternCanvas::adoptPattern(const LabPattern& pattern) {
    m_pattern = pattern;
    m_wanted.reset();
}

void LabPatternCanvas::request(const PlaneRegion& region, int pixels) {
    if (!m_pattern.pattern) return;
    const std::int64_t block = densityBlock(std::max(region.col1 - region.col0, region.row1 - region.row0), std::max(1, pixels));
    const DensityTileRequest wanted{m_pattern.generation, region, block};
    if (m_wanted == wanted) return;
    m_wanted = wanted;
    if (m_pattern.n <= kInlineMaxN) {
        m_submitted = wanted;
        adoptTile(computeTile(m_pattern, wanted));
        return;
    }
    submitWantedTile();
}

// One tile job at a time: while it runs, newer requests only replace m_wanted, and the latest one is
// submitted when the running job delivers.
void LabPatternCanvas::submitWantedTile() {
    if (!m_wanted || m_tileRunner.busy() || m_submitted == m_wanted) return;
    m_submitted = m_wanted;
    m_tileRunner.submit<DensityTile>([lab = m_pattern, request = *m_wanted](const CancelCheck&) { return computeTile(lab, request); },
                                     [this](const DensityTile& tile) {
                                         adoptTile(tile);
                                         QMetaObject::invokeMethod(&m_tileRunner, [this] { submitWantedTile(); }, Qt::QueuedConnection);
                                     });
}

void LabPatternCanvas::adoptTile(DensityTile tile) {
    m_tile = std::move(tile);
    m_textureStale = true;
}

void LabPatternCanvas::requestGridPicture(std::int64_t query) {
    if (!m_pattern.pattern || !m_pattern.grid) return;
    const std::pair wanted{m_pattern.generation, query};
    if (m_wantedPicture == wanted) return;
    m_wantedPicture = wanted;
    m_gridRunner.bumpGeneration();
    const auto adopt = [this](LabGridPicture picture) {
        m_gridPicture = std::move(picture);
        m_gridTextureStale = true;
    };
    if (m_pattern.n <= kInlineMaxN) {
        adopt(computeGridPicture(m_pattern, query));
        return;
    }
    m_gridRunner.submit<LabGridPicture>([lab = m_pattern, query](const CancelCheck&) { return computeGridPicture(lab, query); }, adopt);
}

bool LabPatternCanvas::gridPicturePending() const {
    if (!m_pattern.grid) return false;
    return !m_wantedPicture || !m_gridPicture || m_gridPicture->patternGeneration != m_wantedPicture->first ||
           m_gridPicture->picture.query != m_wantedPicture->second;
}

bool LabPatternCanvas::pending() const {
    if (!patternCurrent()) return true;
    if (!m_pattern.pattern) return false;
    if (!m_wanted) return true;
    return !m_tile || m_tile->patternGeneration != m_wanted->patternGeneration || !(m_tile->region == m_wanted->region) ||
           m_tile->block != m_wanted->block;
}

namespace {

// Uploads `image` (Format_RGBA8888) into `texture`, made when 0; nearest filtering: when zoomed in, each
// bin is one matrix cell (each pixel one grid cell) and must stay a crisp square.
void uploadTexture(QOpenGLFunctions& gl, unsigned& texture, const QImage& image) {
    if (texture == 0) gl.glGenTextures(1, &texture);
    gl.glBindTexture(GL_TEXTURE_2D, texture);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    gl.glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    gl.glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, image.width(), image.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE, image.constBits());
    gl.glBindTexture(GL_TEXTURE_2D, 0);
}

} // namespace

unsigned LabPatternCanvas::texture(QOpenGLFunctions& gl) {
    if (!m_tile) return 0;
    if (!m_textureStale) return m_texture;
    uploadTexture(gl, m_texture, m_tile->image);
    m_textureStale = false;
    return m_texture;
}

unsigned LabPatternCanvas::gridTexture(QOpenGLFunctions& gl) {
    if (!m_gridPicture) return 0;
    if (!m_gridTextureStale) return m_gridTexture;
    uploadTexture(gl, m_gridTexture, m_gridPicture->image);
    m_gridTextureStale = false;
    return m_gridTexture;
}

void LabPatternCanvas::releaseTexture(QOpenGLFunctions& gl) {
    for (unsigned* texture : {&m_texture, &m_gridTexture})
        if (*texture != 0) gl.glDeleteTextures(1, texture);
    m_texture = m_gridTexture = 0;
    m_textureStale = m_gridTextureStale = true;
}

} // namespace attnlab
