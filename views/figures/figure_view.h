#pragma once

#include "core/analysis/lab_settings.h"
#include "views/jobs/job_runner.h"

#include <QString>
#include <QTransform>
#include <QWidget>

#include <cstdint>
#include <optional>

class QPainter;

namespace attnlab {

// What a frame of an animation shows beyond its settings (views/animation): the decoding step, i.e. the
// new token's position (pattern and inference views), the query row marked (pattern view) and the largest
// n of the measured sweep shown (timing view). Unset members mark nothing.
struct FrameMark {
    std::optional<std::int64_t> decodeStep;
    std::optional<std::int64_t> queryRow;
    std::optional<std::int64_t> timingUpTo;
    bool operator==(const FrameMark&) const = default;
};

// Base of every figure (pattern, reach, timing, flops, accuracy). paintFigure() is the single painting
// code path: paintEvent() calls it for the screen, and export renders it into QImage, QSvgGenerator
// and QPdfWriter. Views never run kernels on the UI thread: they start background jobs and repaint
// when an immutable result arrives. Only a visible view works: a settings change that matters to a
// hidden view marks it stale, and its work starts when it is shown. A job that throws is shown on the
// view (a red line at its bottom) and in the status bar.
class FigureView : public QWidget {
    Q_OBJECT
public:
    explicit FigureView(QWidget* parent = nullptr) : QWidget(parent) {}

    virtual QString viewName() const = 0; // "pattern", "reach", "timing", "flops", "accuracy"
    virtual QString title() const = 0;
    // Paints title, axes, legend and caption into `rect` (logical pixels at 96 dpi) through drawFigure:
    // at font scale S (LabSettings::fontScale) the figure is laid out in a rect S times smaller and
    // drawn S times larger, text, lines and markers alike, with small print raised to the body text's
    // size above S = 1 (figure_text.h).
    void paintFigure(QPainter& painter, const QRectF& rect) const;
    // The figure's data as CSV text with a header row.
    virtual QString csvData() const = 0;
    // True while background work for the current settings is still running.
    virtual bool busy() const { return false; }
    // Takes the new settings; starts the view's work if they change what it computes and it is visible.
    void setSettings(const LabSettings& settings);
    // Settings changed while hidden: the view shows an older result until it is shown and recomputed.
    bool stale() const { return m_stale; }
    // The last error of the view's jobs for the current settings (empty when none).
    const QString& jobError() const { return m_jobError; }
    // The user's Cancel: stops the work in flight. The view keeps its last finished result and says it
    // is not current until recompute(), the next change that matters to it, or being shown again.
    virtual void cancelByUser();
    bool cancelledByUser() const { return m_cancelledByUser; }
    // Computes the current settings again (View → Recompute).
    void recompute();
    const LabSettings& settings() const { return m_settings; }
    // An animation's frame mark; views that have no such mark ignore it. Repaints.
    void setFrameMark(const FrameMark& mark);
    const FrameMark& frameMark() const { return m_frameMark; }
    // The run's parameters in one line: the figure caption and the SVG/PDF description.
    virtual QString caption() const { return settingsCaption(m_settings); }

    // "variant=longformer (window=8)  n=256  d=64  h=1  causal=no  input=local similarity, seed 0"
    static QString settingsCaption(const LabSettings& settings);
    // The settings' token grid as the figures name the problem ("128×128 image, raster order"); empty
    // without a grid or for one that is not valid.
    static QString gridText(const LabSettings& settings);
    // Clears `rect` to white, draws the title on top and the caption (wrapped) at the bottom, and
    // returns the rectangle left for the plot.
    static QRectF paintFrame(QPainter& painter, const QRectF& rect, const QString& title, const QString& caption);

signals:
    void busyChanged(bool busy);
    void statusMessage(const QString& message);

protected:
    // Paints the figure into `rect`, its layout size.
    virtual void drawFigure(QPainter& painter, const QRectF& rect) const = 0;
    // True when going from `before` to `after` changes what the view computes.
    virtual bool needsWork(const LabSettings& before, const LabSettings& after) const = 0;
    // Starts the background work for m_settings; called only while the view is visible.
    virtual void startWork() = 0;
    // Stops the work in flight when the view is hidden; true when the work is to start again once the
    // view is shown (false, e.g., for a sweep the user had cancelled).
    virtual bool cancelWork() = 0;
    // The frame mark changed: a view whose mark needs work (the pattern view's cache at a decoding step)
    // starts it here.
    virtual void frameMarkChanged() {}
    // Marks the view stale: its work starts again the next time it is shown (or now, when visible).
    void markStale();
    // Routes `jobs`' busy state to busyChanged() and its errors to jobError() and statusMessage().
    void watchJobs(JobRunner& jobs);
    void paintEvent(QPaintEvent* event) override;
    // On screen (slide preview and font scale included): the rect drawFigure lays the figure out in, and a
    // widget point in that layout's coordinates. Hover, clicks, drags and zoom map events through these.
    QRectF layoutRect() const;
    QPointF toLayout(const QPointF& widgetPoint) const;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

    LabSettings m_settings;
    FrameMark m_frameMark;

  private:
    void beginWork();
    // Layout coordinates to widget pixels: in slide mode the 1920 × 1080 slide scaled to fit and centred
    // (on grey), then the font scale.
    QTransform screenTransform() const;

    bool m_stale = true;
    bool m_cancelledByUser = false;
    QString m_jobError;
};

} // namespace attnlab
