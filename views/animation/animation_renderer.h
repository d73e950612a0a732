#pragma once

#include "views/animation/animation_sweep.h"
#include "views/figures/figure_export.h"
#include "views/jobs/job_runner.h"
#include "views/plot/animation_frame.h"

#include <QElapsedTimer>
#include <QImage>
#include <QObject>
#include <QTimer>

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

enum class AnimationFormat { Gif, Mp4, Tex };

// Format from the file name's extension (.gif, .mp4, .tex); throws InputError otherwise.
AnimationFormat animationFormatOf(const QString& path);

// Where and how an animation is written.
struct AnimationOutput {
    QString path;
    double fps = 2;             // (0, 60]; a GIF at most 50 (its delays are whole centiseconds, at least 2)
    double holdLastSeconds = 0; // [0, 600]: how much longer the last frame stays
    bool freeAxes = false;      // each frame fits its own axes and colour scales
    ExportOptions options{96, QSizeF(900, 600)}; // the figure's size; raster frames at `dpi`
    std::vector<NamedPath> inputs;               // the files the frames are computed from, never overwritten
    std::string description;                     // what the animation shows, for the .tex snippet's comment
    // Paints the frames (framePainted) and writes nothing: the app's preview of the first and last frame.
    bool previewOnly = false;
};

// Throws InputError (one line) for a frame rate or hold outside its range, a target that cannot be
// written, or frames and file that would need more memory than one job may plan.
void requireAnimationOutput(const AnimationOutput& output, std::size_t frames);

// Renders the frames of `sweep` through `view`'s painting path (the one of the screen and every export)
// and writes the animation. Event-driven on the thread that owns the view, which keeps working: each
// frame's settings go to the view, whose jobs compute it on its workers; once it is idle the frame is
// painted and handed to the encoder, which runs on a worker of its own (JobRunner "animation"). Unless
// the axes are free, a first pass paints every frame to record the union of their axes and colour
// scales, and the second paints them held; a GIF's first pass also counts the colours of its palette.
// Nothing is written before every frame is encoded; then the file (for .tex the frames' PDFs, the
// snippet and a timeline) goes through writeWholeFiles: all or nothing, no partial file on failure or
// cancel.
class AnimationRenderer : public QObject {
    Q_OBJECT
  public:
    AnimationRenderer(std::unique_ptr<FigureView> view, AnimationSweep sweep, LabSettings base,
                      AnimationOutput output, QObject* parent = nullptr);
    ~AnimationRenderer() override;

    void start();
    // Stops at once; no file is written and the view's and encoder's jobs are dropped.
    void cancel();
    bool running() const { return m_running; }
    int stepsDone() const { return m_done; }
    int stepsTotal() const { return m_total; }

    // Frames a view waits per frame before the animation fails (a frame that never finishes).
    static constexpr int kFrameTimeoutMs = 600000;

  signals:
    // Frames painted so far (over both passes) and all there are, the final write counted as one.
    void progressChanged(int done, int total);
    // Frame `index` as painted in its last pass (for a preview).
    void framePainted(int index, const QImage& image);
    void finished(const QString& path);
    // One line; nothing was written.
    void failed(const QString& message);

  private:
    struct Encoder;
    void tick();
    void applyFrame();
    void paintFrame();
    void paintPass(const AnimationFrame& frame);
    void nextPass();
    void submitFinish();
    void fail(const QString& message);
    bool recording() const { return m_pass == 0 && m_passes == 2; }

    std::unique_ptr<FigureView> m_view;
    AnimationSweep m_sweep;
    LabSettings m_base;
    AnimationOutput m_output;
    AnimationFormat m_format;
    FrameHold m_hold;
    std::shared_ptr<Encoder> m_encoder;
    std::vector<WholeFile> m_texFiles;
    JobRunner m_jobs;
    QTimer m_timer;
    QElapsedTimer m_frameClock;
    int m_passes = 1;
    int m_pass = 0;
    std::size_t m_index = 0;
    int m_idlePasses = 0;
    int m_queued = 0; // frames handed to the encoder and not yet encoded
    int m_done = 0;
    int m_total = 0;
    bool m_running = false;
};

} // namespace attnlab
