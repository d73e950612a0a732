#pragma once

class QObject;

namespace attnlab {

// Makes the mouse wheel change a spin box, combo box or slider only while it has keyboard focus (a
// click or Tab gives it); otherwise the wheel scrolls what contains it (the parameter panel), so
// scrolling past a field never changes its value. Installed once for the whole application.
void installWheelGuard();

// True when `watched` is a field the guard keeps from taking unfocused wheel events.
bool wheelGuarded(const QObject* watched);

} // namespace attnlab
