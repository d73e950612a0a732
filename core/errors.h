#pragma once

#include <stdexcept>
#include <string>

namespace attnlab {

// Thrown for anything the user can fix: a bad id, key, value, shape or file. The message is one
// line, names the problem and is shown as is by the command line and the GUI.
class InputError : public std::runtime_error {
public:
    explicit InputError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace attnlab
