#include "views/animation/animation_renderer.h"

#include "views/animation/beamer_frames.h"
#include "views/animation/gif_writer.h"
#include "views/animation/mp4_writer.h"

#include "core/errors.h"
#include "core/io/output_file.h"
#include "core/jobs/memory_budget.h"

#include <QFileInfo>

#include <cmath>

namespace attnlab {

namespace {

constexpr double kLogicalDpi = 96.0;
// Frames painted ahead of the encoder at most (each a full RGB frame in memory).
constexpr int kMaxQueued = 3;
// The view counts as done once it has been idle for this many ticks in a row (more than one batch of
// its queued repaints, as in waitUntilIdle).
constexpr int kIdleTicks = 6;
constexpr int kTickMs = 10;
// Bytes per pixel of a frame a file may take at worst: GIF's LZW on noise, H.264 at its quality, a PDF
// whose pattern is a lossless image.
constexpr double kGifBytesPerPixel = 1.2, kMp4BytesPerPixel = 1.0, kPdfBytesPerPixel = 4.0;
// What the H.264 encoder keeps per pixel of the frame size (its lookahead of frames).
constexpr double kEncoderBytesPerPixel = 64.0;

RgbFrame rgbFrame(const QImage& painted) {
    const QImage image = painted.convertToFormat(QImage::Format_RGB32);
    RgbFrame frame{image.width(), image.height(), {}};
    frame.pixels.resize(static_cast<std::size_t>(image.width()) * static_cast<std::size_t>(image.height()));
    for (int y = 0; y < image.height(); ++y) {
        const auto* line = reinterpret_cast<const std::uint32_t*>(image.constScanLine(y));
        std::copy(line, line + image.width(),
                  frame.pixels.begin() + static_cast<std::ptrdiff_t>(y) * image.width());
    }
    return frame;
}

double framePixels(const AnimationOutput& output) {
    const double scale = output.options.dpi / kLogicalDpi;
    return std::ceil(output.options.size.width() * scale) * std::ceil(output.options.size.height() * scale);
}

} // namespace

AnimationFormat animationFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("gif")) return AnimationFormat::Gif;
    if (suffix == QLatin1String("mp4")) return AnimationFormat::Mp4;
    if (suffix == QLatin1String("tex")) return AnimationFormat::Tex;
    throw InputError("cannot write the animation '" + path.toStdString() +
                     "': the extension must be .gif, .mp4 or .tex");
}

void requireAnimationOutput(const AnimationOutput& output, std::size_t frames) {
    const AnimationFormat format = animationFormatOf(output.path);
    if (!(output.fps > 0 && output.fps <= 60)) throw InputError("--fps must be above 0 and at most 60");
    if (format == AnimationFormat::Gif && output.fps > 50)
        throw InputError(
            "--fps: a GIF plays at most 50 frames per second (its delays are whole hundredths of a second)");
    if (!(output.holdLastSeconds >= 0 && output.holdLastSeconds <= 600))
        throw InputError("--hold-last must be 0 ... 600 seconds");
    if (!(output.options.dpi >= 10 && output.options.dpi <= 2400))
        throw InputError("cannot export '" + output.path.toStdString() + "': dpi must be in [10, 2400]");
    const std::string path = output.path.toStdString();
    requireReplaceableTarget(path);
    if (format == AnimationFormat::Tex) {
        for (std::size_t k = 0; k < frames; ++k)
            requireReplaceableTarget(beamerFramePath(path, k));
        requireReplaceableTarget(beamerTimelinePath(path));
    }
    const double pixels = framePixels(output);
    const double frameBytes = 4.0 * pixels * (kMaxQueued + 2);
    const double count = static_cast<double>(frames) + std::ceil(output.holdLastSeconds * output.fps);
    double bytes = frameBytes;
    if (format == AnimationFormat::Gif) bytes += 2.0 * pixels + kGifBytesPerPixel * pixels * count;
    if (format == AnimationFormat::Mp4)
        bytes += kEncoderBytesPerPixel * pixels + kMp4BytesPerPixel * pixels * count;
    if (format == AnimationFormat::Tex) bytes += kPdfBytesPerPixel * pixels * static_cast<double>(frames);
    requireMemory(bytes, "the animation's frames and file");
}

