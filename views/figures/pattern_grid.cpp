#include "views/figures/pattern_grid.h"

#include "views/plot/colormap.h"
#include "views/plot/vector_cells.h"
#include "views/plot/text_style.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QStringList>

#include <algorithm>
#include <cmath>
#include <exception>

namespace attnlab {

namespace {

// Vector exports draw the cells as rectangles while a frame has at most this many cells per side.
constexpr std::int64_t kMaxVectorGridSide = 256;
// Cell lines and a full-size query ring need cells of at least this many pixels.
constexpr double kMinLinedCell = 6.0;

// The translation context of the grid's description.
struct GridText {
    Q_DECLARE_TR_FUNCTIONS(GridText)
};

// The axes' lengths (or a tile's) joined by "×", the t axis only on a video.
QString sizesText(const TokenGrid& grid, std::int64_t (TokenGrid::*length)(int) const) {
    QStringList sizes;
    for (int axis = grid.dims() == 3 ? 0 : 1; axis < 3; ++axis) sizes << QString::number((grid.*length)(axis));
    return sizes.join(QStringLiteral("×"));
}

} // namespace

QString gridDescription(const TokenGrid& grid) {
    QString order;
    switch (grid.order().kind) {
    case TokenOrderKind::Raster: order = GridText::tr("raster order"); break;
    case TokenOrderKind::Morton: order = GridText::tr("Morton order"); break;
    case TokenOrderKind::Tiles: order = GridText::tr("tiles %1 order").arg(sizesText(grid, &TokenGrid::tileLength)); break;
    }
    const QString sizes = sizesText(grid, &TokenGrid::axisLength);
    return grid.dims() == 3 ? GridText::tr("%1 video, %2").arg(sizes, order) : GridText::tr("%1 image, %2").arg(sizes, order);
}

TokenGridPtr settingsGrid(const LabSettings& settings) {
    if (settings.grid.empty()) return nullptr;
    try {
        TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
        return grid->cells() == settings.n ? grid : nullptr;
    } catch (const std::exception&) {
        return nullptr; // the settings' own check names the problem
    }
}

TokenGridPtr choiceGrid(const LabSettings& settings, const VariantChoice& choice) { return settingsGrid(choiceSettings(settings, choice)); }

std::int64_t gridQueryOf(const LabSettings& settings, const TokenGrid& grid) {
    if (settings.gridQuery >= 0) return std::min(settings.gridQuery, grid.cells() - 1);
    return grid.positionOf({grid.frames() / 2, grid.height() / 2, grid.width() / 2});
}

GridPicture emptyGridPicture(const TokenGrid& grid, std::int64_t query) {
    GridPicture picture;
    picture.query = query;
    picture.cell = grid.cellAt(query);
    picture.image = QImage(static_cast<int>(grid.width()), static_cast<int>(grid.frames() * grid.height()), QImage::Format_RGB32);
    picture.image.fill(emptyCellColor());
    return picture;
}

void setGridPictureCell(GridPicture& picture, const TokenGrid& grid, std::int64_t position, QRgb colour) {
    const GridCell cell = grid.cellAt(position);
    reinterpret_cast<QRgb*>(picture.image.scanLine(static_cast<int>(cell.t * grid.height() + cell.y)))[cell.x] = colour;
}

GridPicture buildGridPicture(const Pattern& pattern, const PatternComponents* components, std::optional<QRgb> colour,
                             const TokenGrid& grid, std::int64_t query) {
    GridPicture picture = emptyGridPicture(grid, query);
    const auto paint = [&](std::int64_t begin, std::int64_t end, QRgb rgb) {
        for (std::int64_t p = begin; p < end; ++p) setGridPictureCell(picture, grid, p, rgb);
        picture.attended += end - begin;
    };
    if (components) {
        std::vector<ComponentRange> runs;
        components->rowComponents(query, runs);
        for (const ComponentRange& run : runs) paint(run.begin, run.end, componentColor(run.component));
    } else {
        std::vector<ColumnRange> ranges;
        pattern.rowRanges(query, ranges);
        for (const ColumnRange& range : ranges) paint(range.begin, range.end, colour ? *colour : densityColor(1.0));
    }
    return picture;
}

QString gridCellText(const TokenGrid& grid, const GridCell& cell) {
    if (grid.dims() == 3) return QStringLiteral("(t %1, y %2, x %3)").arg(cell.t).arg(cell.y).arg(cell.x);
    return QStringLiteral("(y %1, x %2)").arg(cell.y).arg(cell.x);
}

bool isGridStepKey(int key) {
    return key == Qt::Key_Left || key == Qt::Key_Right || key == Qt::Key_Up || key == Qt::Key_Down || key == Qt::Key_PageUp ||
           key == Qt::Key_PageDown;
}

std::int64_t steppedQuery(const TokenGrid& grid, std::int64_t query, int key) {
    GridCell cell = grid.cellAt(query);
    const auto step = [](std::int64_t& value, int by, std::int64_t length) { value = std::clamp<std::int64_t>(value + by, 0, length - 1); };
    switch (key) {
    case Qt::Key_Left: step(cell.x, -1, grid.width()); break;
    case Qt::Key_Right: step(cell.x, 1, grid.width()); break;
    case Qt::Key_Up: step(cell.y, -1, grid.height()); break;
    case Qt::Key_Down: step(cell.y, 1, grid.height()); break;
    case Qt::Key_PageUp: step(cell.t, -1, grid.frames()); break;
    case Qt::Key_PageDown: step(cell.t, 1, grid.frames()); break;
    default: break;
    }
    return grid.positionOf(cell);
}

// ---------------------------------------------------------------------------------------------------
// Layout

GridLayout::GridLayout(const TokenGrid& grid, const QRectF& box)
    : m_frames(grid.frames()), m_height(grid.height()), m_width(grid.width()) {
    const double label = labelsFrames() ? kFrameLabel : 0.0;
    m_gap = labelsFrames() ? 6.0 : 0.0;
    const auto cellFor = [&](std::int64_t columns) {
        const std::int64_t rows = (m_frames + columns - 1) / columns;
        const double across = (box.width() - static_cast<double>(columns - 1) * m_gap) / static_cast<double>(columns * m_width);
        const double down = (box.height() - static_cast<double>(rows) * label - static_cast<double>(rows - 1) * m_gap) /
                            static_cast<double>(rows * m_height);
        return std::min(across, down);
    };
    std::int64_t best = 1;
    for (std::int64_t columns = 2; columns <= m_frames; ++columns)
        if (cellFor(columns) > cellFor(best)) best = columns;
    m_columns = static_cast<int>(best);
    m_cell = std::max(0.0, cellFor(best));
    const std::int64_t rows = (m_frames + best - 1) / best;
    const double width = static_cast<double>(best * m_width) * m_cell + static_cast<double>(best - 1) * m_gap;
    const double height = static_cast<double>(rows) * (label + static_cast<double>(m_height) * m_cell) + static_cast<double>(rows - 1) * m_gap;
    m_origin = QPointF(box.center().x() - width / 2, box.center().y() - height / 2);
}

QRectF GridLayout::frameRect(std::int64_t t) const {
    const double label = labelsFrames() ? kFrameLabel : 0.0;
    const double frameWidth = static_cast<double>(m_width) * m_cell, frameHeight = static_cast<double>(m_height) * m_cell;
    const auto column = static_cast<double>(t % m_columns), row = static_cast<double>(t / m_columns);
    return QRectF(m_origin.x() + column * (frameWidth + m_gap), m_origin.y() + row * (label + frameHeight + m_gap) + label, frameWidth,
                  frameHeight);
}

QRectF GridLayout::cellRect(const GridCell& cell) const {
    const QRectF frame = frameRect(cell.t);
    return QRectF(frame.left() + static_cast<double>(cell.x) * m_cell, frame.top() + static_cast<double>(cell.y) * m_cell, m_cell, m_cell);
}

std::optional<GridCell> GridLayout::cellAt(const QPointF& pixel) const {
    if (m_cell <= 0) return std::nullopt;
    const QRectF first = frameRect(0);
    const double label = labelsFrames() ? kFrameLabel : 0.0;
    const auto column = static_cast<std::int64_t>(std::floor((pixel.x() - first.left()) / (first.width() + m_gap)));
    const auto row = static_cast<std::int64_t>(std::floor((pixel.y() - first.top() + label) / (label + first.height() + m_gap)));
    const std::int64_t t = row * m_columns + column;
    if (column < 0 || column >= m_columns || row < 0 || t >= m_frames) return std::nullopt;
    const QRectF frame = frameRect(t);
    if (!frame.contains(pixel)) return std::nullopt;
    const auto clampTo = [](double value, std::int64_t length) { return std::clamp<std::int64_t>(static_cast<std::int64_t>(value), 0, length - 1); };
    return GridCell{t, clampTo((pixel.y() - frame.top()) / m_cell, m_height), clampTo((pixel.x() - frame.left()) / m_cell, m_width)};
}

// ---------------------------------------------------------------------------------------------------
// Painting

void paintGridPicture(QPainter& painter, const GridPicture& picture, const TokenGrid& grid, const QRectF& box) {
    const GridLayout layout(grid, box);
    const double cell = layout.cellSize();
    if (cell <= 0) return;
    painter.save();
    const bool vectors = vectorDevice(painter) && std::max(grid.height(), grid.width()) <= kMaxVectorGridSide;
    QFont font = painter.font();
    font.setPointSizeF(7.0);
    painter.setFont(font);
    for (std::int64_t t = 0; t < grid.frames(); ++t) {
        const QRectF frame = layout.frameRect(t);
        if (vectors) {
            painter.save();
            painter.setRenderHint(QPainter::Antialiasing, false);
            for (const CellRect& rect : mergeRowRuns(t * grid.height(), (t + 1) * grid.height(), imageRuns(picture.image, 0, grid.width())))
                painter.fillRect(QRectF(frame.left() + static_cast<double>(rect.col0) * cell,
                                        frame.top() + static_cast<double>(rect.row0 - t * grid.height()) * cell,
                                        static_cast<double>(rect.col1 - rect.col0) * cell, static_cast<double>(rect.row1 - rect.row0) * cell),
                                 QColor::fromRgba(rect.colour));
            painter.restore();
        } else {
            // Cells are discrete colours: nearest-neighbour, never lossy (PDF would store JPEG).
            painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
            painter.setRenderHint(QPainter::LosslessImageRendering);
            painter.drawImage(frame, picture.image,
                              QRectF(0, static_cast<double>(t * grid.height()), static_cast<double>(grid.width()), static_cast<double>(grid.height())));
        }
        if (cell >= kMinLinedCell) {
            painter.setPen(QPen(QColor(0, 0, 0, 40), 0.6));
            for (std::int64_t x = 1; x < grid.width(); ++x)
                painter.drawLine(QPointF(frame.left() + static_cast<double>(x) * cell, frame.top()),
                                 QPointF(frame.left() + static_cast<double>(x) * cell, frame.bottom()));
            for (std::int64_t y = 1; y < grid.height(); ++y)
                painter.drawLine(QPointF(frame.left(), frame.top() + static_cast<double>(y) * cell),
                                 QPointF(frame.right(), frame.top() + static_cast<double>(y) * cell));
        }
        painter.setPen(QPen(Qt::black, 0.8));
        painter.setBrush(Qt::NoBrush);
        painter.drawRect(frame);
        if (layout.labelsFrames()) {
            painter.setPen(QColor(0x30, 0x30, 0x30));
            drawAlignedText(painter, QRectF(frame.left(), frame.top() - GridLayout::kFrameLabel, frame.width(), GridLayout::kFrameLabel),
                            Qt::AlignLeft | Qt::AlignBottom, QStringLiteral("t = %1").arg(t));
        }
    }
    // The query cell: a black ring with a white one inside it, visible on every component colour; at least
    // kMinLinedCell pixels wide so a small cell is still found.
    QRectF ring = layout.cellRect(picture.cell);
    const double side = std::max(ring.width(), kMinLinedCell);
    ring = QRectF(ring.center().x() - side / 2, ring.center().y() - side / 2, side, side);
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setBrush(Qt::NoBrush);
    painter.setPen(QPen(Qt::black, 2.0));
    painter.drawRect(ring.adjusted(1.0, 1.0, -1.0, -1.0));
    painter.setPen(QPen(Qt::white, 1.0));
    painter.drawRect(ring.adjusted(2.5, 2.5, -2.5, -2.5));
    painter.restore();
}

} // namespace attnlab
