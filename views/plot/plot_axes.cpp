#include "views/plot/plot_axes.h"

#include "views/plot/animation_frame.h"
#include "views/plot/figure_text.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QLineF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace attnlab {

namespace {

double logOf(AxisScale scale, double value) { return scale == AxisScale::Log2 ? std::log2(value) : std::log10(value); }
double baseOf(AxisScale scale) { return scale == AxisScale::Log2 ? 2.0 : 10.0; }
bool isLog(AxisScale scale) { return scale != AxisScale::Linear; }

// 1, 2 or 5 times a power of ten, at least `rough`.
double niceStep(double rough) {
    const double power = std::pow(10.0, std::floor(std::log10(rough)));
    for (const double factor : {1.0, 2.0, 5.0})
        if (factor * power >= rough * (1 - 1e-9)) return factor * power;
    return 10.0 * power;
}

} // namespace

QColor costTermColor(const std::string& term) {
    static const std::map<std::string, QColor> colors = {
        {"qkv_proj", QColor(0x00, 0x72, 0xB2)},    {"scores", QColor(0xD5, 0x5E, 0x00)},
        {"weights_v", QColor(0xE6, 0x9F, 0x00)},   {"out_proj", QColor(0x56, 0xB4, 0xE9)},
        {"ffn", QColor(0x00, 0x9E, 0x73)},         {"feature_map", QColor(0xCC, 0x79, 0xA7)},
        {"linear_state", QColor(0xF0, 0xE4, 0x42)}, {"projection", QColor(0x99, 0x99, 0x99)},
        {"relpos", QColor(0xCC, 0x79, 0xA7)},      {"hashing", QColor(0x99, 0x99, 0x99)},
    };
    const auto found = colors.find(term);
    return found != colors.end() ? found->second : QColor(0x77, 0x77, 0x77);
}

QColor seriesColor(int index) {
    static const QColor palette[] = {QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00), QColor(0x00, 0x9E, 0x73),
                                     QColor(0xCC, 0x79, 0xA7), QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9),
                                     QColor(0xF0, 0xE4, 0x42), QColor(0x00, 0x00, 0x00)};
    constexpr int count = static_cast<int>(std::size(palette));
    return palette[((index % count) + count) % count];
}

Axis Axis::fitted(const QString& label, AxisScale scale, const std::vector<double>& values, bool fromZero) {
    Axis axis;
    axis.label = label;
    axis.scale = scale;
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (const double value : values) {
        if (!std::isfinite(value) || (isLog(scale) && value <= 0)) continue;
        low = std::min(low, value);
        high = std::max(high, value);
    }
    if (isLog(scale)) {
        if (!(low <= high)) low = 1, high = 10;
        const double base = baseOf(scale);
        axis.min = std::pow(base, std::floor(logOf(scale, low) + 1e-9));
        axis.max = std::pow(base, std::ceil(logOf(scale, high) - 1e-9));
        if (axis.max <= axis.min) axis.max = axis.min * base;
        return axis;
    }
    if (!(low <= high)) low = 0, high = 1;
    if (fromZero) low = std::min(0.0, low), high = std::max(0.0, high);
    if (high <= low) high = low + 1;
    const double step = niceStep((high - low) / 5);
    axis.min = std::floor(low / step + 1e-9) * step;
    axis.max = std::ceil(high / step - 1e-9) * step;
    return axis;
}

Axis Axis::categorical(const QString& label, const QStringList& names) {
    Axis axis;
    axis.label = label;
    axis.categories = names;
    axis.min = -0.5;
    axis.max = std::max<qsizetype>(1, names.size()) - 0.5;
    return axis;
}

