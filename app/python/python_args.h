#pragma once

// The module's keyword arguments as the command line's options, so that every option is read and
// checked by the subcommand's own readers (docs/python.md: keywords are named as on the command line).

#include <pybind11/pybind11.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace attnlab {

struct VariantInfo;

// `name=value` keywords as options: `kv_heads=2` is `--kv-heads 2`, True a bare flag (`--causal`), False
// and None leave the option out, a list or tuple is joined by commas (`grid=(16, 16)` is `--grid 16,16`)
// except for the `repeated` options, given once per item. A keyword that is a parameter of one of
// `variants` is `--set KEY=VALUE` (True and False as true and false).
std::vector<std::string> optionArgs(const pybind11::dict& keywords, const std::vector<const VariantInfo*>& variants,
                                    const std::set<std::string>& repeated = {});

// The known variants among ids given as one string ("full,longformer") or a list of strings; the others
// are left to the command's reader to refuse.
std::vector<const VariantInfo*> knownVariants(const pybind11::handle& ids);

// The variant a call names (InputError listing the known ids for an unknown one).
const VariantInfo& namedVariant(const pybind11::handle& id);

// What `print` writes on stdout while it runs, instead of printing it: the subcommands print their JSON
// there. One capture at a time; C code in another thread printing through stdout meanwhile is caught too.
std::string capturedOutput(const std::function<void()>& print);

// The JSON text as Python objects.
pybind11::object parsedJson(const std::string& text);

} // namespace attnlab
