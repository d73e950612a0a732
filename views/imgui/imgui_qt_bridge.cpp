#include "views/imgui/imgui_qt_bridge.h"

#include <imgui.h>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cfloat>
#include <utility>

namespace attnlab {

namespace {

// ImGui 1.86 reads named keys through io.KeyMap[ImGuiKey_X] = index into io.KeysDown[]. The bridge
// uses the ImGuiKey_ value itself as that index.
constexpr std::array<std::pair<Qt::Key, ImGuiKey>, ImGuiKey_COUNT> namedKeys{{
    {Qt::Key_Tab, ImGuiKey_Tab},         {Qt::Key_Left, ImGuiKey_LeftArrow},
    {Qt::Key_Right, ImGuiKey_RightArrow}, {Qt::Key_Up, ImGuiKey_UpArrow},
    {Qt::Key_Down, ImGuiKey_DownArrow},   {Qt::Key_PageUp, ImGuiKey_PageUp},
    {Qt::Key_PageDown, ImGuiKey_PageDown}, {Qt::Key_Home, ImGuiKey_Home},
    {Qt::Key_End, ImGuiKey_End},          {Qt::Key_Insert, ImGuiKey_Insert},
    {Qt::Key_Delete, ImGuiKey_Delete},    {Qt::Key_Backspace, ImGuiKey_Backspace},
    {Qt::Key_Space, ImGuiKey_Space},      {Qt::Key_Return, ImGuiKey_Enter},
    {Qt::Key_Escape, ImGuiKey_Escape},    {Qt::Key_Enter, ImGuiKey_KeyPadEnter},
    {Qt::Key_A, ImGuiKey_A},              {Qt::Key_C, ImGuiKey_C},
    {Qt::Key_V, ImGuiKey_V},              {Qt::Key_X, ImGuiKey_X},
    {Qt::Key_Y, ImGuiKey_Y},              {Qt::Key_Z, ImGuiKey_Z},
}};

// ImGui's mouse button indices: 0 left, 1 right, 2 middle, 3 and 4 extra.
int imguiButton(Qt::MouseButton button) {
    switch (button) {
    case Qt::LeftButton: return 0;
    case Qt::RightButton: return 1;
    case Qt::MiddleButton: return 2;
    case Qt::BackButton: return 3;
    case Qt::ForwardButton: return 4;
    default: return -1;
    }
}

// Qt reports wheel rotation in eighths of a degree; one notch is 15 degrees = 120 units, which is
// one ImGui wheel unit.
constexpr float wheelUnitsPerNotch = 120.0f;

// ImGui requires a strictly positive frame time.
constexpr float minimumDeltaSeconds = 1.0f / 1000.0f;

} // namespace

ImGuiQtBridge::ImGuiQtBridge(ImGuiContext* context) : m_context(context) {
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    for (const auto& [qtKey, imguiKey] : namedKeys)
        io.KeyMap[imguiKey] = imguiKey;
    io.BackendPlatformName = "attnlab_qt";
    io.BackendFlags |= ImGuiBackendFlags_HasMouseCursors;
}

void ImGuiQtBridge::makeCurrent() const { ImGui::SetCurrentContext(m_context); }

bool ImGuiQtBridge::handleEvent(QEvent* event) {
    switch (event->type()) {
    case QEvent::MouseMove:
        handleMouseMove(*static_cast<QMouseEvent*>(event));
        return true;
    case QEvent::MouseButtonPress:
    case QEvent::MouseButtonDblClick:
        handleMouseButton(*static_cast<QMouseEvent*>(event), true);
        return true;
    case QEvent::MouseButtonRelease:
        handleMouseButton(*static_cast<QMouseEvent*>(event), false);
        return true;
    case QEvent::Wheel:
        handleWheel(*static_cast<QWheelEvent*>(event));
        return true;
    case QEvent::KeyPress:
        return handleKey(*static_cast<QKeyEvent*>(event), true);
    case QEvent::KeyRelease:
        return handleKey(*static_cast<QKeyEvent*>(event), false);
    case QEvent::ShortcutOverride:
        if (!wantsKeyboard()) return false;
        event->accept();
        return true;
    case QEvent::FocusIn:
        handleFocus(true);
        return false;
    case QEvent::FocusOut:
        handleFocus(false);
        return false;
    case QEvent::Leave:
        handleLeave();
        return false;
    default:
        return false;
    }
}

void ImGuiQtBridge::handleMouseMove(const QMouseEvent& event) {
    makeCurrent();
    const QPointF position = event.position();
    ImGui::GetIO().MousePos = ImVec2(static_cast<float>(position.x()), static_cast<float>(position.y()));
    updateModifiers(event.modifiers());
}

void ImGuiQtBridge::handleMouseButton(const QMouseEvent& event, bool pressed) {
    handleMouseMove(event);
    const int button = imguiButton(event.button());
    if (button >= 0)
        ImGui::GetIO().MouseDown[button] = pressed;
}

void ImGuiQtBridge::handleWheel(const QWheelEvent& event) {
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    const QPointF position = event.position();
    io.MousePos = ImVec2(static_cast<float>(position.x()), static_cast<float>(position.y()));
    const QPoint steps = event.angleDelta();
    io.MouseWheel += static_cast<float>(steps.y()) / wheelUnitsPerNotch;
    io.MouseWheelH += static_cast<float>(steps.x()) / wheelUnitsPerNotch;
    updateModifiers(event.modifiers());
}

bool ImGuiQtBridge::handleKey(QKeyEvent& event, bool pressed) {
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    updateModifiers(event.modifiers());
    const auto named = std::find_if(namedKeys.begin(), namedKeys.end(),
                                    [&](const auto& entry) { return entry.first == event.key(); });
    if (named != namedKeys.end())
        io.KeysDown[named->second] = pressed;
    const QString text = event.text();
    const bool typesText = pressed && !text.isEmpty() && text.at(0).isPrint() &&
                           !(event.modifiers() & (Qt::ControlModifier | Qt::MetaModifier));
    if (typesText)
        io.AddInputCharactersUTF8(text.toUtf8().constData());
    // Left to Qt (shortcuts, focus chain) unless an ImGui text field or widget holds the keyboard.
    if (!wantsKeyboard()) {
        event.ignore();
        return false;
    }
    event.accept();
    return true;
}

bool ImGuiQtBridge::wantsKeyboard() const {
    makeCurrent();
    const ImGuiIO& io = ImGui::GetIO();
    return io.WantCaptureKeyboard || io.WantTextInput;
}

void ImGuiQtBridge::handleFocus(bool focused) {
    makeCurrent();
    ImGui::GetIO().AddFocusEvent(focused);
}

void ImGuiQtBridge::handleLeave() {
    makeCurrent();
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
}

void ImGuiQtBridge::updateModifiers(Qt::KeyboardModifiers modifiers) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = modifiers.testFlag(Qt::ControlModifier);
    io.KeyShift = modifiers.testFlag(Qt::ShiftModifier);
    io.KeyAlt = modifiers.testFlag(Qt::AltModifier);
    io.KeySuper = modifiers.testFlag(Qt::MetaModifier);
}

