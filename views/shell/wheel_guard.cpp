#include "views/shell/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QScrollBar>
#include <QWheelEvent>

namespace attnlab {

namespace {

class WheelGuard : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() != QEvent::Wheel || !wheelGuarded(watched)) return false;
        auto* field = static_cast<QWidget*>(watched);
        if (field->hasFocus()) return false;
        // Scroll the nearest scroll area instead; the field keeps its value.
        for (QWidget* parent = field->parentWidget(); parent; parent = parent->parentWidget())
            if (auto* area = qobject_cast<QAbstractScrollArea*>(parent)) {
                QCoreApplication::sendEvent(area->verticalScrollBar(), event);
                break;
            }
        return true;
    }
};

} // namespace

bool wheelGuarded(const QObject* watched) {
    if (!watched || !watched->isWidgetType()) return false;
    if (qobject_cast<const QScrollBar*>(watched)) return false; // scroll bars scroll: that is their job
    return qobject_cast<const QAbstractSpinBox*>(watched) || qobject_cast<const QComboBox*>(watched) ||
           qobject_cast<const QAbstractSlider*>(watched);
}

void installWheelGuard() {
    static WheelGuard* guard = nullptr;
    if (guard || !qApp) return;
    guard = new WheelGuard(qApp);
    qApp->installEventFilter(guard);
}

} // namespace attnlab
