#include "views/lab_pattern_canvas.h"

#include "core/errors.h"
#include "core/input_files.h"
#include "core/input_generator.h"
#include "core/memory_budget.h"
#include "core/registry.h"

#include <QOpenGLFunctions>

#include <exception>
#include <string>
#include <utility>

namespace attnlab {

namespace {

// Patterns up to this n (from generated inputs) are built and drawn within the frame that asks for
// them; larger ones are built on a worker while the canvas keeps showing the last image.
constexpr std::int64_t kInlineMaxN = 4096;
// Data-dependent patterns need Q and K: beyond this many generated values they go to the worker too.
constexpr std::int64_t kInlineMaxInputValues = std::int64_t{1} << 22;

// The settings a pattern depends on; compare mode and figure options are left at their defaults.
LabSettings patternKey(const LabSettings& settings) {
    LabSettings key;
    key.variant = settings.variant;
    key.params = settings.params;
    key.n = settings.n;
    key.d = settings.d;
    key.heads = settings.heads;
    key.causal = settings.causal;
    key.head = settings.head;
    key.source = settings.source;
    key.inputSeed = settings.inputSeed;
    key.qPath = settings.qPath;
    key.kPath = settings.kPath;
    return key;
}

struct PatternInputs {
    Tensor3 q, k, v;
    ProblemShape shape;
    QString note;
};

// Q and K for data-dependent patterns, or the NPY files whose shape then replaces the sliders'.
std::optional<PatternInputs> loadInputs(const LabSettings& settings, const VariantInfo& variant) {
    ProblemShape shape = problemShape(settings, variant);
    if (settings.source == InputSource::NpyFiles) {
        InputFiles files = readInputFiles(settings.qPath, settings.kPath, "");
        shape.heads = files.q.heads;
        shape.n = files.q.rows;
        shape.d = shape.dv = files.q.cols;
        if (!files.hasKeys) files.k = files.q;
        const QString note = QStringLiteral("shape from the NPY files: h=%1, n=%2, d=%3").arg(shape.heads).arg(shape.n).arg(shape.d);
        Tensor3 values = files.q;
        return PatternInputs{std::move(files.q), std::move(files.k), std::move(values), shape, note};
    }
    if (!variant.dataDependentPattern) return std::nullopt;
    const double values = static_cast<double>(shape.heads) * static_cast<double>(shape.n) * static_cast<double>(shape.d);
    requireMemory(3.0 * values * sizeof(float), "the inputs of the lab's pattern");
    const auto kind = settings.source == InputSource::RandomGaussian ? GeneratedKind::Gaussian : GeneratedKind::LocalSimilarity;
    GeneratedInputs generated = generateInputs(kind, shape.heads, shape.n, shape.d, shape.dv, settings.inputSeed);
    return PatternInputs{std::move(generated.q), std::move(generated.k), std::move(generated.v), shape, {}};
}

LabPattern buildLabPattern(const LabSettings& settings, std::uint64_t generation) {
    LabPattern result;
    result.generation = generation;
    result.n = settings.n;
    try {
        const VariantInfo& variant = requireVariant(settings.variant);
        const std::optional<PatternInputs> inputs = loadInputs(settings, variant);
        ProblemShape shape = inputs ? inputs->shape : problemShape(settings, variant);
        result.n = shape.n;
        if (inputs) result.note = inputs->note;
        if (settings.head < 0 || settings.head >= shape.heads)
            throw InputError("head " + std::to_string(settings.head) + " is out of range [0, " + std::to_string(shape.heads - 1) + "]");
        const ParamSet params = prepareParams(variant, shape, settings.params);
        AttentionInputs data;
        if (inputs) data = AttentionInputs{&inputs->q, &inputs->k, &inputs->v};
        std::shared_ptr<const Pattern> pattern =
            buildPattern(variant, shape, params, variant.dataDependentPattern ? &data : nullptr, settings.head);
        result.nnz = pattern->nnz();
        result.pattern = std::move(pattern);
    } catch (const std::exception& error) { // InputError, or bad_alloc for a size the machine cannot hold
        result.error = QString::fromStdString(error.what());
    }
    return result;
}

DensityTile computeTile(const LabPattern& lab, const DensityTileRequest& request) {
    const DensityImage density = regionDensity(*lab.pattern, request.region, request.bins);
    return DensityTile{lab.generation, lab.n, request.region, densityColorImage(density).convertToFormat(QImage::Format_RGBA8888)};
}

bool runsInline(const LabSettings& key) {
    if (key.source == InputSource::NpyFiles || key.n > kInlineMaxN) return false;
    const VariantInfo* variant = findVariant(key.variant);
    return !variant || !variant->dataDependentPattern ||
           static_cast<std::int64_t>(key.heads) * key.n * key.d <= kInlineMaxInputValues;
}

} // namespace

void LabPatternCanvas::sync(const LabSettings& settings) {
    LabSettings key = patternKey(settings);
    if (m_hasKey && key == m_key) return;
    m_key = std::move(key);
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

void LabPatternCanvas::request(const PlaneRegion& region, QSize bins) {
    if (!m_pattern.pattern) return;
    const DensityTileRequest wanted{m_pattern.generation, region, bins};
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
           m_tile->image.size() != m_wanted->bins;
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
