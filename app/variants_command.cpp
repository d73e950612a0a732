#include "app/cli_args.h"
#include "app/commands.h"

#include "core/io/json_writer.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

constexpr const char* kVariantsHelp = R"(usage: attnlab variants [--json]

Lists every attention variant with its parameters (key, type, default, range) and causal support.
Defaults that depend on the sequence length n or head size d are written as formulas.
)";

// Constant defaults are written as typed JSON values, the others as their formula. `earlier` holds the
// defaults of the keys before this one at n = d = 1, as resolveParams would see them.
void writeDefault(JsonWriter& json, const ParamSpec& spec, ParamSet& earlier) {
    const ParamValue probe = spec.defaultValue({1, 1}, earlier);
    earlier.set(spec.key, probe);
    const auto* list = std::get_if<std::vector<std::int64_t>>(&probe);
    if (list && list->empty()) {
        json.beginArray().endArray();
    } else if (paramValueText(probe) != spec.defaultText) {
        json.value(spec.defaultText);
    } else if (const auto* number = std::get_if<std::int64_t>(&probe)) {
        json.value(static_cast<double>(*number));
    } else if (const auto* flag = std::get_if<bool>(&probe)) {
        json.value(*flag);
    } else {
        json.value(spec.defaultText);
    }
}

std::string variantsJson() {
    JsonWriter json;
    json.beginObject().key("variants").beginArray();
    for (const auto& variant : allVariants()) {
        json.beginObject();
        json.key("id").value(variant.id);
        json.key("name").value(variant.displayName);
        json.key("family").value(variant.family);
        json.key("summary").value(variant.summary);
        json.key("causal_support").value(causalSupportName(variant.causalSupport));
        json.key("causal").value(variant.causalSupport != CausalSupport::BidirectionalOnly);
        json.key("bidirectional").value(variant.causalSupport != CausalSupport::CausalOnly);
        json.key("data_dependent_pattern").value(variant.dataDependentPattern);
        json.key("params").beginArray();
        ParamSet earlier;
        for (const auto& spec : variant.params) {
            json.beginObject();
            json.key("key").value(spec.key);
            json.key("type").value(paramTypeName(spec.type));
            json.key("default");
            writeDefault(json, spec, earlier);
            json.key("default_text").value(spec.defaultText);
            json.key("range").value(spec.rangeText);
            if (spec.minValue) json.key("min").value(static_cast<double>(*spec.minValue));
            if (!spec.choices.empty()) {
                json.key("choices").beginArray();
                for (const auto& choice : spec.choices) json.value(choice);
                json.endArray();
            }
            json.key("description").value(spec.description);
            json.endObject();
        }
        json.endArray();
        json.key("accuracy_sweeps").beginArray();
        for (const auto& sweep : variant.accuracySweeps) {
            json.beginObject();
            json.key("family").value(sweep.family);
            json.key("label").value(sweep.label);
            json.key("parameter").value(sweep.parameter);
            json.key("axis").value(sweep.axis);
            json.key("note").value(sweep.note);
            json.endObject();
        }
        json.endArray();
        json.key("component_names").beginArray();
        for (const std::string& name : variant.componentNames) json.value(name);
        json.endArray().endObject();
    }
    json.endArray().endObject();
    return json.str();
}

} // namespace

int variantsCommand(const std::vector<std::string>& args) {
    if (asksForHelp(args)) {
        std::fputs(kVariantsHelp, stdout);
        return 0;
    }
    const CliArgs cli("variants", args, {}, {"--json"});
    if (cli.flag("--json")) {
        std::printf("%s\n", variantsJson().c_str());
        return 0;
    }
    for (const auto& variant : allVariants()) {
        std::printf("%-12s %-30s [%s] %s\n", variant.id.c_str(), variant.displayName.c_str(),
                    causalSupportName(variant.causalSupport).c_str(), variant.summary.c_str());
        for (const auto& spec : variant.params)
            std::printf("    %-11s %-10s default %-24s range %s\n", spec.key.c_str(), paramTypeName(spec.type).c_str(),
                        spec.defaultText.c_str(), spec.rangeText.c_str());
    }
    return 0;
}

} // namespace attnlab
