#pragma once

#include "core/analysis/lab_settings.h"

#include <QJsonObject>
#include <QString>

namespace attnlab {

// A saved session: every setting plus the view on screen.
struct Session {
    LabSettings settings;
    QString view = QStringLiteral("pattern");
    bool operator==(const Session&) const = default;
};

// JSON form of the settings; every field of LabSettings, parameter values as typed text.
QJsonObject settingsToJson(const LabSettings& settings);
// Missing keys keep their defaults; a key of the wrong type throws InputError naming it.
LabSettings settingsFromJson(const QJsonObject& json);

// Session files: {"format": "attnlab-session", "version": 1, "view": ..., "settings": {...}}.
// Saving is atomic (temporary file renamed over the destination); errors throw InputError.
void saveSession(const QString& path, const Session& session);
Session loadSession(const QString& path);

} // namespace attnlab