PlotAxes::PlotAxes(QPainter& painter, const QRectF& area, Axis x, Axis y, const QString& panelTitle)
    : m_painter(painter), m_x(std::move(x)), m_y(std::move(y)), m_title(panelTitle), m_area(area) {
    if (const AnimationFrame* frame = currentAnimationFrame();
        frame && frame->hold) { // an animation holds its axes
        frame->hold->apply(m_x);
        frame->hold->apply(m_y);
    }
    const QFontMetricsF metrics = fontMetrics();
    double labelWidth = 0;
    for (const Tick& tick : ticks(m_y))
        if (tick.labelled) labelWidth = std::max(labelWidth, metrics.horizontalAdvance(tickText(m_y, tick)));
    const double line = metrics.height();
    const double left = labelWidth + 2 * kGap + (m_y.label.isEmpty() ? 0 : line + kGap);
    const double bottom = line + kGap * 2 + (m_x.label.isEmpty() ? 0 : line + kGap);
    const double top = (m_title.isEmpty() ? 0 : line + kGap) + kGap;
    const double right = metrics.horizontalAdvance(QStringLiteral("00000")) / 2;
    m_plot = QRectF(area.left() + left, area.top() + top, std::max(10.0, area.width() - left - right),
                    std::max(10.0, area.height() - top - bottom));
}

bool PlotAxes::inDomain(const Axis& axis, double value) const {
    return std::isfinite(value) && (!isLog(axis.scale) || value > 0);
}

double PlotAxes::fraction(const Axis& axis, double value) const {
    if (isLog(axis.scale))
        return (logOf(axis.scale, value) - logOf(axis.scale, axis.min)) /
               (logOf(axis.scale, axis.max) - logOf(axis.scale, axis.min));
    return (value - axis.min) / (axis.max - axis.min);
}

QFontMetricsF PlotAxes::fontMetrics() const { return QFontMetricsF(m_painter.font(), m_painter.device()); }

double PlotAxes::mapX(double x) const { return m_plot.left() + fraction(m_x, x) * m_plot.width(); }

double PlotAxes::mapY(double y) const {
    // Categories read top to bottom; values grow upwards.
    if (!m_y.categories.isEmpty()) return m_plot.top() + fraction(m_y, y) * m_plot.height();
    return m_plot.bottom() - fraction(m_y, y) * m_plot.height();
}

std::vector<PlotAxes::Tick> PlotAxes::ticks(const Axis& axis) {
    std::vector<Tick> result;
    const double tolerance = 1e-9 * std::max(std::abs(axis.min), std::abs(axis.max));
    const auto inside = [&](double value) { return value >= axis.min - tolerance && value <= axis.max + tolerance; };
    if (!axis.categories.isEmpty()) {
        for (qsizetype k = 0; k < axis.categories.size(); ++k) result.push_back({static_cast<double>(k), true});
        return result;
    }
    if (axis.scale == AxisScale::Linear) {
        const double step = niceStep((axis.max - axis.min) / 5);
        for (double value = std::ceil(axis.min / step - 1e-9) * step; inside(value); value += step)
            result.push_back({std::abs(value) < step * 1e-9 ? 0.0 : value, true});
        return result;
    }
    const int first = static_cast<int>(std::floor(logOf(axis.scale, axis.min) + 1e-9));
    const int last = static_cast<int>(std::ceil(logOf(axis.scale, axis.max) - 1e-9));
    const int powers = last - first + 1;
    if (axis.scale == AxisScale::Log2) {
        const int every = std::max(1, (powers + 9) / 10);
        for (int e = first; e <= last; ++e) result.push_back({std::exp2(e), (e - first) % every == 0});
        return result;
    }
    for (int e = first; e <= last; ++e) {
        const double decade = std::pow(10.0, e);
        for (int factor = 1; factor <= 9; ++factor) {
            const double value = factor * decade;
            if (inside(value)) result.push_back({value, factor == 1 || (powers <= 3 && (factor == 2 || factor == 5)), factor == 1});
        }
    }
    return result;
}

QString PlotAxes::tickText(const Axis& axis, const Tick& tick) {
    return axis.categories.isEmpty() ? axis.format(tick.value) : axis.categories[static_cast<int>(tick.value)];
}

