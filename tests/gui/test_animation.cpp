// Animations (`attnlab figure --animate`, File → Export animation…): the written GIF, MP4 and Beamer
// files read back (giflib, libavformat and libavcodec, the snippet against the PDFs beside it), frames
// that differ, axes held over a sweep, the timing view playing its one measurement, bad input (one line,
// exit 2, no file), a failing write leaving nothing, and a long export cancelled in the app.

#include "gui/animation_run.h"
#include "gui/figure_command_fixture.h"
#include "gui/measure_clocks.h"

#include "views/animation/animation_renderer.h"
#include "views/figures/timing_view.h"
#include "views/plot/animation_frame.h"
#include "views/plot/plot_axes.h"
#include "views/shell/animation_dialog.h"
#include "views/shell/main_window.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>

#include <gif_lib.h>
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

#include <sys/resource.h>

#include <atomic>

namespace attnlab {
namespace {

struct GifContents {
    int width = 0, height = 0;
    bool loopsForever = false;
    std::vector<int> delays;   // centiseconds
    std::vector<QImage> shown; // each frame as a viewer shows it (sub-images composed, transparency kept)
};

// giflib's reading of the file: screen size, the NETSCAPE2.0 loop count, every frame composed.
GifContents readGif(const QString& path) {
    GifContents contents;
    int error = 0;
    GifFileType* gif = DGifOpenFileName(path.toLocal8Bit().constData(), &error);
    if (!gif) return contents;
    if (DGifSlurp(gif) == GIF_OK) {
        contents.width = gif->SWidth;
        contents.height = gif->SHeight;
        QImage canvas(gif->SWidth, gif->SHeight, QImage::Format_RGB32);
        canvas.fill(Qt::black);
        for (int k = 0; k < gif->ImageCount; ++k) {
            const SavedImage& image = gif->SavedImages[k];
            for (int e = 0; e + 1 < image.ExtensionBlockCount; ++e) {
                const ExtensionBlock& block = image.ExtensionBlocks[e];
                if (block.Function == APPLICATION_EXT_FUNC_CODE && block.ByteCount == 11 &&
                    std::memcmp(block.Bytes, "NETSCAPE2.0", 11) == 0) {
                    const ExtensionBlock& loop = image.ExtensionBlocks[e + 1];
                    contents.loopsForever =
                        loop.ByteCount == 3 && loop.Bytes[0] == 1 && loop.Bytes[1] == 0 && loop.Bytes[2] == 0;
                }
            }
            GraphicsControlBlock control{};
            DGifSavedExtensionToGCB(gif, k, &control);
            contents.delays.push_back(control.DelayTime);
            const ColorMapObject* map = image.ImageDesc.ColorMap ? image.ImageDesc.ColorMap : gif->SColorMap;
            const GifImageDesc& desc = image.ImageDesc;
            for (int y = 0; y < desc.Height; ++y)
                for (int x = 0; x < desc.Width; ++x) {
                    const int index = image.RasterBits[y * desc.Width + x];
                    if (index == control.TransparentColor) continue;
                    const GifColorType colour = map->Colors[index];
                    canvas.setPixel(desc.Left + x, desc.Top + y, qRgb(colour.Red, colour.Green, colour.Blue));
                }
            contents.shown.push_back(canvas.copy());
        }
    }
    DGifCloseFile(gif, &error);
    return contents;
}

struct Mp4Contents {
    bool opened = false;
    AVCodecID codec = AV_CODEC_ID_NONE;
    int width = 0, height = 0;
    int pixelFormat = -1;
    std::int64_t declaredFrames = 0;
    int packets = 0;
    double fps = 0;
    bool indexFirst = false;       // moov before mdat (faststart)
    std::vector<QByteArray> lumas; // each decoded frame's Y plane
};

// libavformat's and libavcodec's reading of the file: the stream, its frame count, every frame decoded.
Mp4Contents readMp4(const QString& path) {
    Mp4Contents contents;
    const QByteArray bytes = readAll(path);
    contents.indexFirst = bytes.indexOf("moov") >= 0 && bytes.indexOf("moov") < bytes.indexOf("mdat");
    AVFormatContext* format = nullptr;
    if (avformat_open_input(&format, path.toLocal8Bit().constData(), nullptr, nullptr) < 0) return contents;
    contents.opened = avformat_find_stream_info(format, nullptr) >= 0 && format->nb_streams == 1;
    const AVStream* stream = format->streams[0];
    const AVCodecParameters* parameters = stream->codecpar;
    contents.codec = parameters->codec_id;
    contents.width = parameters->width;
    contents.height = parameters->height;
    contents.pixelFormat = parameters->format;
    contents.declaredFrames = stream->nb_frames;
    contents.fps = av_q2d(stream->avg_frame_rate);
    AVCodecContext* decoder = avcodec_alloc_context3(avcodec_find_decoder(parameters->codec_id));
    avcodec_parameters_to_context(decoder, parameters);
    avcodec_open2(decoder, decoder->codec, nullptr);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    const auto drain = [&] {
        while (avcodec_receive_frame(decoder, frame) >= 0) {
            QByteArray luma;
            for (int y = 0; y < frame->height; ++y)
                luma.append(reinterpret_cast<const char*>(frame->data[0] + y * frame->linesize[0]),
                            frame->width);
            contents.lumas.push_back(luma);
        }
    };
    while (av_read_frame(format, packet) >= 0) {
        ++contents.packets;
        avcodec_send_packet(decoder, packet);
        av_packet_unref(packet);
        drain();
    }
    avcodec_send_packet(decoder, nullptr);
    drain();
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&format);
    return contents;
}

class AnimationCommandTest : public FigureCommandTest {
  protected:
    // Runs `attnlab figure ARGS` and expects exit 2, one line naming `words`, and no file at all.
    void expectRefused(const QStringList& args, const QString& words) {
        const ProcessRun result = run(QStringList{QStringLiteral("figure")} + args);
        ASSERT_TRUE(result.finished);
        EXPECT_EQ(result.exitCode, 2) << args.join(' ').toStdString() << "\n" << result.err.toStdString();
        EXPECT_TRUE(result.out.isEmpty());
        EXPECT_EQ(result.err.count('\n'), 1) << result.err.toStdString();
        EXPECT_TRUE(result.err.startsWith(QStringLiteral("attnlab: error: "))) << result.err.toStdString();
        EXPECT_TRUE(result.err.contains(words)) << result.err.toStdString();
        EXPECT_TRUE(files().isEmpty()) << files().join(' ').toStdString();
    }
};

TEST_F(AnimationCommandTest, ReceptiveFieldGifGrowsThroughTheLayersAndLoops) {
    const ProcessRun result =
        run({"figure",  "reach",     "--variant",  "longformer", "--set", "window=4",    "--n",
             "64",      "--animate", "layers=1:6", "--fps",      "4",     "--hold-last", "1.5",
             "--width", "640",       "--height",   "420",        "-o",    "reach.gif"});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(files(), QStringList{QStringLiteral("reach.gif")});
    const GifContents gif = readGif(path(QStringLiteral("reach.gif")));
    EXPECT_EQ(gif.width, 640);
    EXPECT_EQ(gif.height, 420);
    EXPECT_TRUE(gif.loopsForever);
    ASSERT_EQ(gif.shown.size(), 6u);
    // 4 frames per second: 25 cs each, the last 1.5 s longer.
    EXPECT_EQ(gif.delays, (std::vector<int>{25, 25, 25, 25, 25, 175}));
    for (std::size_t k = 1; k < gif.shown.size(); ++k)
        EXPECT_NE(gif.shown[k], gif.shown[k - 1]) << "frame " << k << " repeats the one before";
    // The background stays exactly white: the palette keeps the figure's frequent colours exact.
    EXPECT_EQ(gif.shown.back().pixel(2, gif.height - 2), qRgb(255, 255, 255));
    EXPECT_LT(readAll(path(QStringLiteral("reach.gif"))).size(), 1 << 20);
}

TEST_F(AnimationCommandTest, PatternMp4IsH264Yuv420pWithEvenSizeAndEveryFrame) {
    // 3 frames at 4 per second and the last held 1 s: 3 + 4 frames; an odd width is padded to even.
    const ProcessRun result =
        run({"figure", "pattern", "--variant", "strided", "--causal", "--animate", "n=32:128:*2", "--fps",
             "4", "--hold-last", "1", "--width", "641", "--height", "400", "-o", "thinning.mp4"});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(files(), QStringList{QStringLiteral("thinning.mp4")});
    const Mp4Contents mp4 = readMp4(path(QStringLiteral("thinning.mp4")));
    ASSERT_TRUE(mp4.opened);
    EXPECT_EQ(mp4.codec, AV_CODEC_ID_H264);
    EXPECT_EQ(mp4.pixelFormat, AV_PIX_FMT_YUV420P);
    EXPECT_EQ(mp4.width, 642);
    EXPECT_EQ(mp4.height, 400);
    EXPECT_EQ(mp4.declaredFrames, 7);
    EXPECT_EQ(mp4.packets, 7);
    EXPECT_DOUBLE_EQ(mp4.fps, 4.0);
    EXPECT_TRUE(mp4.indexFirst);
    ASSERT_EQ(mp4.lumas.size(), 7u);
    EXPECT_NE(mp4.lumas[0], mp4.lumas[1]);
    EXPECT_NE(mp4.lumas[1], mp4.lumas[2]);
}

TEST_F(AnimationCommandTest, BeamerSnippetNamesExactlyTheVectorFramesBesideIt) {
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("deck")));
    const ProcessRun result =
        run({"figure", "pattern", "--variant", "custom", "--set", "expr=band(4) | sink(2)", "--causal", "--n",
             "32", "--animate", "decode=4:31:9", "--hold-last", "2", "-o", "deck/decode.tex"});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QString snippet = QString::fromUtf8(readAll(path(QStringLiteral("deck/decode.tex"))));
    const QRegularExpressionMatch call =
        QRegularExpression(
            QStringLiteral(R"(\\animategraphics\[([^\]]*)\]\{([0-9.]+)\}\{([^}]*)\}\{(\d+)\}\{(\d+)\})"))
            .match(snippet);
    ASSERT_TRUE(call.hasMatch()) << snippet.toStdString();
    EXPECT_TRUE(call.captured(1).contains(QStringLiteral("timeline=deck/decode-timeline.txt")));
    EXPECT_EQ(call.captured(2), QStringLiteral("2"));
    EXPECT_EQ(call.captured(3), QStringLiteral("deck/decode-"));
    const int first = call.captured(4).toInt(), last = call.captured(5).toInt();
    EXPECT_EQ(first, 0);
    EXPECT_EQ(last, 3); // t = 4, 13, 22, 31
    QStringList expected{QStringLiteral("decode.tex"), QStringLiteral("decode-timeline.txt")};
    for (int k = first; k <= last; ++k) {
        const QByteArray pdf = readAll(path(QStringLiteral("deck/decode-%1.pdf").arg(k)));
        EXPECT_TRUE(pdf.startsWith("%PDF-")) << k;
        EXPECT_FALSE(pdf.contains("/Subtype /Image")) << "frame " << k << " is not all vector";
        if (k > first) {
            EXPECT_NE(pdf, readAll(path(QStringLiteral("deck/decode-%1.pdf").arg(k - 1))));
        }
        expected << QStringLiteral("decode-%1.pdf").arg(k);
    }
    QStringList written = QDir(path(QStringLiteral("deck"))).entryList(QDir::Files | QDir::Hidden);
    written.sort();
    expected.sort();
    EXPECT_EQ(written, expected);
    // The timeline: the rate set on the first frame, the last held 0.5 s + 2 s (0.4 frames per second).
    EXPECT_EQ(readAll(path(QStringLiteral("deck/decode-timeline.txt"))),
              QByteArray(":2:0\n::1\n::2\n:0.4:3\n"));
}

