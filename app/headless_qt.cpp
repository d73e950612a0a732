#include "app/headless_qt.h"

#include "core/errors.h"
#include "core/io/output_file.h"

#include <QByteArray>
#include <QString>
#include <QtGlobal>

#include <cstdio>

namespace attnlab {

namespace {

QtMessageHandler g_qtHandler = nullptr;

void dropNotes(QtMsgType type, const QMessageLogContext& context, const QString& message) {
    if (type != QtCriticalMsg && type != QtFatalMsg) return;
    if (g_qtHandler)
        g_qtHandler(type, context, message);
    else
        std::fprintf(stderr, "%s\n", qPrintable(message));
}

} // namespace

void useOffscreenWithoutDisplay() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

void quietQtMessages() {
    const QtMessageHandler previous = qInstallMessageHandler(dropNotes);
    if (previous != dropNotes) g_qtHandler = previous;
}

void checkOutputPath(const std::string& command, const std::string& path) {
    try {
        requireReplaceableTarget(path);
    } catch (const InputError& error) {
        throw InputError(command + ": " + error.what());
    }
}

} // namespace attnlab