QRectF PlotAxes::xLabelBox(const Tick& tick) const {
    const QFontMetricsF metrics = fontMetrics();
    const double width = metrics.horizontalAdvance(tickText(m_x, tick));
    return QRectF(mapX(tick.value) - width / 2 - 1, m_plot.bottom() + kGap + 2, width + 2, metrics.height());
}

// Every k-th labelled y tick from the first, with the smallest k that keeps the kept labels a line apart,
// so that a short panel shows evenly spaced labels instead of a stack of overlapping ones.
std::vector<bool> PlotAxes::shownYLabels(const std::vector<Tick>& ticks, double lineHeight) const {
    std::vector<std::size_t> labelled;
    for (std::size_t k = 0; k < ticks.size(); ++k)
        if (ticks[k].labelled) labelled.push_back(k);
    std::size_t every = 1;
    const auto apart = [&](std::size_t step) {
        for (std::size_t a = step; a < labelled.size(); a += step)
            if (std::abs(mapY(ticks[labelled[a]].value) - mapY(ticks[labelled[a - step]].value)) < lineHeight) return false;
        return true;
    };
    while (every < labelled.size() && !apart(every)) ++every;
    if (!m_y.categories.isEmpty()) every = 1; // every category keeps its name
    std::vector<bool> shown(ticks.size(), false);
    for (std::size_t a = 0; a < labelled.size(); a += every) shown[labelled[a]] = true;
    return shown;
}

std::vector<bool> PlotAxes::shownXLabels(const std::vector<Tick>& ticks) const {
    const auto fits = [&](const std::vector<std::size_t>& chosen) {
        double previousRight = -std::numeric_limits<double>::infinity();
        for (const std::size_t k : chosen) {
            const QRectF box = xLabelBox(ticks[k]);
            if (box.left() < previousRight + kGap) return false;
            previousRight = box.right();
        }
        return true;
    };
    const auto candidates = [&](bool majorOnly) {
        std::vector<std::size_t> list;
        for (std::size_t k = 0; k < ticks.size(); ++k)
            if (ticks[k].labelled && (ticks[k].major || !majorOnly)) list.push_back(k);
        return list;
    };
    // 1-2-5 labels of a log axis that do not all fit give way to the powers alone, then thin those.
    std::vector<std::size_t> list = candidates(false);
    if (!fits(list)) list = candidates(true);
    std::vector<std::size_t> chosen;
    for (std::size_t every = 1; every <= std::max<std::size_t>(1, list.size()); ++every) {
        chosen.clear();
        for (std::size_t c = 0; c < list.size(); c += every) chosen.push_back(list[c]);
        if (fits(chosen)) break;
    }
    std::vector<bool> shown(ticks.size(), false);
    for (const std::size_t k : chosen) {
        const QRectF box = xLabelBox(ticks[k]);
        shown[k] = box.left() >= m_area.left() && box.right() <= m_area.right();
    }
    return shown;
}

