#include "app/headless_qt.h"

#include "core/errors.h"

#include <QDir>
#include <QFileInfo>
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
    const QFileInfo target(QString::fromStdString(path));
    if (path.empty()) throw InputError(command + ": the output path is empty");
    if (target.isDir()) throw InputError(command + ": cannot write '" + path + "': it is a directory");
    if (!target.absoluteDir().exists())
        throw InputError(command + ": cannot write '" + path + "': the directory '" +
                         QDir::toNativeSeparators(target.absolutePath()).toStdString() + "' does not exist");
}

} // namespace attnlab
