// The ImGui lab's grid panel (docs/grids.md): with a token grid, the picture of what the query cell
// attends, above the matrix, each cell in the colour of the component that allows it, the query ringed.
// Hovering a matrix row moves the query there, a click on the matrix pins that row, a click on a cell
// or an arrow key (Page Up/Down across frames) makes that cell the query; the pinned query is the
// settings' grid query, so the Qt panel and figures follow it.
#include "views/imgui/imgui_lab_widget.h"

#include "views/imgui/lab_pattern_canvas.h"
#include "views/imgui/lab_style.h"
#include "views/plot/colormap.h"

#include <imgui.h>

#include <QOpenGLContext>
#include <QOpenGLFunctions>

#include <array>
#include <utility>

namespace attnlab {

namespace {

// Cell lines once a cell is at least this many pixels wide (as the Qt grid view).
constexpr double kLinedCellPixels = 6.0;

ImVec2 imVec(const QPointF& point) {
    return ImVec2(static_cast<float>(point.x()), static_cast<float>(point.y()));
}
ImU32 imRgb(QRgb rgb) {
    return IM_COL32(qRed(rgb), qGreen(rgb), qBlue(rgb), 255);
}

// The arrow key pressed this frame, as the Qt key steppedQuery takes; 0 when none.
int steppingKey() {
    constexpr std::array<std::pair<ImGuiKey, int>, 6> keys{{{ImGuiKey_LeftArrow, Qt::Key_Left},
                                                            {ImGuiKey_RightArrow, Qt::Key_Right},
                                                            {ImGuiKey_UpArrow, Qt::Key_Up},
                                                            {ImGuiKey_DownArrow, Qt::Key_Down},
                                                            {ImGuiKey_PageUp, Qt::Key_PageUp},
                                                            {ImGuiKey_PageDown, Qt::Key_PageDown}}};
    for (const auto& [key, qtKey] : keys)
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(key))) return qtKey;
    return 0;
}

} // namespace

std::int64_t ImGuiLabWidget::gridQuery() const {
    return m_canvas->pattern().grid ? m_gridQuery : -1;
}

bool ImGuiLabWidget::gridPicturePending() const {
    return m_canvas->gridPicturePending();
}

void ImGuiLabWidget::syncGridQuery() {
    const LabPattern& lab = m_canvas->pattern();
    if (!lab.grid) return;
    // A new pattern or a new query in the settings: the settings' query (its centre cell by default).
    const std::pair source{lab.generation, m_settings.gridQuery};
    if (source == m_gridQuerySource) return;
    m_gridQuerySource = source;
    m_gridQuery = gridQueryOf(m_settings, *lab.grid);
    m_gridPinned = false;
}

void ImGuiLabWidget::pinGridQuery(std::int64_t query, LabSettings& edited) {
    m_gridQuery = query;
    edited.gridQuery = query;
    m_gridQuerySource = {m_canvas->pattern().generation, query};
}

void ImGuiLabWidget::drawGridPanel(float height, LabSettings& edited) {
    const LabPattern& lab = m_canvas->pattern();
    const TokenGrid& grid = *lab.grid;
    const ImVec2 corner = ImGui::GetCursorScreenPos();
    const float width = ImGui::GetContentRegionAvail().x;
    ImGui::InvisibleButton("grid canvas", ImVec2(width, height));
    recordControl("grid canvas", QString::number(m_gridQuery));
    m_gridRect = QRectF(corner.x, corner.y, width, height);
    const GridLayout layout(grid, m_gridRect);
    const ImGuiIO& io = ImGui::GetIO();
    const std::optional<GridCell> hovered =
        ImGui::IsItemHovered() ? layout.cellAt(QPointF(io.MousePos.x, io.MousePos.y)) : std::nullopt;
    if (hovered && ImGui::IsItemClicked(ImGuiMouseButton_Left)) {
        m_gridPinned = false;
        pinGridQuery(grid.positionOf(*hovered), edited);
    }
    if (const int key = io.WantTextInput ? 0 : steppingKey()) {
        m_gridPinned = false;
        pinGridQuery(steppedQuery(grid, m_gridQuery, key), edited);
    }
    m_canvas->requestGridPicture(m_gridQuery);
    paintGridPicture(layout);

    const GridCell query = grid.cellAt(m_gridQuery);
    const auto& picture = m_canvas->gridPicture();
    const QString attended = picture && picture->picture.query == m_gridQuery
                                 ? tr("%1 cells attended").arg(picture->picture.attended)
                                 : tr("computing…");
    labText(tr("query cell %1 = position %2   %3   (%4)")
                .arg(gridCellText(grid, query))
                .arg(m_gridQuery)
                .arg(attended, gridDescription(grid)));
    for (const ComponentLegendEntry& entry : lab.legend) {
        ImGui::ColorButton(("##component" + std::to_string(entry.component)).c_str(),
                           ImGui::ColorConvertU32ToFloat4(imRgb(entry.colour)), ImGuiColorEditFlags_NoTooltip,
                           ImVec2(ImGui::GetTextLineHeight(), ImGui::GetTextLineHeight()));
        ImGui::SameLine();
        labText(entry.text);
        ImGui::SameLine();
    }
    ImGui::NewLine();
    if (hovered)
        ImGui::SetTooltip("%s", tr("cell %1 = position %2\nclick: make it the query")
                                    .arg(gridCellText(grid, *hovered))
                                    .arg(grid.positionOf(*hovered))
                                    .toUtf8()
                                    .constData());
}

