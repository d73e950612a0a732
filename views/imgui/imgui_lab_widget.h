#pragma once

#include "core/analysis/lab_settings.h"
#include "views/plot/plane_viewport.h"
#include "views/shell/expression_composer.h"

#include <QHash>
#include <QOpenGLWidget>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

struct ImGuiContext;

namespace attnlab {

class GridLayout;
class ImGuiQtBridge;
class LabPatternCanvas;

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
class ImGuiLabWidget : public QOpenGLWidget {
    Q_OBJECT
public:
    explicit ImGuiLabWidget(QWidget* parent = nullptr);
    ~ImGuiLabWidget() override;

    void setSettings(const LabSettings& settings);
    const LabSettings& settings() const { return m_settings; }

    // False on the offscreen/minimal platforms or when no OpenGL 3 context can be made. Needs a
    // QGuiApplication; the answer is computed once.
    static bool openGlAvailable();

    ImGuiContext* imguiContext() const { return m_context; }
    // What the last frame drew, in logical widget pixels (for tests and automation): the pattern
    // canvas, and each control by its label with the value it showed (empty when not drawn).
    QRectF canvasRect() const { return m_viewport.plot(); }
    QRectF controlRect(const QString& label) const { return m_controls.value(label).rect; }
    QString controlValue(const QString& label) const { return m_controls.value(label).value; }
    std::optional<CanvasHover> hoveredCell() const { return m_hover; }
    // The one-line message shown instead of the pattern when the settings are invalid (empty if valid).
    QString errorMessage() const { return m_error; }
    // True while the density image for the current view is being computed in the background.
    bool densityPending() const;

    // The grid panel (a pattern on a token grid): the query cell shown as a sequence position (-1 without
    // a grid), the box the last frame drew the panel in (empty without a grid), and whether its picture is
    // still being computed.
    std::int64_t gridQuery() const;
    QRectF gridPanelRect() const { return m_gridRect; }
    bool gridPicturePending() const;

    // The canvas's zoom and pan over the n × n plane; zoom 1 (the start, and a double click) shows it all.
    const PlaneViewport& canvasViewport() const { return m_viewport; }
    void setCanvasView(double zoom, const QPointF& origin);

signals:
    void settingsEdited(const attnlab::LabSettings& settings);

protected:
    void initializeGL() override;
    void paintGL() override;
    bool event(QEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    struct ControlRecord {
        QRectF rect;
        QString value;
    };

    void releaseGl();
    LabSettings buildFrame(); // returns the settings as the user left them this frame
    void drawControls(LabSettings& edited);
    void drawShapeControls(LabSettings& edited);
    void drawGridControls(LabSettings& edited);
    void drawVariantChooser(LabSettings& edited);
    void drawParameterControls(const VariantInfo& variant, LabSettings& edited);
    void drawInputControls(LabSettings& edited);
    // The custom variant's expression (`current` is its value in the settings) and the building blocks.
    void drawExpressionComposer(const ParamSpec& spec, const std::string& current, LabSettings& edited);
    void drawEditAsExpression(const VariantInfo& variant, LabSettings& edited);
    void drawCanvas(LabSettings& edited);
    void handleCanvasInput(LabSettings& edited);
    void paintCanvas();
    // lab_grid_panel.cpp: the grid panel above the matrix and its query.
    void syncGridQuery();
    void pinGridQuery(std::int64_t query, LabSettings& edited);
    void drawGridPanel(float height, LabSettings& edited);
    void paintGridPicture(const GridLayout& layout);
    void recordControl(const char* label, const QString& value);

    ImGuiContext* m_context = nullptr;
    std::unique_ptr<ImGuiQtBridge> m_bridge;
    std::unique_ptr<LabPatternCanvas> m_canvas;
    bool m_rendererReady = false;
    QTimer m_frameTimer;

    LabSettings m_settings;
    QString m_error;
    PlaneViewport m_viewport;
    QHash<QString, ControlRecord> m_controls;
    std::optional<CanvasHover> m_hover;
    std::string m_expressionText;     // the composer's field, as typed
    std::string m_expressionSynced;   // the settings' expression the field was last taken from or gave
    ExpressionCheck m_expressionCheck; // of m_expressionText after the last edit
    std::int64_t m_gridQuery = -1;
    // The pattern generation and settings' grid query m_gridQuery was last taken from.
    std::pair<std::uint64_t, std::int64_t> m_gridQuerySource{0, -2};
    bool m_gridPinned = false; // a clicked matrix row holds the query against hovering
    QRectF m_gridRect;
    QString m_gridError; // why the grid or order typed last is not valid (empty: it is)
};

} // namespace attnlab
