#pragma once

#include "views/plot/fitted_text.h"

#include <QColor>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <QStringList>

#include <functional>
#include <string>
#include <vector>

class QFontMetricsF;
class QPainter;

namespace attnlab {

// The colour of a named cost-model term (qkv_proj, scores, weights_v, out_proj, ffn, feature_map, …), the
// same in every figure; grey for an unknown term.
QColor costTermColor(const std::string& term);

// Okabe–Ito colours (distinguishable with every common colour-vision deficiency), cycled by index.
QColor seriesColor(int index);

// 1536 → "1536", 12e6 → "12M", 3.2e9 → "3.2G", 0.004 → "0.004".
QString compactNumber(double value);
// Seconds as "250 µs", "3 ms", "1.2 s".
QString durationText(double seconds);
// Bytes as "512 KiB", "3 MiB", "1.5 GiB", "8 TiB": binary units up to EiB, fewer than 1000 of the unit,
// never in exponent form.
QString bytesText(double bytes);
// bytesText rounded up instead of to nearest, for bounds stated as "≤" (2,099,200 B is "2.01 MiB", not "2 MiB").
QString bytesBoundText(double bytes);

enum class AxisScale { Linear, Log2, Log10 };

// One axis: its label, scale and data range. Log axes need min > 0. With `categories` set the axis is
// categorical: category k sits at value k and the range is [−0.5, count − 0.5].
struct Axis {
    QString label;
    QString shortLabel; // drawn instead of `label` where even drawFittedText's smallest scale cannot fit it
    AxisScale scale = AxisScale::Linear;
    double min = 0;
    double max = 1;
    std::function<QString(double)> format = compactNumber;
    QStringList categories;

    // Range covering `values` (non-positive values ignored on log axes): linear axes start at 0 when
    // `fromZero` and end on a round number; log axes end on whole powers of their base.
    static Axis fitted(const QString& label, AxisScale scale, const std::vector<double>& values, bool fromZero = true);
    static Axis categorical(const QString& label, const QStringList& names);
};

inline constexpr double kSeriesWidth = 1.8;

// Red rings around measured points (device coordinates) whose threads got too little CPU: the figures that
// time kernels mark them so and leave them out of their fits.
void drawStarvedRings(QPainter& painter, const std::vector<QPointF>& centres);

// Line widths for series drawn in order, so that curves lying on one another all stay visible: a series
// is kSeriesWidth wider by `step` for each later series that coincides with it (y within `tolerance`
// relative at every x both have, at least two), the later ones drawn thinner on top, like nested stripes.
std::vector<double> nestedLineWidths(const std::vector<std::vector<QPointF>>& curves, double step = 1.3,
                                     double tolerance = 0.01);

struct Series {
    QString name;
    QColor color;
    std::vector<QPointF> points; // data coordinates; points outside a log axis' domain are skipped
    Qt::PenStyle style = Qt::SolidLine;
    bool markers = true;
    double width = kSeriesWidth; // pen width in pixels
};

struct VerticalMarker {
    double x = 0;      // data coordinate
    QString label;
    QColor color;
    int row = 0;       // label line from the top of the plot
};

struct LegendEntry {
    QString name;
    QColor color;
    Qt::PenStyle style = Qt::SolidLine;
    bool filled = false; // a filled swatch (areas, bars) instead of a line
};

// Maps data to a panel of a figure and draws into it. The constructor reserves room inside `area`
// for the panel title, tick labels and axis labels; everything is in the painter's logical pixels.
class PlotAxes {
public:
    PlotAxes(QPainter& painter, const QRectF& area, Axis x, Axis y, const QString& panelTitle = {});

    const QRectF& plotRect() const { return m_plot; }
    // The axes as drawn: an animation may widen the ranges given to the constructor (animation_frame.h).
    const Axis& xAxis() const { return m_x; }
    const Axis& yAxis() const { return m_y; }
    QPointF map(double x, double y) const { return {mapX(x), mapY(y)}; }
    double mapX(double x) const;
    double mapY(double y) const;

    // Grid, frame, ticks, tick labels, axis labels and the panel title.
    void drawAxes() const;
    void drawSeries(const Series& series) const;
    // Areas stacked bottom to top: layer k spans Σ_{<k} … Σ_{≤k} at each x (same length as xs).
    void drawStackedAreas(const std::vector<double>& xs, const std::vector<std::vector<double>>& layers,
                          const std::vector<QColor>& colors) const;
    // Horizontal bars from the x axis' minimum to values[k] on a categorical y axis, value printed at the end.
    void drawHorizontalBars(const std::vector<double>& values, const std::vector<QColor>& colors) const;
    // Dashed vertical lines at data x with their labels at the top of the plot, `row` lines down (further
    // down while a label drawn before is in the way): every line first, then every label on top, so no
    // line crosses a label.
    void drawVerticalMarkers(const std::vector<VerticalMarker>& markers) const;
    // Text a figure places itself in `box` (e.g. beside a line it drew), kept among the drawn labels so
    // that markers and the legend drawn after it keep off it.
    void drawLabel(const QRectF& box, const QString& text, const QColor& color, int flags) const;
    // The boxes of the labels drawn so far, for text a figure places itself beside its data.
    const std::vector<QRectF>& drawnLabels() const { return m_drawnLabels; }
    // The legend inside the plot, at the `preferred` corner when that hides nothing drawn so far (marker
    // labels, data points, lines), else at the corner or edge middle that hides the fewest labels, then
    // points, then line samples. Draw it after the data; a panel whose data leave no room for its legend
    // puts it below the plot instead (legend_below.h).
    void drawLegend(const std::vector<LegendEntry>& entries, Qt::Corner preferred = Qt::TopLeftCorner) const;
    // Text centred in the plot area (e.g. "measuring…" or an error).
    void drawNotice(const QString& text) const;

private:
    static constexpr double kGap = 4.0;
    static constexpr double kMarkerRadius = 3.0;

    struct Tick {
        double value;
        bool labelled;
        bool major = true; // false for the 2 and 5 between the powers of a log10 axis
    };
    static std::vector<Tick> ticks(const Axis& axis);
    static QString tickText(const Axis& axis, const Tick& tick);
    QRectF xLabelBox(const Tick& tick) const;
    // Which x ticks carry their label: every k-th candidate from the first, with the smallest k that
    // keeps neighbouring labels apart, so the kept labels are evenly spaced (16 64 256 1024 rather than
    // 16 32 64 … 2048 with a gap wherever one label happened to collide). A label that would leave the
    // panel at either end is dropped.
    std::vector<bool> shownXLabels(const std::vector<Tick>& ticks) const;
    std::vector<bool> shownYLabels(const std::vector<Tick>& ticks, double lineHeight) const;
    double fraction(const Axis& axis, double value) const;
    QFontMetricsF fontMetrics() const;
    QPointF legendOrigin(const QSizeF& size, double inset, Qt::Corner preferred) const;
    void recordLine(const QPointF& from, const QPointF& to) const;
    bool inDomain(const Axis& axis, double value) const;

    QPainter& m_painter;
    Axis m_x, m_y;
    QString m_title;
    QRectF m_area;
    QRectF m_plot;
    // What was drawn so far, in pixels, for the legend to avoid: series markers, samples along series
    // lines, marker labels.
    mutable std::vector<QPointF> m_drawnPoints;
    mutable std::vector<QPointF> m_drawnLines;
    mutable std::vector<QRectF> m_drawnLabels;
};

} // namespace attnlab