void PlotAxes::drawAxes() const {
    QPainter& painter = m_painter;
    painter.save();
    const QFontMetricsF metrics = fontMetrics();
    const QPen gridPen(QColor(0xE4, 0xE4, 0xE4), 0.8);
    const QPen tickPen(QColor(0x44, 0x44, 0x44), 1.0);

    const std::vector<Tick> xTicks = ticks(m_x);
    const std::vector<bool> shown = shownXLabels(xTicks);
    for (std::size_t k = 0; k < xTicks.size(); ++k) {
        const double x = mapX(xTicks[k].value);
        painter.setPen(gridPen);
        if (shown[k]) painter.drawLine(QPointF(x, m_plot.top()), QPointF(x, m_plot.bottom()));
        painter.setPen(tickPen);
        painter.drawLine(QPointF(x, m_plot.bottom()), QPointF(x, m_plot.bottom() + (shown[k] ? 4 : 2)));
        if (shown[k]) drawAlignedText(painter, xLabelBox(xTicks[k]), Qt::AlignCenter, tickText(m_x, xTicks[k]));
    }
    const std::vector<Tick> yTicks = ticks(m_y);
    const std::vector<bool> yShown = shownYLabels(yTicks, metrics.height());
    for (std::size_t k = 0; k < yTicks.size(); ++k) {
        const Tick& tick = yTicks[k];
        const double y = mapY(tick.value);
        painter.setPen(gridPen);
        if (tick.labelled && m_y.categories.isEmpty()) painter.drawLine(QPointF(m_plot.left(), y), QPointF(m_plot.right(), y));
        painter.setPen(tickPen);
        painter.drawLine(QPointF(m_plot.left() - (yShown[k] ? 4 : 2), y), QPointF(m_plot.left(), y));
        if (!yShown[k]) continue;
        const QString text = tickText(m_y, tick);
        drawAlignedText(painter, QRectF(m_area.left(), y - metrics.height() / 2, m_plot.left() - m_area.left() - kGap - 2, metrics.height()),
                        Qt::AlignRight | Qt::AlignVCenter, text);
    }
    painter.setPen(tickPen);
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(m_plot);

    painter.setPen(Qt::black);
    if (!m_x.label.isEmpty())
        drawFittedText(painter, QRectF(m_plot.left(), m_plot.bottom() + metrics.height() + 2 * kGap, m_plot.width(), metrics.height()),
                       Qt::AlignHCenter | Qt::AlignTop, m_x.label);
    if (!m_y.label.isEmpty()) {
        painter.save();
        painter.translate(m_area.left(), m_plot.center().y());
        painter.rotate(-90);
        const bool shorter = !m_y.shortLabel.isEmpty() && !fitsWhenFitted(painter, m_plot.height(), m_y.label);
        drawFittedText(painter, QRectF(-m_plot.height() / 2, 0, m_plot.height(), metrics.height()), Qt::AlignHCenter | Qt::AlignTop,
                       shorter ? m_y.shortLabel : m_y.label);
        painter.restore();
    }
    if (!m_title.isEmpty()) {
        painter.setFont(headingFont(painter.font(), m_title));
        drawFittedText(painter, QRectF(m_area.left(), m_area.top(), m_area.width(), metrics.height()), Qt::AlignHCenter | Qt::AlignTop,
                       m_title);
    }
    painter.restore();
}

void PlotAxes::recordLine(const QPointF& from, const QPointF& to) const {
    constexpr double kSampleSpacing = 4.0; // pixels between the samples the legend avoids
    const int samples = static_cast<int>(std::ceil(QLineF(from, to).length() / kSampleSpacing));
    for (int k = 0; k <= samples; ++k) {
        const QPointF sample = from + (to - from) * (samples == 0 ? 0.0 : static_cast<double>(k) / samples);
        if (m_plot.contains(sample)) m_drawnLines.push_back(sample);
    }
}

std::vector<double> nestedLineWidths(const std::vector<std::vector<QPointF>>& curves, double step, double tolerance) {
    const auto coincide = [tolerance](const std::vector<QPointF>& a, const std::vector<QPointF>& b) {
        int common = 0;
        for (const QPointF& p : a)
            for (const QPointF& q : b) {
                if (p.x() != q.x()) continue;
                if (std::abs(p.y() - q.y()) > tolerance * std::max(std::abs(p.y()), std::abs(q.y()))) return false;
                ++common;
            }
        return common >= 2;
    };
    std::vector<double> widths(curves.size(), kSeriesWidth);
    for (std::size_t k = 0; k < curves.size(); ++k)
        for (std::size_t later = k + 1; later < curves.size(); ++later)
            if (coincide(curves[k], curves[later])) widths[k] += step;
    return widths;
}

void drawStarvedRings(QPainter& painter, const std::vector<QPointF>& centres) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(QColor(0xd0, 0x20, 0x20), 1.6));
    for (const QPointF& centre : centres) painter.drawEllipse(centre, 6.5, 6.5);
    painter.restore();
}

