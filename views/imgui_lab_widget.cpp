#include "views/imgui_lab_widget.h"

#include "views/colormap.h"
#include "views/imgui_qt_bridge.h"
#include "views/lab_pattern_canvas.h"

#include "core/errors.h"
#include "core/registry.h"

#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <QCursor>
#include <QGuiApplication>
#include <QOpenGLContext>
#include <QOpenGLFunctions>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

constexpr int kMaxBins = 2048;
constexpr int kFrameIntervalMs = 16;
constexpr float kControlsWidth = 340.0f;
constexpr float kLabelWidth = 110.0f;
constexpr double kWheelZoomStep = 1.25; // zoom factor per wheel notch
constexpr double kGridMinCellPixels = 8.0;
constexpr long long kMinN = 1, kMaxN = 65536;
constexpr long long kMinD = 1, kMaxD = 1024;
constexpr int kMaxHeads = 64;

ImU32 imColor(QRgb rgb) { return IM_COL32(qRed(rgb), qGreen(rgb), qBlue(rgb), qAlpha(rgb)); }
const ImVec4 kErrorColor(0.75f, 0.1f, 0.1f, 1.0f);

// Where `tile` lands on the canvas; a tile of an earlier n is stretched over the same fraction of the plane.
QRectF tileRect(const PlaneViewport& viewport, const DensityTile& tile) {
    const double scale = static_cast<double>(viewport.n()) / static_cast<double>(tile.n);
    const double size = viewport.cellSize() * scale;
    const QPointF origin = viewport.origin() / scale;
    const QRectF& plot = viewport.plot();
    const PlaneRegion& r = tile.region;
    return QRectF(plot.left() + (static_cast<double>(r.col0) - origin.x()) * size,
                  plot.top() + (static_cast<double>(r.row0) - origin.y()) * size,
                  static_cast<double>(r.col1 - r.col0) * size, static_cast<double>(r.row1 - r.row0) * size);
}

ImVec2 imPoint(const QPointF& point) { return ImVec2(static_cast<float>(point.x()), static_cast<float>(point.y())); }

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

ImGuiLabWidget::ImGuiLabWidget(QWidget* parent) : QOpenGLWidget(parent), m_canvas(std::make_unique<LabPatternCanvas>()) {
    ImGuiContext* previous = ImGui::GetCurrentContext();
    m_context = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_context);
    ImGui::GetIO().IniFilename = nullptr; // the Qt side keeps all state
    ImGui::StyleColorsLight();
    ImGui::GetStyle().WindowRounding = 0.0f;
    m_bridge = std::make_unique<ImGuiQtBridge>(m_context);
    ImGui::SetCurrentContext(previous);
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(480, 320);
    m_frameTimer.setInterval(kFrameIntervalMs);
    connect(&m_frameTimer, &QTimer::timeout, this, qOverload<>(&QWidget::update));
}

ImGuiLabWidget::~ImGuiLabWidget() {
    releaseGl();
    ImGui::DestroyContext(m_context);
}

void ImGuiLabWidget::setSettings(const LabSettings& settings) {
    m_settings = settings;
    update();
}

bool ImGuiLabWidget::openGlAvailable() {
    static const bool available = [] {
        const QString platform = QGuiApplication::platformName();
        if (platform == QLatin1String("offscreen") || platform == QLatin1String("minimal")) return false;
        QOpenGLContext context;
        return context.create() && context.format().majorVersion() >= 3;
    }();
    return available;
}

bool ImGuiLabWidget::densityPending() const { return m_canvas->pending(); }

void ImGuiLabWidget::setCanvasView(double zoom, const QPointF& origin) { m_viewport.setView(zoom, origin); }

void ImGuiLabWidget::initializeGL() {
    ImGui::SetCurrentContext(m_context);
    // A core profile context (macOS, some drivers) rejects GLSL 1.30, the backend's default.
    const bool core = context()->format().profile() == QSurfaceFormat::CoreProfile;
    m_rendererReady = context()->format().majorVersion() >= 3 && ImGui_ImplOpenGL3_Init(core ? "#version 150" : "#version 130");
    // Reparenting into another window gives the widget a new context: drop the old one's objects.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &ImGuiLabWidget::releaseGl);
}