void ImGuiQtBridge::beginFrame(QSizeF logicalSize, qreal devicePixelRatio) {
    makeCurrent();
    ImGuiIO& io = ImGui::GetIO();
    io.DisplaySize = ImVec2(static_cast<float>(logicalSize.width()), static_cast<float>(logicalSize.height()));
    const auto scale = static_cast<float>(devicePixelRatio);
    io.DisplayFramebufferScale = ImVec2(scale, scale);
    const float seconds = m_frameClock.isValid() ? static_cast<float>(m_frameClock.nsecsElapsed()) * 1e-9f : 0.0f;
    io.DeltaTime = std::max(seconds, minimumDeltaSeconds);
    m_frameClock.restart();
}

Qt::CursorShape ImGuiQtBridge::cursorShape() const {
    makeCurrent();
    switch (ImGui::GetMouseCursor()) {
    case ImGuiMouseCursor_Arrow: return Qt::ArrowCursor;
    case ImGuiMouseCursor_TextInput: return Qt::IBeamCursor;
    case ImGuiMouseCursor_ResizeAll: return Qt::SizeAllCursor;
    case ImGuiMouseCursor_ResizeNS: return Qt::SizeVerCursor;
    case ImGuiMouseCursor_ResizeEW: return Qt::SizeHorCursor;
    case ImGuiMouseCursor_ResizeNESW: return Qt::SizeBDiagCursor;
    case ImGuiMouseCursor_ResizeNWSE: return Qt::SizeFDiagCursor;
    case ImGuiMouseCursor_Hand: return Qt::PointingHandCursor;
    case ImGuiMouseCursor_NotAllowed: return Qt::ForbiddenCursor;
    default: return Qt::BlankCursor;
    }
}

} // namespace attnlab
