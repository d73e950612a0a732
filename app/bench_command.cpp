#include "app/commands.h"

#include "core/errors.h"

namespace attnlab {

int benchCommand(const std::vector<std::string>&) { throw InputError("attnlab bench: not built yet"); }

} // namespace attnlab
