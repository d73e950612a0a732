#include "views/imgui/imgui_lab_widget.h"

#include "views/plot/colormap.h"
#include "views/imgui/imgui_qt_bridge.h"
#include "views/imgui/lab_fonts.h"
#include "views/imgui/lab_style.h"
#include "views/imgui/lab_pattern_canvas.h"

#include "core/registry.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <QCursor>
#include <QGuiApplication>
#include <QOpenGLContext>
#include <QOpenGLFunctions>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

constexpr int kMaxBins = 2048; // device pixels of the density image across the canvas, at most
constexpr int kFrameIntervalMs = 16;
constexpr float kControlsWidth = 340.0f;
constexpr float kLabelWidth = 110.0f;
constexpr double kWheelZoomStep = 1.25; // zoom factor per wheel notch
constexpr double kGridMinCellPixels = 8.0;
constexpr float kGridPanelShare = 0.4f; // with a token grid, the grid panel's share of the canvas's height
constexpr float kClickSlopPixels = 3.0f; // a press that moves less is a click, not a drag
ImU32 imColor(QRgb rgb) { return IM_COL32(qRed(rgb), qGreen(rgb), qBlue(rgb), qAlpha(rgb)); }

// Where `tile` lands on the canvas; a tile of an earlier n is stretched over the same fraction of the plane.
QRectF tileRect(const PlaneViewport& viewport, const DensityTile& tile) {
    const double scale = static_cast<double>(viewport.n()) / static_cast<double>(tile.n);
    const double size = viewport.cellSize() * scale;
    const QPointF origin = viewport.origin() / scale;
    const QRectF& plot = viewport.plot();
    const PlaneRegion& r = tile.drawnCells;
    return QRectF(plot.left() + (static_cast<double>(r.col0) - origin.x()) * size,
                  plot.top() + (static_cast<double>(r.row0) - origin.y()) * size,
                  static_cast<double>(r.col1 - r.col0) * size, static_cast<double>(r.row1 - r.row0) * size);
}

ImVec2 imPoint(const QPointF& point) { return ImVec2(static_cast<float>(point.x()), static_cast<float>(point.y())); }

} // namespace

ImGuiLabWidget::ImGuiLabWidget(QWidget* parent) : QOpenGLWidget(parent), m_canvas(std::make_unique<LabPatternCanvas>()) {
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGui::GetIO().IniFilename = nullptr; // the Qt side keeps all state
    ImGui::StyleColorsLight();
    ImGui::GetStyle().WindowRounding = 0.0f;
    m_bridge = std::make_unique<ImGuiQtBridge>(m_context);
    ImGui::SetCurrentContext(previous);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(480, 320);
    m_frameTimer.setInterval(kFrameIntervalMs);
    connect(&m_frameTimer, &QTimer::timeout, this, qOverload<>(&QWidget::update));
}

ImGuiLabWidget::~ImGuiLabWidget() {
    releaseGl();
    ImGui::DestroyContext(m_context);
}

void ImGuiLabWidget::setSettings(const LabSettings& settings) {
    m_settings = settings;
    update();
}

bool ImGuiLabWidget::openGlAvailable() {
    static const bool available = [] {
        const QString platform = QGuiApplication::platformName();
        if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) return false;
        QOpenGLContext context;
        return context.create() && context.format().majorVersion() >= 3;
    }();
    return available;
}

bool ImGuiLabWidget::densityPending() const { return m_canvas->pending(); }

void ImGuiLabWidget::setCanvasView(double zoom, const QPointF& origin) { m_viewport.setView(zoom, origin); }

void ImGuiLabWidget::initializeGL() {
    ImGui::SetCurrentContext(m_context);
    // A core profile context (macOS, some drivers) rejects GLSL 1.30, the backend's default.
    const bool core = context()->format().profile() == QSurfaceFormat::CoreProfile;
    // Text at the window's point size (10 pt at the screen's logical DPI), rasterised for its pixel ratio.
    const float pixelSize = 10.0f * static_cast<float>(logicalDpiY()) / 72.0f;
    loadLabFonts(ImGui::GetIO(), pixelSize, static_cast<float>(devicePixelRatioF()));
    m_rendererReady = context()->format().majorVersion() >= 3 && ImGui_ImplOpenGL3_Init(core ? "#version 150" : "#version 130");
    // Reparenting into another window gives the widget a new context: drop the old one's objects.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &ImGuiLabWidget::releaseGl);
}

