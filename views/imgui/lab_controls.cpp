// The ImGui lab's controls: variant, shape, the variant's parameters (from the registry's schema) and
// the inputs, each edit applied to a copy of the settings the frame returns.
#include "views/imgui/imgui_lab_widget.h"

#include "views/imgui/lab_pattern_canvas.h"
#include "views/imgui/lab_style.h"

#include "views/i18n/language.h"

#include "core/errors.h"
#include "core/registry.h"

#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

namespace {

constexpr long long kMinN = 1, kMaxN = 65536;
constexpr long long kMinD = 1, kMaxD = 1024;
constexpr int kMaxHeads = 64;

std::vector<std::string> familiesInOrder() {
    std::vector<std::string> families;
    for (const auto& variant : allVariants())
        if (std::find(families.begin(), families.end(), variant.family) == families.end()) families.push_back(variant.family);
    return families;
}

// The value a parameter control shows: the resolved value when the settings are valid, else the
// user's text where it parses, else the default.
ParamValue shownValue(const ParamSpec& spec, const ParamOverrides& overrides, const ParamSet& resolvedOrDefaults) {
    const auto override = overrides.find(spec.key);
    if (override == overrides.end() || !resolvedOrDefaults.contains(spec.key)) {
        return resolvedOrDefaults.contains(spec.key) ? resolvedOrDefaults.values().at(spec.key) : ParamValue{std::string{}};
    }
    const std::string& text = override->second;
    switch (spec.type) {
    case ParamType::Integer:
        if (const auto parsed = parseInteger(text)) return *parsed;
        break;
    case ParamType::Boolean:
        if (text == "true" || text == "false") return text == "true";
        break;
    case ParamType::Choice:
    case ParamType::String:
    case ParamType::IndexList:
        return text;
    }
    return resolvedOrDefaults.values().at(spec.key);
}

// Slider range for an integer parameter: its static bounds, else its bound given the shape and the
// parameters before it, else a range that covers both n and twice the default.
std::pair<long long, long long> integerRange(const ParamSpec& spec, const ShapeContext& shape, const ParamSet& earlier,
                                             std::int64_t defaultValue) {
    const long long low = spec.minValue.value_or(0);
    if (spec.maxValue) return {low, *spec.maxValue};
    if (spec.dynamicMax && !earlier.values().empty())
        if (const auto high = spec.dynamicMax(shape, earlier)) return {low, std::max<long long>(*high, low)};
    return {low, std::max<long long>({shape.n, 2 * defaultValue, low + 1})};
}

std::string integerText(long long value) { return std::to_string(value); }

// Draws the control of one parameter; returns its new text when the user changed it.
std::optional<std::string> parameterControl(const ParamSpec& spec, const ParamValue& shown, std::pair<long long, long long> range) {
    const std::string label = spec.key + "##param";
    switch (spec.type) {
    case ParamType::Integer: {
        long long value = std::holds_alternative<std::int64_t>(shown) ? std::get<std::int64_t>(shown) : range.first;
        const ImGuiSliderFlags flags = range.second - range.first > 64 ? ImGuiSliderFlags_Logarithmic : 0;
        if (ImGui::SliderScalar(label.c_str(), ImGuiDataType_S64, &value, &range.first, &range.second, "%lld", flags))
            return integerText(value);
        return std::nullopt;
    }
    case ParamType::Boolean: {
        bool value = std::holds_alternative<bool>(shown) && std::get<bool>(shown);
        if (ImGui::Checkbox(label.c_str(), &value)) return std::string(value ? "true" : "false");
        return std::nullopt;
    }
    case ParamType::Choice: {
        const std::string current = paramValueText(shown);
        std::optional<std::string> chosen;
        if (ImGui::BeginCombo(label.c_str(), current.c_str())) {
            for (const auto& choice : spec.choices)
                if (ImGui::Selectable(choice.c_str(), choice == current)) chosen = choice;
            ImGui::EndCombo();
        }
        return chosen;
    }
    case ParamType::String:
    case ParamType::IndexList: {
        std::string text = paramValueText(shown);
        std::vector<char> buffer(text.begin(), text.end());
        buffer.resize(std::max<std::size_t>(buffer.size() + 1, 256), '\0');
        if (ImGui::InputText(label.c_str(), buffer.data(), buffer.size(), ImGuiInputTextFlags_EnterReturnsTrue))
            return std::string(buffer.data());
        return std::nullopt;
    }
    }
    return std::nullopt;
}

} // namespace

void ImGuiLabWidget::recordControl(const char* label, const QString& value) {
    const ImVec2 min = ImGui::GetItemRectMin();
    const ImVec2 max = ImGui::GetItemRectMax();
    m_controls.insert(QString::fromUtf8(label), ControlRecord{QRectF(QPointF(min.x, min.y), QPointF(max.x, max.y)), value});
}

