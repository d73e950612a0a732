#pragma once

#include "core/analysis/lab_settings.h"

#include <QByteArray>
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

// Limits on what a session may hold, checked before the work they would cause (a session is a few KiB).
inline constexpr qint64 kMaxSessionBytes = 1 << 20;
inline constexpr qsizetype kMaxSessionText = 4096;     // characters of one text: a path, a name, a value
inline constexpr qsizetype kMaxSessionParams = 256;    // keys of one parameter object
inline constexpr qsizetype kMaxSessionListItems = 64;  // entries of 'compare' and 'compare_params'

// Session files: {"format": "attnlab-session", "version": 1, "view": ..., "settings": {...}}.
// Saving goes through writeWholeFiles: atomic, only a regular file is replaced, never the NPY files the
// session reads; errors throw InputError.
void saveSession(const QString& path, const Session& session);
// Reads a session file: a regular file of at most kMaxSessionBytes (checked before reading); with NPY
// input, Q (and K, V when given) must be NPY files (their headers are checked, not their data).
Session loadSession(const QString& path);
// The same checks on the bytes of a session file, except those of the NPY files it names; `name`
// prefixes the messages.
Session parseSession(const QByteArray& bytes, const QString& name);

} // namespace attnlab
