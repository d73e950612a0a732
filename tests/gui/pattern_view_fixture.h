#pragma once

// What the pattern-view test programs share: pixel and plane helpers, and a fixture that shows a
// PatternView and drives it with mouse and wheel events as a user does.

#include "gui/pixel_colors.h"
#include "views/figures/figure_export.h"
#include "views/figures/pattern_view.h"
#include "views/plot/colormap.h"

#include "core/patterns/pattern.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>


namespace attnlab::patternviewtest {

constexpr QRgb kHighlightColor = 0xe66100;
constexpr QRgb kOutlineColor = 0x101010;
constexpr int kIdleTimeoutMs = 60000;

using guitest::colorText;
using guitest::sameColor;

inline QRgb pixelAt(const QImage& image, const QPointF& point) {
    return image.pixel(static_cast<int>(std::floor(point.x())), static_cast<int>(std::floor(point.y())));
}

inline LabSettings settingsFor(const std::string& variant, std::int64_t n, bool causal, ParamOverrides params = {}) {
    LabSettings settings;
    settings.variant = variant;
    settings.params = std::move(params);
    settings.n = n;
    settings.causal = causal;
    return settings;
}

// The allowed set straight from the core registry, for the settings' shape.
inline std::unique_ptr<Pattern> referencePattern(const LabSettings& settings, const VariantChoice& choice) {
    const VariantInfo& variant = requireVariant(choice.variant);
    const ProblemShape shape = problemShape(settings, variant);
    return buildPattern(variant, shape, prepareParams(variant, shape, choice.params));
}

// Pixel centre of cell (i, j) computed from the plot rectangle, the zoom and the origin alone.
inline QPointF cellCentre(const QRectF& plot, std::int64_t n, double zoom, QPointF origin, std::int64_t i, std::int64_t j) {
    const double size = plot.width() * zoom / static_cast<double>(n);
    return {plot.left() + (static_cast<double>(j) + 0.5 - origin.x()) * size,
            plot.top() + (static_cast<double>(i) + 0.5 - origin.y()) * size};
}

// The cell under a pixel by the same independent formula.
inline PlaneCell cellUnder(const QRectF& plot, std::int64_t n, double zoom, QPointF origin, QPointF pixel) {
    const double size = plot.width() * zoom / static_cast<double>(n);
    return {static_cast<std::int64_t>(std::floor(origin.y() + (pixel.y() - plot.top()) / size)),
            static_cast<std::int64_t>(std::floor(origin.x() + (pixel.x() - plot.left()) / size))};
}

class PatternViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        view = std::make_unique<PatternView>();
        view->resize(900, 600);
        view->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    }

    void show(const LabSettings& settings) {
        view->setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs)) << "the pattern view stayed busy";
        ASSERT_TRUE(view->errorText().isEmpty()) << view->errorText().toStdString();
    }

    // The figure painted by the one paint path at the widget's own size (so the view's plot rectangles apply).
    QImage paint() const {
        QImage image(view->size(), QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        view->paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(view->size())));
        return image;
    }

    QRectF plot(int panel = 0) const { return view->plotRect(QRectF(view->rect()), panel); }

    void send(QEvent& event) { QApplication::sendEvent(view.get(), &event); }

    // Hovers `pixel` and returns the (i, j) the view reports in its status message.
    // The status message the view gives when the mouse moves to `pixel` (empty when it gives none).
    QString hoverMessage(const QPointF& pixel) {
        QSignalSpy spy(view.get(), &FigureView::statusMessage);
        QMouseEvent move(QEvent::MouseMove, pixel, view->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        send(move);
        return spy.isEmpty() ? QString() : spy.takeLast().at(0).toString();
    }

    // Hovers `pixel` and returns the (i, j) the view reports in its status message.
    std::optional<PlaneCell> hover(const QPointF& pixel) {
        static const QRegularExpression cellText(QStringLiteral("query i = (\\d+), key j = (\\d+)"));
        const auto match = cellText.match(hoverMessage(pixel));
        if (!match.hasMatch()) return std::nullopt;
        return PlaneCell{match.captured(1).toLongLong(), match.captured(2).toLongLong()};
    }

    void wheel(const QPointF& pixel, int notches) {
        QWheelEvent event(pixel, view->mapToGlobal(pixel), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        send(event);
    }

    void click(const QPointF& pixel) {
        QMouseEvent press(QEvent::MouseButtonPress, pixel, view->mapToGlobal(pixel), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        send(press);
        QMouseEvent release(QEvent::MouseButtonRelease, pixel, view->mapToGlobal(pixel), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        send(release);
    }

    void drag(const QPointF& from, const QPointF& to) {
        QMouseEvent press(QEvent::MouseButtonPress, from, view->mapToGlobal(from), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        send(press);
        const int steps = 5;
        for (int s = 1; s <= steps; ++s) {
            const QPointF at = from + (to - from) * (static_cast<double>(s) / steps);
            QMouseEvent move(QEvent::MouseMove, at, view->mapToGlobal(at), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
            send(move);
        }
        QMouseEvent release(QEvent::MouseButtonRelease, to, view->mapToGlobal(to), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        send(release);
    }

    std::unique_ptr<PatternView> view;
};


} // namespace attnlab::patternviewtest
