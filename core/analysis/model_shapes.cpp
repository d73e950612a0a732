#include "core/analysis/model_shapes.h"

#include "core/errors.h"

#include <algorithm>
#include <cstdio>

namespace attnlab {

const std::vector<ModelShape>& modelShapes() {
    static const std::vector<ModelShape> shapes = {
        {"bert-base", "BERT-base", 12, 12, 64, 12, 512, 0, {3072, false}, KvDtype::F32},
        {"gpt2-small", "GPT-2 small", 12, 12, 64, 12, 1024, 0, {3072, false}, KvDtype::F32},
        {"llama2-7b", "LLaMA-2-7B", 32, 32, 128, 32, 4096, 0, {11008, true}, KvDtype::F16},
        {"llama2-70b", "LLaMA-2-70B", 64, 8, 128, 80, 4096, 0, {28672, true}, KvDtype::F16},
        {"mistral-7b", "Mistral-7B", 32, 8, 128, 32, 8192, 4096, {14336, true}, KvDtype::BF16},
        {"llama3-8b", "LLaMA-3-8B", 32, 8, 128, 32, 8192, 0, {14336, true}, KvDtype::BF16},
    };
    return shapes;
}

const ModelShape& requireModelShape(const std::string& id) {
    std::string ids;
    for (const ModelShape& shape : modelShapes()) {
        if (shape.id == id) return shape;
        ids += (ids.empty() ? "" : ", ") + shape.id;
    }
    throw InputError("--model: unknown model '" + id + "' (known: " + ids +
                     "; --model list shows their shapes)");
}

std::string modelShapesListing() {
    std::string text;
    for (const ModelShape& shape : modelShapes()) {
        char line[256];
        std::snprintf(
            line, sizeof line,
            "%-11s %-12s h=%-3d h_kv=%-3d d=%-4lld layers=%-3lld n=%-6lld ffn=%lld%s window=%s cache=%s\n",
            shape.id.c_str(), shape.name.c_str(), shape.heads, shape.kvHeads, static_cast<long long>(shape.d),
            static_cast<long long>(shape.layers), static_cast<long long>(shape.contextLength),
            static_cast<long long>(shape.ffn.width), shape.ffn.gated ? " (gated)" : "",
            shape.slidingWindow > 0 ? std::to_string(shape.slidingWindow).c_str() : "none",
            kvDtypeName(shape.kvDtype).c_str());
        text += line;
    }
    return text;
}

LabSettings withModelShape(const LabSettings& settings, const ModelShape& model) {
    LabSettings applied = settings;
    applied.heads = model.heads;
    applied.kvHeads = model.kvHeads == model.heads ? 0 : model.kvHeads;
    applied.d = model.d;
    applied.modelLayers = model.layers;
    applied.n = model.contextLength;
    applied.kvDtype = kvDtypeName(model.kvDtype);
    applied.head = std::min(applied.head, model.heads - 1);
    applied.queries = std::min(applied.queries, applied.n);
    return applied;
}

} // namespace attnlab