struct AnimationRenderer::Encoder {
    std::string path;
    AnimationFormat format;
    double fps;
    std::vector<int> delays; // GIF: centiseconds per frame
    std::size_t holdFrames;  // MP4: copies of the last frame that hold it
    GifPalette palette;
    std::unique_ptr<GifWriter> gif;
    std::unique_ptr<Mp4Writer> mp4;
    RgbFrame last;
    std::size_t encoded = 0;

    void add(RgbFrame frame) {
        if (format == AnimationFormat::Gif) {
            if (!gif) gif = std::make_unique<GifWriter>(path, frame.width, frame.height, palette.colours());
            gif->addFrame(frame, delays[encoded]);
        } else {
            if (!mp4) mp4 = std::make_unique<Mp4Writer>(path, frame.width, frame.height, fps);
            mp4->addFrame(frame);
        }
        ++encoded;
        last = std::move(frame);
    }

    std::string finish() {
        if (format == AnimationFormat::Gif) return gif->finish();
        for (std::size_t k = 0; k < holdFrames; ++k)
            mp4->addFrame(last);
        return mp4->finish();
    }
};

AnimationRenderer::AnimationRenderer(std::unique_ptr<FigureView> view, AnimationSweep sweep, LabSettings base,
                                     AnimationOutput output, QObject* parent)
    : QObject(parent), m_view(std::move(view)), m_sweep(std::move(sweep)), m_base(std::move(base)),
      m_output(std::move(output)),
      m_format(m_output.previewOnly ? AnimationFormat::Mp4 : animationFormatOf(m_output.path)),
      m_jobs(tr("animation")) {
    m_timer.setInterval(kTickMs);
    connect(&m_timer, &QTimer::timeout, this, &AnimationRenderer::tick);
    connect(&m_jobs, &JobRunner::failed, this, [this](const QString& message) { fail(message); });
}

AnimationRenderer::~AnimationRenderer() {
    m_jobs.bumpGeneration();
}

void AnimationRenderer::start() {
    const std::size_t frames = m_sweep.values.size();
    m_passes = !m_output.freeAxes || m_format == AnimationFormat::Gif ? 2 : 1;
    m_total = static_cast<int>(frames) * m_passes + 1;
    m_done = 0;
    m_pass = 0;
    m_index = 0;
    m_hold = FrameHold();
    m_texFiles.clear();
    m_encoder = std::make_shared<Encoder>();
    m_encoder->path = m_output.path.toStdString();
    m_encoder->format = m_format;
    m_encoder->fps = m_output.fps;
    m_encoder->delays = gifDelays(frames, m_output.fps, m_output.holdLastSeconds);
    m_encoder->holdFrames = static_cast<std::size_t>(std::lround(m_output.holdLastSeconds * m_output.fps));
    m_view->setAttribute(Qt::WA_DontShowOnScreen);
    m_view->resize(m_output.options.size.toSize());
    m_view->show();
    m_running = true;
    applyFrame();
    m_timer.start();
    emit progressChanged(m_done, m_total);
}

void AnimationRenderer::cancel() {
    if (!m_running) return;
    m_running = false;
    m_timer.stop();
    m_jobs.bumpGeneration();
    m_view->cancelByUser();
    m_encoder.reset();
    m_texFiles.clear();
}

void AnimationRenderer::fail(const QString& message) {
    if (!m_running) return;
    cancel();
    emit failed(message);
}

void AnimationRenderer::applyFrame() {
    const AnimationFrameState state = animationFrameState(m_sweep, m_base, m_index);
    m_view->setSettings(state.settings);
    m_view->setFrameMark(state.mark);
    m_idlePasses = 0;
    m_frameClock.start();
}