TEST_F(AnimationCommandTest, BadAnimationsAreOneLineWithNoFile) {
    const QStringList reach{"reach", "--n", "32", "-o", "r.gif"};
    expectRefused(reach + QStringList{"--animate", "layers=4:1"},
                  QStringLiteral("a descending range needs a negative step"));
    expectRefused(reach + QStringList{"--animate", "layers=1:4:-1"}, QStringLiteral("the range is empty"));
    expectRefused(reach + QStringList{"--animate", "layers=3:3"},
                  QStringLiteral("an animation needs at least two"));
    expectRefused({"pattern", "--n", "1024", "--animate", "query=0:1000", "-o", "p.gif"},
                  QStringLiteral("gives 1001 frames (at most 600)"));
    expectRefused(reach + QStringList{"--animate", "d=16:64"},
                  QStringLiteral("the reach view has no parameter 'd' to animate (it animates: n, layers"));
    expectRefused(reach + QStringList{"--animate", "layers=1:80"},
                  QStringLiteral("at layers = 65: layers must be 1 … 64"));
    expectRefused({"reach", "--n", "32", "--animate", "layers=1:4", "-o", "r.png"},
                  QStringLiteral("the extension must be .gif, .mp4 or .tex"));
    expectRefused({"reach", "--n", "32", "--animate", "layers=1:4", "-o", "r.gif", "-o", "r.mp4"},
                  QStringLiteral("writes one animation"));
    expectRefused(reach + QStringList{"--fps", "4"}, QStringLiteral("--fps is for animations"));
    expectRefused(reach + QStringList{"--animate", "layers=1:4", "--fps", "60"},
                  QStringLiteral("a GIF plays at most 50 frames per second"));
    expectRefused(reach + QStringList{"--animate", "layers=1:4", "--fps", "fast"},
                  QStringLiteral("--fps expects a number"));
    expectRefused({"pattern", "--n", "32", "--animate", "decode=0:31", "-o", "p.mp4"},
                  QStringLiteral("add --causal"));
    expectRefused({"pattern", "--variant", "custom", "--set", "expr=neighborhood(3)", "--grid", "8,8", "--animate", "n=16:64:*2", "-o", "p.gif"},
                  QStringLiteral("n is the grid's cell count here (8,8): animate another parameter"));
    expectRefused(
        {"pattern", "--n", "32", "--variant", "strided", "--animate", "stride=0:8:4", "-o", "p.mp4"},
        QStringLiteral("at stride = 0: strided parameter 'stride' = 0 is out of range"));
}

