#include "views/animation/animation_sweep.h"

#include "views/figures/figure_limits.h"

#include "core/analysis/animation_range.h"
#include "core/analysis/settings_check.h"
#include "core/errors.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// The translation context of the frames' labels.
struct Animation {
    Q_DECLARE_TR_FUNCTIONS(Animation)
};

// The largest new-token position the inference view's context axis reaches.
constexpr std::int64_t kLastDecodePosition = (std::int64_t{1} << 24) - 2;

// With a grid n is the grid's cell count, which every frame must keep: only the timing view sweeps n
// there (over the grid's scaled copies, measured once).
std::vector<std::string> ownParams(const QString& view, const LabSettings& settings) {
    std::vector<std::string> params;
    if (view == QLatin1String("pattern")) params = {"n", "d", "h", "h_kv", "query", "decode"};
    if (view == QLatin1String("reach")) params = {"n", "layers"};
    if (view == QLatin1String("timing")) return {"n"};
    if (view == QLatin1String("flops") || view == QLatin1String("roofline")) params = {"n", "d", "h", "h_kv"};
    if (view == QLatin1String("accuracy")) params = {"n", "d", "input_scale"};
    if (view == QLatin1String("inference")) params = {"decode", "d", "h", "h_kv", "model_layers"};
    if (settings.grid.empty()) return params;
    std::erase(params, "n");
    if (view == QLatin1String("reach")) params.emplace_back("query"); // the query cell
    return params;
}

bool takesVariantParams(const QString& view) {
    return view != QLatin1String("timing") && view != QLatin1String("accuracy");
}

// The integer parameters of the chosen variants, each once.
std::vector<std::string> variantParams(const LabSettings& settings) {
    std::vector<std::string> keys;
    for (const VariantChoice& choice : chosenVariants(settings))
        if (const VariantInfo* variant = findVariant(choice.variant))
            for (const ParamSpec& spec : variant->params)
                if (spec.type == ParamType::Integer &&
                    std::find(keys.begin(), keys.end(), spec.key) == keys.end())
                    keys.push_back(spec.key);
    return keys;
}

bool isOwnParam(const std::string& param) {
    for (const char* name :
         {"n", "d", "h", "h_kv", "layers", "model_layers", "input_scale", "query", "decode"})
        if (param == name) return true;
    return false;
}

std::string joined(const std::vector<std::string>& items) {
    std::string text;
    for (const std::string& item : items)
        text += (text.empty() ? "" : ", ") + item;
    return text;
}

// Each compared variant that has `key` takes `value`; a single variant takes it as its own.
void setVariantParam(LabSettings& settings, const std::string& key, const std::string& value) {
    if (settings.compareVariants.empty()) {
        settings.params[key] = value;
        return;
    }
    const std::vector<VariantChoice> choices = chosenVariants(settings);
    settings.compareParams.clear();
    for (const VariantChoice& choice : choices) {
        ParamOverrides own = choice.params;
        const VariantInfo* variant = findVariant(choice.variant);
        if (variant && std::any_of(variant->params.begin(), variant->params.end(),
                                   [&](const ParamSpec& spec) { return spec.key == key; }))
            own[key] = value;
        settings.compareParams.push_back(own);
    }
}

std::int64_t frameInteger(const AnimationSweep& sweep, std::size_t index) {
    return std::llround(sweep.values[index]);
}

// The range `value` must lie in, and the frame's other checks, as one line; empty when it is fine.
std::string valueProblem(const AnimationSweep& sweep, const AnimationFrameState& frame, double value) {
    const LabSettings& s = frame.settings;
    const std::string& p = sweep.param;
    const auto outside = [value](double low, double high) { return !(value >= low && value <= high); };
    if (p == "n" && sweep.view == QLatin1String("timing"))
        return outside(64, 65536) ? "the timing view measures n = 64 … 65536" : "";
    if (p == "n") return outside(1, 65536) ? "n must be 1 … 65536" : "";
    if (p == "d") return outside(1, 4096) ? "d must be 1 … 4096" : "";
    if (p == "h") return outside(1, 256) ? "h must be 1 … 256" : "";
    if (p == "h_kv") return outside(1, s.heads) ? "h_kv must be 1 … h = " + std::to_string(s.heads) : "";
    if (p == "layers") return outside(1, 64) ? "layers must be 1 … 64" : "";
    if (p == "model_layers") return outside(1, 1024) ? "model_layers must be 1 … 1024" : "";
    if (p == "input_scale")
        return outside(kMinInputScale, kMaxInputScale) ? "input_scale must be 1/64 … 16" : "";
    if (p == "query") {
        const double cells = s.grid.empty() ? static_cast<double>(s.n)
                                            : static_cast<double>(makeTokenGrid(s.grid, s.order)->cells());
        return outside(0, cells - 1)
                   ? "the query must be a position 0 … " + std::to_string(static_cast<long long>(cells) - 1)
                   : "";
    }
    if (p == "decode" && sweep.view == QLatin1String("pattern")) {
        if (!askedCausal(s)) return "decoding steps play the causal pattern: add --causal";
        return outside(0, static_cast<double>(s.n - 1))
                   ? "the new token's position must be 0 … n − 1 = " + std::to_string(s.n - 1)
                   : "";
    }
    if (p == "decode")
        return outside(0, static_cast<double>(kLastDecodePosition))
                   ? "the new token's position must be 0 … 2^24 − 2"
                   : "";
    return "";
}

