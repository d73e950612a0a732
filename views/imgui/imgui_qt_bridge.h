#pragma once

#include <QElapsedTimer>
#include <QSizeF>
#include <Qt>

class QEvent;
class QKeyEvent;
class QMouseEvent;
class QWheelEvent;
struct ImGuiContext;

namespace attnlab {

// Feeds Qt input into one Dear ImGui context: mouse position (logical widget pixels, as ImGui's
// coordinates), buttons, wheel, keys with modifiers, text, focus, and per frame the display size,
// the device pixel ratio and the time since the previous frame. Makes its context current before
// touching ImGui's IO, so several widgets may each own a context.
class ImGuiQtBridge {
public:
    explicit ImGuiQtBridge(ImGuiContext* context);

    // Forwards mouse, wheel, key, text, focus and leave events. Returns true when the event is consumed:
    // mouse and wheel always; keys (and shortcut overrides) only while ImGui wants the keyboard, so Qt
    // shortcuts keep working otherwise; focus and leave are observed and left to Qt.
    bool handleEvent(QEvent* event);

    // Call once before ImGui::NewFrame(): display size in logical pixels and the framebuffer scale.
    void beginFrame(QSizeF logicalSize, qreal devicePixelRatio);

    // The Qt cursor matching ImGui's requested cursor (Qt::BlankCursor when ImGui draws its own or
    // asks for none).
    Qt::CursorShape cursorShape() const;

private:
    void makeCurrent() const;
    void handleMouseMove(const QMouseEvent& event);
    void handleMouseButton(const QMouseEvent& event, bool pressed);
    void handleWheel(const QWheelEvent& event);
    bool handleKey(QKeyEvent& event, bool pressed);
    bool wantsKeyboard() const;
    void handleFocus(bool focused);
    void handleLeave();
    void updateModifiers(Qt::KeyboardModifiers modifiers);

    ImGuiContext* m_context;
    QElapsedTimer m_frameClock;
};

} // namespace attnlab
