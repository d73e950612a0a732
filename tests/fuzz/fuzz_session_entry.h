#pragma once

// The session loader's fuzz entry point (Qt Core), shared by the libFuzzer target fuzz_session and the
// deterministic mutation run in tests/gui/test_session_limits.cpp: the bytes as a session file through
// parseSession (every check of loadSession but those of the NPY files it names). A refusal is
// InputError; a parsed session must survive a save-format round trip unchanged (else std::abort).

#include "views/shell/session_file.h"

#include "core/errors.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace attnlab::fuzz {

inline void sessionInput(const std::uint8_t* data, std::size_t size) {
    try {
        const QByteArray bytes(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
        const Session session = parseSession(bytes, QStringLiteral("input"));
        if (settingsFromJson(settingsToJson(session.settings)) != session.settings) std::abort();
    } catch (const InputError&) {
    }
}

} // namespace attnlab::fuzz