void ImGuiLabWidget::releaseGl() {
    if (!m_rendererReady) return;
    makeCurrent();
    m_canvas->releaseTexture(*context()->functions());
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    m_rendererReady = false;
    doneCurrent();
}

void ImGuiLabWidget::paintGL() {
    QOpenGLFunctions& gl = *context()->functions();
    const QColor background = palette().color(QPalette::Window);
    gl.glClearColor(background.redF(), background.greenF(), background.blueF(), 1.0f);
    gl.glClear(GL_COLOR_BUFFER_BIT);
    if (!m_rendererReady) return;
    m_bridge->beginFrame(size(), devicePixelRatioF());
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    const LabSettings edited = buildFrame();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    const Qt::CursorShape shape = m_bridge->cursorShape();
    if (cursor().shape() != shape) setCursor(shape);
    if (edited != m_settings) {
        m_settings = edited;
        emit settingsEdited(m_settings);
    }
}

LabSettings ImGuiLabWidget::buildFrame() {
    m_controls.clear();
    m_canvas->sync(m_settings);
    const ImGuiViewport* screen = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(screen->Pos);
    ImGui::SetNextWindowSize(screen->Size);
    ImGui::Begin("live lab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    LabSettings edited = m_settings;
    ImGui::BeginChild("controls", ImVec2(kControlsWidth, 0.0f));
    ImGui::PushItemWidth(-kLabelWidth);
    drawControls(edited);
    ImGui::PopItemWidth();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("canvas", ImVec2(0.0f, 0.0f), false, ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar);
    drawCanvas(edited);
    ImGui::EndChild();
    ImGui::End();
    return edited;
}

void ImGuiLabWidget::drawCanvas(LabSettings& edited) {
    const LabPattern& lab = m_canvas->pattern();
    if (!m_canvas->patternCurrent())
        ImGui::TextDisabled("%s", tr("computing the pattern for n = %1 …").arg(m_settings.n).toUtf8().constData());
    else if (lab.pattern)
        labText(tr("n = %1   nnz = %2   density %3%   %4")
                    .arg(lab.n)
                    .arg(lab.nnz)
                    .arg(100.0 * static_cast<double>(lab.nnz) / (static_cast<double>(lab.n) * static_cast<double>(lab.n)), 0, 'g', 4)
                    .arg(lab.note));
    else
        ImGui::TextColored(kLabErrorColor, "%s", tr("no pattern: %1").arg(lab.error).toUtf8().constData());

    m_gridRect = QRectF();
    const bool onGrid = lab.pattern && lab.grid;
    if (onGrid) {
        syncGridQuery();
        const float lines = ImGui::GetTextLineHeightWithSpacing() * 3.0f;
        drawGridPanel(std::max(32.0f, kGridPanelShare * (ImGui::GetContentRegionAvail().y - lines)), edited);
    }
    const ImVec2 available = ImGui::GetContentRegionAvail();
    const float side = std::max(32.0f, std::min(available.x, available.y - ImGui::GetTextLineHeightWithSpacing()));
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("pattern canvas", ImVec2(side, side));
    recordControl("pattern canvas", {});
    const QRectF plot(corner.x, corner.y, side, side);
    const std::int64_t n = lab.pattern ? lab.n : std::max<std::int64_t>(1, m_viewport.n());
    if (m_viewport.n() != n || m_viewport.plot().isEmpty()) m_viewport = PlaneViewport(n, plot);
    m_viewport.setPlot(plot);
    handleCanvasInput(edited);

    const double pixels = std::clamp(std::ceil(plot.width() * devicePixelRatioF()), 16.0, static_cast<double>(kMaxBins));
    m_canvas->request(m_viewport.visibleRegion(), static_cast<int>(pixels));
    paintCanvas();

    if (m_hover)
        labText((m_hover->allowed ? tr("query i = %1, key j = %2: allowed   zoom ×%3") : tr("query i = %1, key j = %2: masked   zoom ×%3"))
                    .arg(m_hover->row)
                    .arg(m_hover->col)
                    .arg(m_viewport.zoom(), 0, 'g', 3));
    else
        ImGui::TextDisabled("%s", tr("wheel zooms at the cursor, drag pans, double-click shows all   zoom ×%1").arg(m_viewport.zoom(), 0, 'g', 3).toUtf8().constData());
}

void ImGuiLabWidget::handleCanvasInput(LabSettings& edited) {
    const ImGuiIO& io = ImGui::GetIO();
    const QPointF mouse(io.MousePos.x, io.MousePos.y);
    const bool hovered = ImGui::IsItemHovered();
    if (hovered && io.MouseWheel != 0.0f) m_viewport.zoomAt(mouse, std::pow(kWheelZoomStep, static_cast<double>(io.MouseWheel)));
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) {
        m_viewport.reset();
        m_gridPinned = false;
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f))
        m_viewport.panByPixels(QPointF(io.MouseDelta.x, io.MouseDelta.y));
    m_hover.reset();
    const LabPattern& lab = m_canvas->pattern();
    if (!hovered || !lab.pattern) return;
    const auto cell = m_viewport.cellAt(mouse);
    if (!cell) return;
    m_hover = CanvasHover{cell->i, cell->j, lab.pattern->allowed(cell->i, cell->j)};
    if (!lab.grid) return;
    // On a grid, the hovered row is the query, and a click (not a drag) pins it.
    if (!m_gridPinned) m_gridQuery = cell->i;
    const bool clicked = ImGui::IsMouseReleased(ImGuiMouseButton_Left) && io.MouseDragMaxDistanceSqr[ImGuiMouseButton_Left] <= kClickSlopPixels * kClickSlopPixels;
    if (clicked) {
        m_gridPinned = true;
        pinGridQuery(cell->i, edited);
    }
}

