#include "app/python/python_args.h"

#include "core/errors.h"
#include "core/registry.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <sstream>

namespace py = pybind11;

namespace attnlab {

namespace {

std::string valueText(const py::handle& value) {
    if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
        std::string text;
        for (const auto item : value)
            text += (text.empty() ? "" : ",") + valueText(item);
        return text;
    }
    return py::str(value).cast<std::string>();
}

bool isParameter(const std::vector<const VariantInfo*>& variants, const std::string& key) {
    return std::any_of(variants.begin(), variants.end(), [&](const VariantInfo* variant) {
        return std::any_of(variant->params.begin(), variant->params.end(),
                           [&](const ParamSpec& spec) { return spec.key == key; });
    });
}

} // namespace

std::vector<const VariantInfo*> knownVariants(const py::handle& ids) {
    std::vector<const VariantInfo*> known;
    if (ids.is_none()) return known;
    std::vector<std::string> names;
    if (py::isinstance<py::str>(ids)) {
        std::stringstream list(ids.cast<std::string>());
        for (std::string name; std::getline(list, name, ',');) names.push_back(name);
    } else if (py::isinstance<py::list>(ids) || py::isinstance<py::tuple>(ids)) {
        for (const auto item : ids)
            if (py::isinstance<py::str>(item)) names.push_back(item.cast<std::string>());
    }
    for (const std::string& name : names)
        if (const VariantInfo* variant = findVariant(name)) known.push_back(variant);
    return known;
}

std::vector<std::string> optionArgs(const py::dict& keywords, const std::vector<const VariantInfo*>& variants,
                                    const std::set<std::string>& repeated) {
    std::vector<std::string> args;
    for (const auto& [keyObject, value] : keywords) {
        const std::string key = keyObject.cast<std::string>();
        if (value.is_none()) continue;
        if (isParameter(variants, key)) {
            args.push_back("--set");
            args.push_back(key + "=" + valueText(value));
            continue;
        }
        std::string option = "--" + key;
        std::replace(option.begin(), option.end(), '_', '-');
        if (py::isinstance<py::bool_>(value)) {
            if (value.cast<bool>()) args.push_back(option);
        } else if (repeated.count(key) &&
                   (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value))) {
            for (const auto item : value) {
                args.push_back(option);
                args.push_back(valueText(item));
            }
        } else {
            args.push_back(option);
            args.push_back(valueText(value));
        }
    }
    return args;
}

const VariantInfo& namedVariant(const py::handle& id) {
    if (!py::isinstance<py::str>(id))
        throw InputError("the variant is named by its id, a string (see attnlab.variants())");
    return requireVariant(id.cast<std::string>());
}

std::string capturedOutput(const std::function<void()>& print) {
    // Calls that release the GIL (bench) may capture from several threads: one at a time.
    static std::mutex capturing;
    const std::lock_guard<std::mutex> lock(capturing);
    char* buffer = nullptr;
    std::size_t size = 0;
    std::FILE* capture = open_memstream(&buffer, &size);
    if (!capture) throw std::bad_alloc();
    std::fflush(stdout);
    std::FILE* const console = stdout;
    auto finish = [&] {
        stdout = console;
        std::fclose(capture);
        const std::unique_ptr<char, decltype(&std::free)> owned(buffer, &std::free);
        return std::string(buffer, size);
    };
    stdout = capture; // glibc's stdout is an assignable variable
    try {
        print();
    } catch (...) {
        finish();
        throw;
    }
    return finish();
}

py::object parsedJson(const std::string& text) {
    return py::module_::import("json").attr("loads")(text);
}

} // namespace attnlab