void PlotAxes::drawSeries(const Series& series) const {
    QPainter& painter = m_painter;
    painter.save();
    painter.setClipRect(m_plot.adjusted(-kMarkerRadius - 1, -kMarkerRadius - 1, kMarkerRadius + 1, kMarkerRadius + 1));
    QPen pen(series.color, series.width, series.style);
    pen.setCapStyle(Qt::RoundCap);
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    QPainterPath path;
    bool open = false;
    for (const QPointF& point : series.points) {
        if (!inDomain(m_x, point.x()) || !inDomain(m_y, point.y())) {
            open = false;
            continue;
        }
        const QPointF mapped = map(point.x(), point.y());
        if (open) {
            recordLine(path.currentPosition(), mapped);
            path.lineTo(mapped);
        } else {
            path.moveTo(mapped);
        }
        open = true;
        if (series.markers) m_drawnPoints.push_back(mapped);
    }
    painter.drawPath(path);
    if (series.markers) {
        painter.setPen(QPen(series.color, 1.0));
        painter.setBrush(series.style == Qt::SolidLine ? QBrush(series.color) : QBrush(Qt::white));
        for (const QPointF& point : series.points)
            if (inDomain(m_x, point.x()) && inDomain(m_y, point.y()))
                painter.drawEllipse(map(point.x(), point.y()), kMarkerRadius, kMarkerRadius);
    }
    painter.restore();
}

void PlotAxes::drawStackedAreas(const std::vector<double>& xs, const std::vector<std::vector<double>>& layers,
                                const std::vector<QColor>& colors) const {
    QPainter& painter = m_painter;
    painter.save();
    painter.setClipRect(m_plot);
    // On a log axis the stack's floor is the axis minimum, since 0 has no position there.
    const double floorValue = isLog(m_y.scale) ? m_y.min : 0.0;
    std::vector<double> cumulative(xs.size(), 0.0);
    for (std::size_t k = 0; k < layers.size(); ++k) {
        QPolygonF polygon;
        for (std::size_t i = 0; i < xs.size(); ++i) polygon << map(xs[i], std::max(floorValue, cumulative[i] + layers[k][i]));
        for (std::size_t i = xs.size(); i-- > 0;) polygon << map(xs[i], std::max(floorValue, cumulative[i]));
        QColor fill = colors[k];
        fill.setAlpha(210);
        painter.setPen(QPen(colors[k].darker(130), 0.8));
        painter.setBrush(fill);
        painter.drawPolygon(polygon);
        for (std::size_t i = 0; i < xs.size(); ++i) cumulative[i] += layers[k][i];
    }
    painter.restore();
}

void PlotAxes::drawHorizontalBars(const std::vector<double>& values, const std::vector<QColor>& colors) const {
    QPainter& painter = m_painter;
    painter.save();
    const QFontMetricsF metrics = fontMetrics();
    const double thickness = 0.62 * m_plot.height() / std::max<qsizetype>(1, m_y.categories.size());
    for (std::size_t k = 0; k < values.size(); ++k) {
        const double y = mapY(static_cast<double>(k));
        const double end = inDomain(m_x, values[k]) ? std::clamp(mapX(values[k]), m_plot.left(), m_plot.right()) : m_plot.left();
        const QRectF bar(m_plot.left(), y - thickness / 2, end - m_plot.left(), thickness);
        painter.setPen(QPen(colors[k].darker(130), 0.8));
        painter.setBrush(colors[k]);
        painter.drawRect(bar);
        const QString text = m_x.format(values[k]);
        const double width = metrics.horizontalAdvance(text);
        const bool fitsOutside = end + kGap + width <= m_plot.right();
        painter.setPen(fitsOutside ? Qt::black : Qt::white);
        drawAlignedText(painter, QRectF(fitsOutside ? end + kGap : end - kGap - width, y - metrics.height() / 2, width + 1, metrics.height()),
                        Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    painter.restore();
}

} // namespace attnlab