TEST_F(AnimationCommandTest, AWriteThatFailsLeavesNoPartialFile) {
    // The process may write at most 4 KiB per file: the GIF's write fails (SIGXFSZ or EFBIG) at the end.
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configDir());
    process.setProcessEnvironment(environment);
    process.setWorkingDirectory(dir.path());
    process.setChildProcessModifier([] {
        const rlimit limit{4096, 4096};
        setrlimit(RLIMIT_FSIZE, &limit);
    });
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE),
                  {"figure", "reach", "--n", "64", "--animate", "layers=1:4", "-o", "big.gif"});
    ASSERT_TRUE(process.waitForFinished(kRunTimeoutMs));
    EXPECT_NE(process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, 0);
    EXPECT_TRUE(files().isEmpty()) << files().join(' ').toStdString();
}

// A recorded axis range is held: each later frame paints at least the union of all frames' ranges.
TEST(FrameHold, AxesAndScalesTakeTheUnionOfTheSweep) {
    FrameHold hold;
    Axis first, second;
    for (const auto& [low, high, layers] : {std::tuple{0.0, 10.0, 2}, std::tuple{-5.0, 3.0, 8}}) {
        hold.startFrame();
        first.min = low, first.max = high, second.min = 1, second.max = high * 2;
        hold.apply(first);
        hold.apply(second);
        hold.scaleMaximum("layers", layers);
    }
    hold.setHolding(true);
    hold.startFrame();
    Axis shown;
    shown.min = 2, shown.max = 4;
    hold.apply(shown);
    EXPECT_EQ(shown.min, -5.0);
    EXPECT_EQ(shown.max, 10.0);
    Axis next;
    next.min = 1, next.max = 30;
    hold.apply(next);
    EXPECT_EQ(next.max, 30.0) << "a range wider than the held one is not cut";
    EXPECT_EQ(hold.scaleMaximum("layers", 3), 8);
    EXPECT_EQ(heldScaleMaximum("layers", 3), 3) << "outside an animation's frame nothing is held";
}