void ImGuiLabWidget::drawControls(LabSettings& edited) {
    drawVariantChooser(edited);
    drawShapeControls(edited);
    m_error.clear();
    if (const VariantInfo* variant = findVariant(m_settings.variant)) {
        drawEditAsExpression(*variant, edited);
        drawParameterControls(*variant, edited);
        if (variant->dataDependentPattern) drawInputControls(edited);
    }
    const LabPattern& lab = m_canvas->pattern();
    if (m_error.isEmpty() && m_canvas->patternCurrent()) m_error = lab.error;
    if (!m_error.isEmpty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kLabErrorColor);
        ImGui::TextWrapped("%s", m_error.toUtf8().constData());
        ImGui::PopStyleColor();
    }
}

void ImGuiLabWidget::drawVariantChooser(LabSettings& edited) {
    const VariantInfo* current = findVariant(m_settings.variant);
    const std::string preview = current ? coreText(current->displayName).toStdString() : m_settings.variant;
    const bool open = ImGui::BeginCombo(labLabel(tr("variant"), "variant").c_str(), preview.c_str(), ImGuiComboFlags_HeightLarge);
    recordControl("variant", QString::fromStdString(m_settings.variant));
    if (open) {
        for (const std::string& family : familiesInOrder()) {
            ImGui::TextDisabled("%s", coreText(family).toUtf8().constData());
            for (const auto& variant : allVariants()) {
                if (variant.family != family) continue;
                const std::string label = "  " + coreText(variant.displayName).toStdString() + "##" + variant.id;
                if (ImGui::Selectable(label.c_str(), variant.id == m_settings.variant) && variant.id != m_settings.variant) {
                    edited.variant = variant.id;
                    edited.params.clear();
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", coreText(variant.summary).toUtf8().constData());
            }
        }
        ImGui::EndCombo();
    }
    if (current) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", coreText(current->summary).toUtf8().constData());
        ImGui::PopTextWrapPos();
    }
}

void ImGuiLabWidget::drawShapeControls(LabSettings& edited) {
    ImGui::Separator();
    long long n = m_settings.n;
    if (ImGui::SliderScalar("n", ImGuiDataType_S64, &n, &kMinN, &kMaxN, "%lld", ImGuiSliderFlags_Logarithmic))
        edited.n = std::clamp(n, kMinN, kMaxN);
    recordControl("n", QString::number(m_settings.n));
    long long d = m_settings.d;
    if (ImGui::SliderScalar("d", ImGuiDataType_S64, &d, &kMinD, &kMaxD, "%lld", ImGuiSliderFlags_Logarithmic))
        edited.d = std::clamp(d, kMinD, kMaxD);
    recordControl("d", QString::number(m_settings.d));
    int heads = m_settings.heads;
    if (ImGui::SliderInt(labLabel(tr("h (heads)"), "h").c_str(), &heads, 1, kMaxHeads)) {
        edited.heads = std::clamp(heads, 1, kMaxHeads);
        edited.head = std::min(edited.head, edited.heads - 1);
    }
    recordControl("h", QString::number(m_settings.heads));
    int head = m_settings.head;
    ImGui::BeginDisabled(m_settings.heads <= 1);
    if (ImGui::SliderInt(labLabel(tr("shown head"), "head").c_str(), &head, 0, std::max(0, m_settings.heads - 1))) edited.head = std::clamp(head, 0, m_settings.heads - 1);
    ImGui::EndDisabled();
    recordControl("head", QString::number(m_settings.head));

    const VariantInfo* variant = findVariant(m_settings.variant);
    const bool forced = variant && variant->causalSupport != CausalSupport::Both;
    bool causal = variant ? problemShape(m_settings, *variant).causal : m_settings.causal;
    ImGui::BeginDisabled(forced);
    if (ImGui::Checkbox(labLabel(tr("causal"), "causal").c_str(), &causal)) edited.causal = causal;
    ImGui::EndDisabled();
    recordControl("causal", causal ? "true" : "false");
    if (forced && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", (variant->causalSupport == CausalSupport::CausalOnly ? tr("this variant is causal only")
                                                                                      : tr("this variant is bidirectional only"))
                                    .toUtf8()
                                    .constData());
    drawGridControls(edited);
}