void ImGuiLabWidget::paintCanvas() {
    ImDrawList& draw = *ImGui::GetWindowDrawList();
    const QRectF& plot = m_viewport.plot();
    const ImVec2 topLeft = imPoint(plot.topLeft()), bottomRight = imPoint(plot.bottomRight());
    draw.AddRectFilled(topLeft, bottomRight, imColor(emptyCellColor()));
    draw.PushClipRect(topLeft, bottomRight, true);
    const std::optional<DensityTile>& tile = m_canvas->tile();
    if (const unsigned texture = m_canvas->texture(*context()->functions()); tile && texture != 0) {
        const QRectF rect = tileRect(m_viewport, *tile);
        draw.AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(texture)), imPoint(rect.topLeft()), imPoint(rect.bottomRight()));
    }
    if (m_viewport.cellSize() >= kGridMinCellPixels) {
        const PlaneRegion region = m_viewport.visibleRegion();
        const ImU32 gridColor = IM_COL32(255, 255, 255, 90);
        for (std::int64_t j = region.col0; j <= region.col1; ++j) {
            const QRectF cell = m_viewport.regionRect({region.row0, region.row0, j, j});
            draw.AddLine(ImVec2(static_cast<float>(cell.left()), topLeft.y), ImVec2(static_cast<float>(cell.left()), bottomRight.y), gridColor);
        }
        for (std::int64_t i = region.row0; i <= region.row1; ++i) {
            const QRectF cell = m_viewport.regionRect({i, i, region.col0, region.col0});
            draw.AddLine(ImVec2(topLeft.x, static_cast<float>(cell.top())), ImVec2(bottomRight.x, static_cast<float>(cell.top())), gridColor);
        }
    }
    if (m_hover) {
        const QRectF row = m_viewport.regionRect({m_hover->row, m_hover->row + 1, 0, m_viewport.n()});
        draw.AddRectFilled(imPoint(row.topLeft()), imPoint(row.bottomRight()), IM_COL32(230, 97, 0, 40));
        const QRectF cell = m_viewport.cellRect({m_hover->row, m_hover->col});
        draw.AddRect(imPoint(cell.topLeft() - QPointF(1, 1)), imPoint(cell.bottomRight() + QPointF(1, 1)), IM_COL32(230, 97, 0, 255), 0.0f, 0, 2.0f);
    }
    draw.PopClipRect();
    // The frame lies outside the image, so the first and last rows and columns (global tokens) stay visible.
    draw.AddRect(ImVec2(topLeft.x - 1.0f, topLeft.y - 1.0f), ImVec2(bottomRight.x + 1.0f, bottomRight.y + 1.0f), IM_COL32(120, 120, 120, 255));
}

bool ImGuiLabWidget::event(QEvent* event) {
    if (m_bridge->handleEvent(event)) {
        update();
        return true;
    }
    return QOpenGLWidget::event(event);
}

void ImGuiLabWidget::showEvent(QShowEvent* event) {
    m_frameTimer.start();
    QOpenGLWidget::showEvent(event);
}

void ImGuiLabWidget::hideEvent(QHideEvent* event) {
    m_frameTimer.stop();
    QOpenGLWidget::hideEvent(event);
}

} // namespace attnlab