// A clock that counts its readings: the timing view reads it for every measured repetition.
class CountingClock final : public MeasureClock {
  public:
    double wallSeconds() const override {
        ++readings;
        return systemMeasureClock().wallSeconds();
    }
    double teamCpuSeconds(int threads) const override { return systemMeasureClock().teamCpuSeconds(threads); }
    mutable std::atomic<int> readings{0};
};

TEST(TimingAnimation, PlaysTheMeasuredSweepPointByPointWithoutMeasuringAgain) {
    QTemporaryDir dir;
    LabSettings settings;
    settings.variant = "full";
    settings.d = 16;
    const AnimationSweep sweep = parseAnimationSweep(QStringLiteral("timing"), settings, "n=64:256:*2");
    auto view = std::make_unique<TimingView>();
    const auto clock = std::make_shared<CountingClock>();
    view->setMeasureClock(clock);
    AnimationOutput output;
    output.path = dir.filePath(QStringLiteral("timing.gif"));
    output.options.size = QSizeF(600, 400);
    AnimationRenderer renderer(std::move(view), sweep, settings, output);
    int afterFirstFrame = -1;
    QObject::connect(&renderer, &AnimationRenderer::progressChanged, [&](int done, int) {
        if (done == 1) afterFirstFrame = clock->readings;
    });
    const guitest::AnimationRun run = guitest::runToTheEnd(renderer, sweep.values.size(), kRunTimeoutMs);
    const std::vector<QImage>& frames = run.frames;
    ASSERT_TRUE(run.finished);
    EXPECT_GT(afterFirstFrame, 0) << "the first frame waited for the measurement";
    EXPECT_EQ(clock->readings, afterFirstFrame) << "a later frame measured again";
    EXPECT_NE(frames[0], frames[1]);
    EXPECT_NE(frames[1], frames[2]);
    EXPECT_EQ(readGif(output.path).shown.size(), 3u);
}