void ImGuiLabWidget::releaseGl() {
    if (!m_rendererReady) return;
    makeCurrent();
    m_canvas->releaseTexture(*context()->functions());
    ImGui::SetCurrentContext(m_context);
    ImGui_ImplOpenGL3_Shutdown();
    m_rendererReady = false;
    doneCurrent();
}

void ImGuiLabWidget::paintGL() {
    QOpenGLFunctions& gl = *context()->functions();
    const QColor background = palette().color(QPalette::Window);
    gl.glClearColor(background.redF(), background.greenF(), background.blueF(), 1.0f);
    gl.glClear(GL_COLOR_BUFFER_BIT);
    if (!m_rendererReady) return;
    m_bridge->beginFrame(size(), devicePixelRatioF());
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    const LabSettings edited = buildFrame();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    const Qt::CursorShape shape = m_bridge->cursorShape();
    if (cursor().shape() != shape) setCursor(shape);
    if (edited != m_settings) {
        m_settings = edited;
        emit settingsEdited(m_settings);
    }
}

LabSettings ImGuiLabWidget::buildFrame() {
    m_controls.clear();
    m_canvas->sync(m_settings);
    const ImGuiViewport* screen = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(screen->Pos);
    ImGui::SetNextWindowSize(screen->Size);
    ImGui::Begin("live lab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoBringToFrontOnFocus);
    LabSettings edited = m_settings;
    ImGui::BeginChild("controls", ImVec2(kControlsWidth, 0.0f));
    ImGui::PushItemWidth(-kLabelWidth);
    drawControls(edited);
    ImGui::PopItemWidth();
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("canvas", ImVec2(0.0f, 0.0f), false, ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoScrollbar);
    drawCanvas();
    ImGui::EndChild();
    ImGui::End();
    return edited;
}

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
        drawParameterControls(*variant, edited);
        if (variant->dataDependentPattern) drawInputControls(edited);
    }
    const LabPattern& lab = m_canvas->pattern();
    if (m_error.isEmpty() && m_canvas->patternCurrent()) m_error = lab.error;
    if (!m_error.isEmpty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, kErrorColor);
        ImGui::TextWrapped("%s", m_error.toUtf8().constData());
        ImGui::PopStyleColor();
    }
}

