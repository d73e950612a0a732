#include "app/model_option.h"

#include <algorithm>

namespace attnlab {

const ModelShape* modelOption(const CliArgs& cli) {
    const auto name = cli.value("--model");
    return name ? &requireModelShape(*name) : nullptr;
}

bool listsModels(const std::vector<std::string>& args) {
    for (std::size_t k = 0; k + 1 < args.size(); ++k)
        if (args[k] == "--model" && args[k + 1] == "list") return true;
    return false;
}

std::pair<std::string, ParamOverrides> modelAttention(const ModelShape& model) {
    if (model.slidingWindow <= 0) return {"full", {}};
    return {"longformer", {{"window", std::to_string(2 * (model.slidingWindow - 1))}}};
}

} // namespace attnlab