// The grid and order as --grid and --order take them (applied on Enter; a text that is not a grid is named
// and the settings keep the last valid one), and the grid query as a sequence position.
void ImGuiLabWidget::drawGridControls(LabSettings& edited) {
    const auto textField = [](const char* label, const std::string& current) -> std::optional<std::string> {
        std::vector<char> buffer(current.begin(), current.end());
        buffer.resize(std::max<std::size_t>(buffer.size() + 1, 64), '\0');
        if (ImGui::InputText(label, buffer.data(), buffer.size(), ImGuiInputTextFlags_EnterReturnsTrue)) return std::string(buffer.data());
        return std::nullopt;
    };
    const auto grid = textField(labLabel(tr("grid H,W"), "grid").c_str(), m_settings.grid);
    recordControl("grid", QString::fromStdString(m_settings.grid));
    const auto order = textField(labLabel(tr("order"), "order").c_str(), m_settings.order);
    recordControl("order", QString::fromStdString(m_settings.order));
    if (grid || order) {
        const std::string gridText = grid.value_or(m_settings.grid), orderText = order.value_or(m_settings.order);
        m_gridError.clear();
        try {
            if (gridText.empty() && !orderText.empty()) throw InputError("an order needs a grid");
            if (!gridText.empty()) {
                const TokenGridPtr parsed = makeTokenGrid(gridText, orderText);
                if (parsed->cells() > kMaxN) throw InputError("the grid " + parsed->sizeText() + " has more than 65536 cells");
                if (gridText != m_settings.grid) edited.gridQuery = -1;
                edited.n = parsed->cells(); // the grid gives n
            }
            edited.grid = gridText;
            edited.order = orderText;
        } catch (const InputError& error) {
            m_gridError = QString::fromStdString(error.what());
        }
    }
    if (!m_gridError.isEmpty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kLabErrorColor);
        ImGui::TextWrapped("%s", m_gridError.toUtf8().constData());
        ImGui::PopStyleColor();
    }
    if (m_settings.grid.empty()) return;
    long long query = m_settings.gridQuery;
    const long long lowest = -1, highest = std::max<long long>(0, m_settings.n - 1);
    if (ImGui::SliderScalar(labLabel(tr("grid query"), "grid query").c_str(), ImGuiDataType_S64, &query, &lowest, &highest,
                            query < 0 ? tr("centre cell").toUtf8().constData() : "%lld"))
        edited.gridQuery = std::clamp(query, lowest, highest);
    recordControl("grid query", QString::number(m_settings.gridQuery));
}

void ImGuiLabWidget::drawParameterControls(const VariantInfo& variant, LabSettings& edited) {
    if (variant.params.empty()) return;
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr("%1 parameters (right-click: default)").arg(coreText(variant.displayName)).toUtf8().constData());
    const ProblemShape shape = problemShape(m_settings, variant);
    ParamSet defaults, resolved;
    try {
        defaults = resolveParams(variant.id, variant.params, {}, shape.context());
    } catch (const InputError&) {
        // Defaults that do not fit this shape show up as the error of the full check below.
    }
    bool valid = false;
    try {
        resolved = prepareParams(variant, shape, m_settings.params);
        valid = true;
    } catch (const InputError& error) {
        m_error = QString::fromStdString(error.what());
    }
    const ParamSet& values = valid ? resolved : defaults;
    for (const ParamSpec& spec : variant.params) {
        const ParamValue shown = shownValue(spec, m_settings.params, values);
        const bool overridden = m_settings.params.count(spec.key) != 0;
        const std::int64_t defaultInteger = defaults.contains(spec.key) && spec.type == ParamType::Integer ? defaults.integer(spec.key) : 0;
        if (spec.type == ParamType::String) {
            drawExpressionComposer(spec, paramValueText(shown), edited);
            continue;
        }
        if (overridden) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_PlotLinesHovered));
        const std::optional<std::string> changed =
            parameterControl(spec, shown, integerRange(spec, shape.context(), values, defaultInteger));
        if (overridden) ImGui::PopStyleColor();
        recordControl(spec.key.c_str(), QString::fromStdString(paramValueText(shown)));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s", tr("%1\ndefault: %2\nrange: %3")
                                        .arg(coreText(spec.description), coreText(spec.defaultText), coreText(spec.rangeText))
                                        .toUtf8()
                                        .constData());
        if (ImGui::IsItemClicked(ImGuiMouseButton_Right)) edited.params.erase(spec.key);
        if (!changed) continue;
        const bool isDefault = defaults.contains(spec.key) && paramValueText(defaults.values().at(spec.key)) == *changed;
        if (isDefault)
            edited.params.erase(spec.key);
        else
            edited.params[spec.key] = *changed;
    }
}

void ImGuiLabWidget::drawInputControls(LabSettings& edited) {
    ImGui::Separator();
    ImGui::TextDisabled("%s", tr("inputs (the pattern depends on Q and K)").toUtf8().constData());
    const QByteArray names[] = {tr("random Gaussian").toUtf8(), tr("local similarity").toUtf8(), tr("NPY files").toUtf8()};
    const char* const sourceNames[] = {names[0].constData(), names[1].constData(), names[2].constData()};
    int source = static_cast<int>(m_settings.source);
    if (ImGui::Combo(labLabel(tr("source"), "source").c_str(), &source, sourceNames, IM_ARRAYSIZE(sourceNames))) edited.source = static_cast<InputSource>(source);
    recordControl("source", QString::fromStdString(inputSourceName(m_settings.source)));
    if (m_settings.source == InputSource::NpyFiles) {
        ImGui::TextWrapped("Q: %s\nK: %s", m_settings.qPath.c_str(), m_settings.kPath.empty() ? "(Q)" : m_settings.kPath.c_str());
        return;
    }
    unsigned long long seed = m_settings.inputSeed;
    const unsigned long long minSeed = 0;
    if (ImGui::DragScalar(labLabel(tr("seed"), "seed").c_str(), ImGuiDataType_U64, &seed, 0.2f, &minSeed, nullptr, "%llu")) edited.inputSeed = seed;
    recordControl("seed", QString::number(m_settings.inputSeed));
}

} // namespace attnlab