void ImGuiLabWidget::drawVariantChooser(LabSettings& edited) {
    const VariantInfo* current = findVariant(m_settings.variant);
    const std::string preview = current ? current->displayName : m_settings.variant;
    const bool open = ImGui::BeginCombo("variant", preview.c_str(), ImGuiComboFlags_HeightLarge);
    recordControl("variant", QString::fromStdString(m_settings.variant));
    if (open) {
        for (const std::string& family : familiesInOrder()) {
            ImGui::TextDisabled("%s", family.c_str());
            for (const auto& variant : allVariants()) {
                if (variant.family != family) continue;
                const std::string label = "  " + variant.displayName + "##" + variant.id;
                if (ImGui::Selectable(label.c_str(), variant.id == m_settings.variant) && variant.id != m_settings.variant) {
                    edited.variant = variant.id;
                    edited.params.clear();
                }
                if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", variant.summary.c_str());
            }
        }
        ImGui::EndCombo();
    }
    if (current) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", current->summary.c_str());
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
    if (ImGui::SliderInt("h (heads)", &heads, 1, kMaxHeads)) {
        edited.heads = std::clamp(heads, 1, kMaxHeads);
        edited.head = std::min(edited.head, edited.heads - 1);
    }
    recordControl("h", QString::number(m_settings.heads));
    int head = m_settings.head;
    ImGui::BeginDisabled(m_settings.heads <= 1);
    if (ImGui::SliderInt("head", &head, 0, std::max(0, m_settings.heads - 1))) edited.head = std::clamp(head, 0, m_settings.heads - 1);
    ImGui::EndDisabled();
    recordControl("head", QString::number(m_settings.head));

    const VariantInfo* variant = findVariant(m_settings.variant);
    const bool forced = variant && variant->causalSupport != CausalSupport::Both;
    bool causal = variant ? problemShape(m_settings, *variant).causal : m_settings.causal;
    ImGui::BeginDisabled(forced);
    if (ImGui::Checkbox("causal", &causal)) edited.causal = causal;
    ImGui::EndDisabled();
    recordControl("causal", causal ? "true" : "false");
    if (forced && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
        ImGui::SetTooltip("%s", variant->causalSupport == CausalSupport::CausalOnly ? "this variant is causal only"
                                                                                     : "this variant is bidirectional only");
}

void ImGuiLabWidget::drawParameterControls(const VariantInfo& variant, LabSettings& edited) {
    if (variant.params.empty()) return;
    ImGui::Separator();
    ImGui::TextDisabled("%s parameters (right-click: default)", variant.displayName.c_str());
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
        if (overridden) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_PlotLinesHovered));
        const std::optional<std::string> changed =
            parameterControl(spec, shown, integerRange(spec, shape.context(), values, defaultInteger));
        if (overridden) ImGui::PopStyleColor();
        recordControl(spec.key.c_str(), QString::fromStdString(paramValueText(shown)));
        if (ImGui::IsItemHovered())
            ImGui::SetTooltip("%s\ndefault: %s\nrange: %s", spec.description.c_str(), spec.defaultText.c_str(), spec.rangeText.c_str());
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
    ImGui::TextDisabled("inputs (the pattern depends on Q and K)");
    static const char* const sourceNames[] = {"random Gaussian", "local similarity", "NPY files"};
    int source = static_cast<int>(m_settings.source);
    if (ImGui::Combo("source", &source, sourceNames, IM_ARRAYSIZE(sourceNames))) edited.source = static_cast<InputSource>(source);
    recordControl("source", QString::fromStdString(inputSourceName(m_settings.source)));
    if (m_settings.source == InputSource::NpyFiles) {
        ImGui::TextWrapped("Q: %s\nK: %s", m_settings.qPath.c_str(), m_settings.kPath.empty() ? "(Q)" : m_settings.kPath.c_str());
        return;
    }
    unsigned long long seed = m_settings.inputSeed;
    const unsigned long long minSeed = 0;
    if (ImGui::DragScalar("seed", ImGuiDataType_U64, &seed, 0.2f, &minSeed, nullptr, "%llu")) edited.inputSeed = seed;
    recordControl("seed", QString::number(m_settings.inputSeed));
}

void ImGuiLabWidget::drawCanvas() {
    const LabPattern& lab = m_canvas->pattern();
    if (!m_canvas->patternCurrent())
        ImGui::TextDisabled("computing the pattern for n = %lld ...", static_cast<long long>(m_settings.n));
    else if (lab.pattern)
        ImGui::Text("n = %lld   nnz = %lld   density %.4g%%   %s", static_cast<long long>(lab.n), static_cast<long long>(lab.nnz),
                    100.0 * static_cast<double>(lab.nnz) / (static_cast<double>(lab.n) * static_cast<double>(lab.n)),
                    lab.note.toUtf8().constData());
    else
        ImGui::TextColored(kErrorColor, "no pattern: %s", lab.error.toUtf8().constData());

    const ImVec2 available = ImGui::GetContentRegionAvail();
    const float side = std::max(32.0f, std::min(available.x, available.y - ImGui::GetTextLineHeightWithSpacing()));
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("pattern canvas", ImVec2(side, side));
    recordControl("pattern canvas", {});
    const QRectF plot(corner.x, corner.y, side, side);
    const std::int64_t n = lab.pattern ? lab.n : std::max<std::int64_t>(1, m_viewport.n());
    if (m_viewport.n() != n || m_viewport.plot().isEmpty()) m_viewport = PlaneViewport(n, plot);
    m_viewport.setPlot(plot);
    handleCanvasInput();

    const PlaneRegion region = m_viewport.visibleRegion();
    const QRectF regionPixels = m_viewport.regionRect(region);
    const double pixelScale = devicePixelRatioF();
    auto bins = [pixelScale](std::int64_t cells, double extent) {
        return static_cast<int>(std::clamp<double>(std::min(static_cast<double>(cells), std::ceil(extent * pixelScale)), 1.0, kMaxBins));
    };
    m_canvas->request(region, QSize(bins(region.col1 - region.col0, regionPixels.width()), bins(region.row1 - region.row0, regionPixels.height())));
    paintCanvas();

    if (m_hover)
        ImGui::Text("query i = %lld, key j = %lld: %s   zoom x%.3g", static_cast<long long>(m_hover->row),
                    static_cast<long long>(m_hover->col), m_hover->allowed ? "allowed" : "masked", m_viewport.zoom());
    else
        ImGui::TextDisabled("wheel zooms at the cursor, drag pans, double-click shows all   zoom x%.3g", m_viewport.zoom());
}