// Every check a frame's settings must pass before any frame is drawn.
void requireFrame(const AnimationSweep& sweep, const AnimationFrameState& frame, double value) {
    std::string problem = valueProblem(sweep, frame, value);
    if (problem.empty() && frame.settings.compareVariants.empty())
        problem = causalSupportProblem(requireVariant(frame.settings.variant), frame.settings.causal);
    if (problem.empty()) problem = settingsProblem(frame.settings);
    if (problem.empty() && frame.settings.heads % std::max(1, frame.settings.kvHeads) != 0)
        problem = "h_kv = " + std::to_string(frame.settings.kvHeads) +
                  " must divide h = " + std::to_string(frame.settings.heads);
    if (problem.empty()) {
        try {
            requireFigureLimits(sweep.view, frame.settings);
        } catch (const InputError& error) {
            problem = error.what();
        }
    }
    if (!problem.empty())
        throw InputError("--animate " + sweep.param + "=" + sweep.range + ": at " + sweep.param + " = " +
                         animationValueText(value, sweep.integral) + ": " + problem);
}

} // namespace

std::vector<std::string> animationParams(const QString& view, const LabSettings& settings) {
    std::vector<std::string> params = ownParams(view, settings);
    if (takesVariantParams(view))
        for (const std::string& key : variantParams(settings))
            if (!isOwnParam(key)) params.push_back(key);
    return params;
}

AnimationSweep parseAnimationSweep(const QString& view, const LabSettings& base, const std::string& option) {
    const AnimationOption split = splitAnimationOption(option);
    const std::vector<std::string> params = animationParams(view, base);
    if (std::find(params.begin(), params.end(), split.param) == params.end()) {
        std::string why =
            "the " + view.toStdString() + " view has no parameter '" + split.param + "' to animate";
        if (split.param == "n" && !base.grid.empty())
            why = "n is the grid's cell count here (" + base.grid + "): animate another parameter";
        throw InputError("--animate: " + why + " (it animates: " + joined(params) + ")");
    }
    AnimationSweep sweep{view, split.param, split.range, {}, split.param != "input_scale"};
    sweep.values = animationValues(split.param, split.range, sweep.integral);
    for (std::size_t k = 0; k < sweep.values.size(); ++k)
        requireFrame(sweep, animationFrameState(sweep, base, k), sweep.values[k]);
    return sweep;
}

AnimationFrameState animationFrameState(const AnimationSweep& sweep, const LabSettings& base,
                                        std::size_t index) {
    AnimationFrameState frame{base, {}};
    LabSettings& s = frame.settings;
    const std::string& p = sweep.param;
    const std::int64_t value = frameInteger(sweep, index);
    if (p == "n" && sweep.view == QLatin1String("timing")) {
        // One measurement covers the whole sweep; each frame shows its points up to the frame's n.
        s.timingMaxN = std::llround(*std::max_element(sweep.values.begin(), sweep.values.end()));
        frame.mark.timingUpTo = value;
    } else if (p == "n") {
        s.n = value;
    } else if (p == "d") {
        s.d = value;
    } else if (p == "h") {
        if (base.kvHeads <= 0 || base.kvHeads == base.heads)
            s.kvHeads = static_cast<int>(value); // multi-head stays multi-head
        s.heads = static_cast<int>(value);
        s.head = std::min<int>(s.head, s.heads - 1);
    } else if (p == "h_kv") {
        s.kvHeads = static_cast<int>(value);
    } else if (p == "layers") {
        s.layers = value;
    } else if (p == "model_layers") {
        s.modelLayers = value;
    } else if (p == "input_scale") {
        s.accuracyInputScale = sweep.values[index];
    } else if (p == "query") {
        if (s.grid.empty())
            frame.mark.queryRow = value;
        else
            s.gridQuery = value;
    } else if (p == "decode") {
        frame.mark.decodeStep = value;
    } else {
        setVariantParam(s, p, std::to_string(value));
    }
    return frame;
}

QString animationFrameLabel(const AnimationSweep& sweep, std::size_t index) {
    const QString value = QString::fromStdString(animationValueText(sweep.values[index], sweep.integral));
    const std::string& p = sweep.param;
    if (p == "n" && sweep.view == QLatin1String("timing"))
        return Animation::tr("measured up to n = %1").arg(value);
    if (p == "h") return Animation::tr("h = %1 heads").arg(value);
    if (p == "h_kv") return Animation::tr("h_kv = %1 key/value heads").arg(value);
    if (p == "layers") return Animation::tr("layers L = %1").arg(value);
    if (p == "model_layers") return Animation::tr("model layers L = %1").arg(value);
    if (p == "input_scale") return Animation::tr("input scale s = %1").arg(value);
    if (p == "query")
        return sweep.view == QLatin1String("pattern") ? Animation::tr("query row i = %1").arg(value)
                                                      : Animation::tr("query cell at position %1").arg(value);
    if (p == "decode") return Animation::tr("decoding step: the new token at position t = %1").arg(value);
    return QStringLiteral("%1 = %2").arg(QString::fromStdString(p), value);
}

} // namespace attnlab