void ImGuiLabWidget::paintGridPicture(const GridLayout& layout) {
    ImDrawList& draw = *ImGui::GetWindowDrawList();
    const TokenGrid& grid = *m_canvas->pattern().grid;
    const unsigned texture = m_canvas->gridTexture(*context()->functions());
    const double cell = layout.cellSize();
    const float rows = static_cast<float>(grid.frames() * grid.height());
    for (std::int64_t t = 0; t < grid.frames(); ++t) {
        const QRectF frame = layout.frameRect(t);
        draw.AddRectFilled(imVec(frame.topLeft()), imVec(frame.bottomRight()), imRgb(emptyCellColor()));
        // The picture holds the frames one under another: frame t is rows t·H … (t + 1)·H.
        if (texture != 0)
            draw.AddImage(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(texture)),
                          imVec(frame.topLeft()), imVec(frame.bottomRight()),
                          ImVec2(0.0f, static_cast<float>(t * grid.height()) / rows),
                          ImVec2(1.0f, static_cast<float>((t + 1) * grid.height()) / rows));
        if (cell >= kLinedCellPixels) {
            const ImU32 line = IM_COL32(0, 0, 0, 40);
            for (std::int64_t x = 1; x < grid.width(); ++x) {
                const float at = static_cast<float>(frame.left() + static_cast<double>(x) * cell);
                draw.AddLine(ImVec2(at, static_cast<float>(frame.top())),
                             ImVec2(at, static_cast<float>(frame.bottom())), line);
            }
            for (std::int64_t y = 1; y < grid.height(); ++y) {
                const float at = static_cast<float>(frame.top() + static_cast<double>(y) * cell);
                draw.AddLine(ImVec2(static_cast<float>(frame.left()), at),
                             ImVec2(static_cast<float>(frame.right()), at), line);
            }
        }
        draw.AddRect(imVec(frame.topLeft()), imVec(frame.bottomRight()), IM_COL32(0, 0, 0, 255));
        if (layout.labelsFrames())
            draw.AddText(ImVec2(static_cast<float>(frame.left()),
                                static_cast<float>(frame.top() - GridLayout::kFrameLabel) - 2.0f),
                         IM_COL32(48, 48, 48, 255), QStringLiteral("t = %1").arg(t).toUtf8().constData());
    }
    // The query: a black ring with a white one inside, at least kLinedCellPixels wide.
    QRectF ring = layout.cellRect(grid.cellAt(m_gridQuery));
    const double side = std::max(ring.width(), kLinedCellPixels);
    ring = QRectF(ring.center().x() - side / 2, ring.center().y() - side / 2, side, side);
    draw.AddRect(imVec(ring.topLeft() + QPointF(1, 1)), imVec(ring.bottomRight() - QPointF(1, 1)),
                 IM_COL32(0, 0, 0, 255), 0.0f, 0, 2.0f);
    draw.AddRect(imVec(ring.topLeft() + QPointF(2.5, 2.5)), imVec(ring.bottomRight() - QPointF(2.5, 2.5)),
                 IM_COL32(255, 255, 255, 255));
}

} // namespace attnlab