void ImGuiLabWidget::handleCanvasInput() {
    const ImGuiIO& io = ImGui::GetIO();
    const QPointF mouse(io.MousePos.x, io.MousePos.y);
    const bool hovered = ImGui::IsItemHovered();
    if (hovered && io.MouseWheel != 0.0f) m_viewport.zoomAt(mouse, std::pow(kWheelZoomStep, static_cast<double>(io.MouseWheel)));
    if (hovered && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) m_viewport.reset();
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f))
        m_viewport.panByPixels(QPointF(io.MouseDelta.x, io.MouseDelta.y));
    m_hover.reset();
    const LabPattern& lab = m_canvas->pattern();
    if (!hovered || !lab.pattern) return;
    if (const auto cell = m_viewport.cellAt(mouse)) m_hover = CanvasHover{cell->i, cell->j, lab.pattern->allowed(cell->i, cell->j)};
}

void ImGuiLabWidget::paintCanvas() {
    ImDrawList& draw = *ImGui::GetWindowDrawList();
    const QRectF& plot = m_viewport.plot();
    const ImVec2 topLeft = imPoint(plot.topLeft()), bottomRight = imPoint(plot.bottomRight());
    draw.AddRectFilled(topLeft, bottomRight, imColor(emptyCellColor()));
    draw.PushClipRect(topLeft, bottomRight, true);
    const std::optional<DensityTile>& tile = m_canvas->tile();
    if (const unsigned texture = m_canvas->texture(*context()->functions()); tile && texture != 0) {
        const QRectF rect = tileRect(m_viewport, *tile);
        draw.AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(texture)), imPoint(rect.topLeft()), imPoint(rect.bottomRight()));
    }
    if (m_viewport.cellSize() >= kGridMinCellPixels) {
        const PlaneRegion region = m_viewport.visibleRegion();
        const ImU32 gridColor = IM_COL32(255, 255, 255, 90);
        for (std::int64_t j = region.col0; j <= region.col1; ++j) {
            const QRectF cell = m_viewport.regionRect({region.row0, region.row0, j, j});
            draw.AddLine(ImVec2(static_cast<float>(cell.left()), topLeft.y), ImVec2(static_cast<float>(cell.left()), bottomRight.y), gridColor);
        }
        for (std::int64_t i = region.row0; i <= region.row1; ++i) {
            const QRectF cell = m_viewport.regionRect({i, i, region.col0, region.col0});
            draw.AddLine(ImVec2(topLeft.x, static_cast<float>(cell.top())), ImVec2(bottomRight.x, static_cast<float>(cell.top())), gridColor);
        }
    }
    if (m_hover) {
        const QRectF row = m_viewport.regionRect({m_hover->row, m_hover->row + 1, 0, m_viewport.n()});
        draw.AddRectFilled(imPoint(row.topLeft()), imPoint(row.bottomRight()), IM_COL32(230, 97, 0, 40));
        const QRectF cell = m_viewport.cellRect({m_hover->row, m_hover->col});
        draw.AddRect(imPoint(cell.topLeft() - QPointF(1, 1)), imPoint(cell.bottomRight() + QPointF(1, 1)), IM_COL32(230, 97, 0, 255), 0.0f, 0, 2.0f);
    }
    draw.PopClipRect();
    draw.AddRect(topLeft, bottomRight, IM_COL32(120, 120, 120, 255));
}

bool ImGuiLabWidget::event(QEvent* event) {
    if (m_bridge->handleEvent(event)) {
        update();
        return true;
    }
    return QOpenGLWidget::event(event);
}

void ImGuiLabWidget::showEvent(QShowEvent* event) {
    m_frameTimer.start();
    QOpenGLWidget::showEvent(event);
}

void ImGuiLabWidget::hideEvent(QHideEvent* event) {
    m_frameTimer.stop();
    QOpenGLWidget::hideEvent(event);
}

} // namespace attnlab
