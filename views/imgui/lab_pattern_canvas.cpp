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
        ViewPattern built = buildViewPattern(resolved, settings.head, inputs ? &*inputs : nullptr);
        result.n = resolved.shape.n;
        result.nnz = built.pattern->nnz();
        result.pattern = std::move(built.pattern);
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

bool LabPatternCanvas::pending() const {
    if (!patternCurrent()) return true;
    if (!m_pattern.pattern) return false;
    if (!m_wanted) return true;
    return !m_tile || m_tile->patternGeneration != m_wanted->patternGeneration || !(m_tile->region == m_wanted->region) ||
           m_tile->block != m_wanted->block;
}

unsigned LabPatternCanvas::texture(QOpenGLFunctions& gl) {
    if (!m_tile) return 0;
    if (!m_textureStale) return m_texture;
    if (m_texture == 0) gl.glGenTextures(1, &m_texture);
    gl.glBindTexture(GL_TEXTURE_2D, m_texture);
    // Nearest: when zoomed in, each bin is one matrix cell and must stay a crisp square.
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl.glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    gl.glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    const QImage& image = m_tile->image;
    gl.glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, image.width(), image.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE, image.constBits());
    gl.glBindTexture(GL_TEXTURE_2D, 0);
    m_textureStale = false;
    return m_texture;
}

void LabPatternCanvas::releaseTexture(QOpenGLFunctions& gl) {
    if (m_texture != 0) gl.glDeleteTextures(1, &m_texture);
    m_texture = 0;
    m_textureStale = true;
}

} // namespace attnlab
