#include "views/imgui_lab.h"

#include "views/imgui_qt_bridge.h"

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>

namespace attnlab {

class ImGuiLab::Canvas {};

ImGuiLab::ImGuiLab(QWidget* parent) : QOpenGLWidget(parent) {
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGui::GetIO().IniFilename = nullptr;
    m_bridge = std::make_unique<ImGuiQtBridge>(m_context);
    ImGui::SetCurrentContext(previous);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    m_frameTimer.setInterval(16);
    connect(&m_frameTimer, &QTimer::timeout, this, qOverload<>(&QWidget::update));
}

ImGuiLab::~ImGuiLab() {
    releaseGl();
    ImGui::DestroyContext(m_context);
}

void ImGuiLab::setSettings(const LabSettings& settings) { m_settings = settings; }

bool ImGuiLab::openGlAvailable() {
    static const bool available = [] {
        const QString platform = QGuiApplication::platformName();
        if (platform == "offscreen" || platform == "minimal")
            return false;
        QOpenGLContext context;
        if (!context.create())
            return false;
        return context.format().majorVersion() >= 3;
    }();
    return available;
}

bool ImGuiLab::densityPending() const { return false; }

void ImGuiLab::setCanvasView(const CanvasView& view) {
    m_view = view;
    m_fitPending = false;
}

void ImGuiLab::fitCanvas() { m_fitPending = true; }

void ImGuiLab::initializeGL() {
    ImGui::SetCurrentContext(m_context);
    m_rendererReady = ImGui_ImplOpenGL3_Init();
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &ImGuiLab::releaseGl);
}

void ImGuiLab::releaseGl() {
    if (!m_rendererReady)
        return;
    makeCurrent();
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    m_rendererReady = false;
    doneCurrent();
}

void ImGuiLab::paintGL() {
    if (!m_rendererReady)
        return;
    m_bridge->beginFrame(size(), devicePixelRatioF());
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    buildFrame();
    ImGui::Render();
    QOpenGLContext::currentContext()->functions()->glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

void ImGuiLab::buildFrame() {
    LabSettings edited = m_settings;
    drawControls(edited);
    drawCanvas();
    if (edited != m_settings) {
        m_settings = edited;
        emit settingsEdited(m_settings);
    }
}

void ImGuiLab::drawControls(LabSettings&) {}

void ImGuiLab::drawCanvas() {}

bool ImGuiLab::event(QEvent* event) {
    if (m_bridge->handleEvent(event))
        return true;
    return QOpenGLWidget::event(event);
}

void ImGuiLab::showEvent(QShowEvent* event) {
    m_frameTimer.start();
    QOpenGLWidget::showEvent(event);
}

void ImGuiLab::hideEvent(QHideEvent* event) {
    m_frameTimer.stop();
    QOpenGLWidget::hideEvent(event);
}

} // namespace attnlab
