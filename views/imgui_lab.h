#pragma once

#include "views/lab_settings.h"

#include <QHash>
#include <QOpenGLWidget>
#include <QRectF>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>

struct ImGuiContext;

namespace attnlab {

class ImGuiQtBridge;

// Which part of the n × n plane the pattern canvas shows: the cell at the canvas's top-left corner
// (fractional row and column) and the zoom in logical pixels per cell.
struct CanvasView {
    double firstRow = 0;
    double firstCol = 0;
    double pixelsPerCell = 1;
    bool operator==(const CanvasView&) const = default;
};

// The cell under the mouse on the pattern canvas.
struct CanvasHover {
    std::int64_t row = 0; // query i
    std::int64_t col = 0; // key j
    bool allowed = false;
    bool operator==(const CanvasHover&) const = default;
};

// The Dear ImGui live lab: one ImGui context per widget, drawn with ImGui's OpenGL3 renderer every
// frame while visible. Dense sliders for every parameter of the current variant (built from the core
// registry's schema) and an immediate-mode pattern canvas with hover and pan/zoom. setSettings()
// changes what the sliders show without signalling back; a user edit emits settingsEdited().
class ImGuiLab : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit ImGuiLab(QWidget* parent = nullptr);
    ~ImGuiLab() override;

    void setSettings(const LabSettings& settings);
    const LabSettings& settings() const { return m_settings; }

    // False on the offscreen/minimal platforms or when no OpenGL 3 context can be made. Needs a
    // QGuiApplication; the answer is computed once.
    static bool openGlAvailable();

    ImGuiContext* imguiContext() const { return m_context; }
    // Where the last frame drew the pattern canvas and each labelled control, in logical widget pixels
    // (for tests and automation; an empty rect when not drawn).
    QRectF canvasRect() const { return m_canvasRect; }
    QRectF controlRect(const QString& label) const { return m_controlRects.value(label); }
    std::optional<CanvasHover> hoveredCell() const { return m_hover; }
    // The one-line message shown instead of the pattern when the settings are invalid (empty if valid).
    QString errorMessage() const { return m_error; }
    // True while the density image for the current view is being computed in the background.
    bool densityPending() const;

    CanvasView canvasView() const { return m_view; }
    void setCanvasView(const CanvasView& view);
    // Shows the whole n × n plane in the canvas (also what a double click on the canvas does).
    void fitCanvas();

signals:
    void settingsEdited(const attnlab::LabSettings& settings);

protected:
    void initializeGL() override;
    void paintGL() override;
    bool event(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    class Canvas;

    void releaseGl();
    void buildFrame();
    void drawControls(LabSettings& edited);
    void drawCanvas();

    ImGuiContext* m_context = nullptr;
    std::unique_ptr<ImGuiQtBridge> m_bridge;
    std::unique_ptr<Canvas> m_canvas;
    bool m_rendererReady = false;
    QTimer m_frameTimer;

    LabSettings m_settings;
    QString m_error;
    CanvasView m_view;
    bool m_fitPending = true;
    QRectF m_canvasRect;
    QHash<QString, QRectF> m_controlRects;
    std::optional<CanvasHover> m_hover;
};

} // namespace attnlab