void AnimationRenderer::tick() {
    if (!m_running) return;
    const QString at =
        QStringLiteral("--animate %1 = %2")
            .arg(QString::fromStdString(m_sweep.param), QString::number(m_sweep.values[m_index], 'g', 6));
    if (!m_view->jobError().isEmpty())
        return fail(at + tr(": the %1 view could not be computed: %2").arg(m_sweep.view, m_view->jobError()));
    if (m_frameClock.elapsed() > kFrameTimeoutMs)
        return fail(
            at +
            tr(": the %1 view did not finish within %2 s").arg(m_sweep.view).arg(kFrameTimeoutMs / 1000));
    m_idlePasses = m_view->busy() ? 0 : m_idlePasses + 1;
    if (m_idlePasses < kIdleTicks || m_queued >= kMaxQueued) return;
    paintFrame();
    if (!m_running) return;
    emit progressChanged(++m_done, m_total);
    if (++m_index < m_sweep.values.size()) return applyFrame();
    nextPass();
}

void AnimationRenderer::paintFrame() {
    const AnimationFrame frame{animationFrameLabel(m_sweep, m_index), static_cast<int>(m_index),
                               static_cast<int>(m_sweep.values.size()),
                               m_output.freeAxes ? nullptr : &m_hold};
    m_hold.startFrame();
    const AnimationFrameScope scope(&frame);
    if (m_format == AnimationFormat::Tex && !recording()) {
        const QString path = QString::fromStdString(beamerFramePath(m_output.path.toStdString(), m_index));
        std::vector<WholeFile> pdf = renderExport(*m_view, path, m_output.options);
        for (WholeFile& file : pdf)
            m_texFiles.push_back(std::move(file));
        return;
    }
    const QImage image = renderFigure(*m_view, m_output.options.size, m_output.options.dpi);
    if (image.isNull())
        return fail(tr("cannot write '%1': the frames are too large an image (lower the dpi or the size)")
                        .arg(m_output.path));
    if (!recording()) emit framePainted(static_cast<int>(m_index), image);
    if (m_output.previewOnly || m_format == AnimationFormat::Tex ||
        (recording() && m_format != AnimationFormat::Gif))
        return;
    ++m_queued;
    const bool count = recording();
    m_jobs.submit<bool>(
        [encoder = m_encoder, frame = rgbFrame(image), count](const CancelCheck&) mutable {
            if (count)
                encoder->palette.count(frame);
            else
                encoder->add(std::move(frame));
            return true;
        },
        [this](const bool&) { --m_queued; });
}

void AnimationRenderer::nextPass() {
    if (++m_pass < m_passes) {
        m_hold.setHolding(true);
        m_index = 0;
        return applyFrame();
    }
    m_timer.stop();
    if (!m_output.previewOnly) return submitFinish();
    m_running = false;
    emit progressChanged(++m_done, m_total);
    emit finished(QString());
}

void AnimationRenderer::submitFinish() {
    const std::vector<NamedPath> inputs = m_output.inputs;
    // The file is written on this thread once the encoder is done, so that a cancel up to then leaves none.
    auto write = [this, inputs](const std::vector<WholeFile>& files) {
        try {
            writeWholeFiles(files, inputs);
        } catch (const InputError& error) {
            return fail(QString::fromUtf8(error.what()));
        }
        m_running = false;
        emit progressChanged(++m_done, m_total);
        emit finished(m_output.path);
    };
    if (m_format == AnimationFormat::Tex) {
        BeamerAnimation animation{m_output.path.toStdString(), m_sweep.values.size(), m_output.fps,
                                  m_output.holdLastSeconds, m_output.description};
        std::vector<WholeFile> files = m_texFiles;
        files.push_back({"-o", animation.texPath, beamerSnippet(animation)});
        if (m_output.holdLastSeconds > 0)
            files.push_back({"-o", beamerTimelinePath(animation.texPath), beamerTimeline(animation)});
        return write(files);
    }
    m_jobs.submit<std::string>([encoder = m_encoder](const CancelCheck&) { return encoder->finish(); },
                               [this, write](const std::string& bytes) {
                                   write({{"-o", m_output.path.toStdString(), bytes}});
                               });
}

} // namespace attnlab