TEST(AnimationDialogTest, ALongExportIsCancelledWithNoFileLeftWhileTheWindowWorks) {
    QTemporaryDir dir;
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(window.selectView(QStringLiteral("reach")));
    LabSettings settings = window.labSettings();
    settings.variant = "longformer";
    settings.params = {{"window", "4"}};
    settings.compareVariants.clear();
    window.applySettings(settings);
    QAction* action = window.findChild<QAction*>(QStringLiteral("exportAnimation"));
    ASSERT_NE(action, nullptr);
    action->trigger();
    auto* dialog = window.findChild<AnimationDialog*>(QStringLiteral("animationDialog"));
    ASSERT_NE(dialog, nullptr);
    dialog->paramBox()->setCurrentText(QStringLiteral("n"));
    dialog->rangeEdit()->setText(QStringLiteral("16:1024:4")); // 253 frames, each painted twice
    const QString target = dir.filePath(QStringLiteral("long.gif"));
    dialog->pathEdit()->setText(target);
    QTest::mouseClick(dialog->exportButton(), Qt::LeftButton);
    ASSERT_NE(dialog->renderer(), nullptr);
    ASSERT_TRUE(dialog->renderer()->running()) << dialog->statusLabel()->text().toStdString();
    // The window keeps working: its own views still take settings and draw while frames render.
    QElapsedTimer waited;
    waited.start();
    while (dialog->renderer()->stepsDone() < 3 && waited.elapsed() < kRunTimeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_GE(dialog->renderer()->stepsDone(), 3);
    settings.layers = 3;
    window.applySettings(settings);
    EXPECT_TRUE(window.waitUntilIdle(kRunTimeoutMs));
    EXPECT_TRUE(dialog->renderer()->running());
    QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
    EXPECT_FALSE(dialog->renderer()->running());
    QTest::qWait(200);
    EXPECT_EQ(dialog->statusLabel()->text(), QStringLiteral("cancelled: no file written"));
    EXPECT_TRUE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).isEmpty());
}

TEST(AnimationDialogTest, PreviewShowsTheFirstAndLastFrame) {
    QTemporaryDir dir;
    LabSettings settings;
    settings.variant = "longformer";
    settings.params = {{"window", "2"}};
    settings.n = 48;
    AnimationDialog dialog(QStringLiteral("reach"), settings);
    dialog.paramBox()->setCurrentText(QStringLiteral("layers"));
    dialog.rangeEdit()->setText(QStringLiteral("1:5"));
    bool done = false;
    QObject::connect(&dialog, &AnimationDialog::previewFinished, [&] { done = true; });
    QTest::mouseClick(dialog.previewButton(), Qt::LeftButton);
    QElapsedTimer waited;
    waited.start();
    while (!done && waited.elapsed() < kRunTimeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_TRUE(done) << dialog.statusLabel()->text().toStdString();
    ASSERT_FALSE(dialog.previewImage(0).isNull());
    ASSERT_FALSE(dialog.previewImage(1).isNull());
    EXPECT_NE(dialog.previewImage(0), dialog.previewImage(1));
    dialog.rangeEdit()->setText(QStringLiteral("5:1"));
    QTest::mouseClick(dialog.exportButton(), Qt::LeftButton);
    EXPECT_TRUE(dialog.statusLabel()->text().contains(QStringLiteral("descending range")));
}

} // namespace
} // namespace attnlab
