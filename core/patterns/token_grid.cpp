#include "core/patterns/token_grid.h"

#include "core/errors.h"
#include "core/param_schema.h"
#include "core/patterns/text_characters.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace attnlab {

namespace {

std::vector<std::int64_t> parseSizeList(const std::string& text, const std::string& what) {
    std::vector<std::int64_t> sizes;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = text.find(',', start);
        const std::string piece = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto value = parseInteger(piece);
        if (!value || *value < 1)
            throw InputError(what + " expects sizes >= 1 separated by commas, got '" + text + "'" + foreignCharacterNote(text));
        sizes.push_back(*value);
        if (comma == std::string::npos) return sizes;
        start = comma + 1;
    }
}

std::string joinSizes(const std::array<std::int64_t, 3>& sizes, int dims, const char* separator) {
    std::string text;
    for (int axis = 3 - dims; axis < 3; ++axis)
        text += (text.empty() ? "" : separator) + std::to_string(sizes[static_cast<std::size_t>(axis)]);
    return text;
}

// Whether a's Morton code is below b's: the coordinates' bits interleaved with x in bit 0 of each group,
// then y, then t. The axis whose differing bit is highest decides; at equal height t outranks y outranks x.
bool mortonLess(const GridCell& a, const GridCell& b) {
    const auto lowerMsb = [](std::uint64_t p, std::uint64_t q) { return p < q && p < (p ^ q); };
    const std::array<std::uint64_t, 3> diff = {static_cast<std::uint64_t>(a.x ^ b.x), static_cast<std::uint64_t>(a.y ^ b.y),
                                               static_cast<std::uint64_t>(a.t ^ b.t)};
    std::size_t axis = 0;
    for (std::size_t k = 1; k < 3; ++k)
        if (!lowerMsb(diff[k], diff[axis])) axis = k;
    const std::array<std::int64_t, 3> av = {a.x, a.y, a.t}, bv = {b.x, b.y, b.t};
    return av[axis] < bv[axis];
}

} // namespace

std::string TokenOrder::text() const {
    switch (kind) {
    case TokenOrderKind::Raster: return "raster";
    case TokenOrderKind::Morton: return "morton";
    case TokenOrderKind::Tiles: break;
    }
    std::string sizes;
    for (const std::int64_t size : tile) sizes += (sizes.empty() ? "" : ",") + std::to_string(size);
    return "tiles:" + sizes;
}

TokenOrder parseTokenOrder(const std::string& text) {
    TokenOrder order;
    if (text == "raster") return order;
    if (text == "morton") {
        order.kind = TokenOrderKind::Morton;
        return order;
    }
    if (text.rfind("tiles:", 0) != 0)
        throw InputError("--order expects raster, tiles:a,b (tiles:a,b,c for a video) or morton, got '" + text + "'" + foreignCharacterNote(text));
    order.kind = TokenOrderKind::Tiles;
    order.tile = parseSizeList(text.substr(6), "--order tiles:");
    return order;
}

std::vector<std::int64_t> parseGridSizes(const std::string& text) {
    auto sizes = parseSizeList(text, "--grid");
    if (sizes.size() != 2 && sizes.size() != 3)
        throw InputError("--grid expects H,W (an image) or T,H,W (a video), got '" + text + "'");
    return sizes;
}

TokenGrid::TokenGrid(const std::vector<std::int64_t>& sizes, TokenOrder order)
    : m_dims(static_cast<int>(sizes.size())), m_order(std::move(order)) {
    if (m_dims != 2 && m_dims != 3) throw InputError("a token grid has 2 (H,W) or 3 (T,H,W) sizes");
    m_size = {1, 1, 1};
    std::int64_t cells = 1;
    for (int k = 0; k < m_dims; ++k) {
        const std::int64_t size = sizes[static_cast<std::size_t>(k)];
        if (size < 1) throw InputError("--grid sizes must be >= 1, got " + std::to_string(size));
        if (size > kMaxGridCells / cells)
            throw InputError("--grid " + std::accumulate(sizes.begin() + 1, sizes.end(), std::to_string(sizes[0]),
                                                         [](const std::string& text, std::int64_t next) {
                                                             return text + "," + std::to_string(next);
                                                         }) +
                             " has more than " + std::to_string(kMaxGridCells) + " cells");
        cells *= size;
        m_size[static_cast<std::size_t>(3 - m_dims + k)] = size;
    }
    if (m_order.kind == TokenOrderKind::Tiles) {
        if (static_cast<int>(m_order.tile.size()) != m_dims)
            throw InputError("--order " + m_order.text() + " gives " + std::to_string(m_order.tile.size()) +
                             " tile sizes for a grid of " + std::to_string(m_dims) + " axes");
        m_tile = {1, 1, 1};
        for (int k = 0; k < m_dims; ++k) {
            const auto axis = static_cast<std::size_t>(3 - m_dims + k);
            m_tile[axis] = m_order.tile[static_cast<std::size_t>(k)];
            if (m_size[axis] % m_tile[axis] != 0)
                throw InputError("--order " + m_order.text() + ": tile size " + std::to_string(m_tile[axis]) +
                                 " does not divide the grid's " + std::to_string(m_size[axis]));
        }
    }
    if (m_order.kind == TokenOrderKind::Morton) {
        m_rasterAt.resize(static_cast<std::size_t>(cells));
        std::iota(m_rasterAt.begin(), m_rasterAt.end(), 0);
        std::sort(m_rasterAt.begin(), m_rasterAt.end(),
                  [this](std::int32_t a, std::int32_t b) { return mortonLess(rasterCell(a), rasterCell(b)); });
        m_positionAt.resize(static_cast<std::size_t>(cells));
        for (std::size_t p = 0; p < m_rasterAt.size(); ++p)
            m_positionAt[static_cast<std::size_t>(m_rasterAt[p])] = static_cast<std::int32_t>(p);
    }
}

GridCell TokenGrid::rasterCell(std::int64_t index) const {
    GridCell cell;
    cell.x = index % m_size[2];
    index /= m_size[2];
    cell.y = index % m_size[1];
    cell.t = index / m_size[1];
    return cell;
}

GridCell TokenGrid::cellAt(std::int64_t position) const {
    switch (m_order.kind) {
    case TokenOrderKind::Raster: return rasterCell(position);
    case TokenOrderKind::Morton: return rasterCell(m_rasterAt[static_cast<std::size_t>(position)]);
    case TokenOrderKind::Tiles: break;
    }
    const std::int64_t tileCells = m_tile[0] * m_tile[1] * m_tile[2];
    std::int64_t inner = position % tileCells, tile = position / tileCells;
    const std::int64_t tilesX = m_size[2] / m_tile[2], tilesY = m_size[1] / m_tile[1];
    GridCell cell;
    cell.x = (tile % tilesX) * m_tile[2] + inner % m_tile[2];
    inner /= m_tile[2];
    tile /= tilesX;
    cell.y = (tile % tilesY) * m_tile[1] + inner % m_tile[1];
    cell.t = (tile / tilesY) * m_tile[0] + inner / m_tile[1];
    return cell;
}

std::int64_t TokenGrid::positionOf(const GridCell& cell) const {
    switch (m_order.kind) {
    case TokenOrderKind::Raster: return rasterIndex(cell);
    case TokenOrderKind::Morton: return m_positionAt[static_cast<std::size_t>(rasterIndex(cell))];
    case TokenOrderKind::Tiles: break;
    }
    const std::int64_t tilesX = m_size[2] / m_tile[2], tilesY = m_size[1] / m_tile[1];
    const std::int64_t tile = ((cell.t / m_tile[0]) * tilesY + cell.y / m_tile[1]) * tilesX + cell.x / m_tile[2];
    const std::int64_t inner = ((cell.t % m_tile[0]) * m_tile[1] + cell.y % m_tile[1]) * m_tile[2] + cell.x % m_tile[2];
    return tile * (m_tile[0] * m_tile[1] * m_tile[2]) + inner;
}

std::string TokenGrid::sizeText() const { return joinSizes(m_size, m_dims, ","); }

std::string TokenGrid::describe() const {
    std::string order;
    switch (m_order.kind) {
    case TokenOrderKind::Raster: order = "raster order"; break;
    case TokenOrderKind::Morton: order = "Morton order"; break;
    case TokenOrderKind::Tiles: order = "tiles " + joinSizes(m_tile, m_dims, "×") + " order"; break;
    }
    return joinSizes(m_size, m_dims, "×") + (m_dims == 2 ? " image, " : " video, ") + order;
}

TokenGridPtr makeTokenGrid(const std::string& gridText, const std::string& orderText) {
    return std::make_shared<const TokenGrid>(parseGridSizes(gridText),
                                             orderText.empty() ? TokenOrder{} : parseTokenOrder(orderText));
}

TokenGridPtr scaledGrid(const TokenGrid& grid, std::int64_t cells) {
    const double factor = std::sqrt(static_cast<double>(cells) / static_cast<double>(grid.cells()));
    const auto height = static_cast<std::int64_t>(std::llround(static_cast<double>(grid.height()) * factor));
    const auto width = static_cast<std::int64_t>(std::llround(static_cast<double>(grid.width()) * factor));
    if (height < 1 || width < 1 || grid.frames() * height * width != cells || height * grid.width() != width * grid.height())
        return nullptr;
    std::vector<std::int64_t> sizes = {height, width};
    if (grid.dims() == 3) sizes.insert(sizes.begin(), grid.frames());
    try {
        return std::make_shared<const TokenGrid>(sizes, grid.order());
    } catch (const InputError&) {
        return nullptr;
    }
}

std::vector<std::int64_t> scaledGridSizes(const TokenGrid& grid, std::int64_t minCells, std::int64_t maxCells) {
    const std::int64_t g = std::gcd(grid.height(), grid.width());
    const std::int64_t base = grid.frames() * (grid.height() / g) * (grid.width() / g); // cells at k = 1
    std::vector<std::int64_t> factors = {g};
    for (std::int64_t power = 1; power <= maxCells; power *= 2) factors.insert(factors.end(), {power, 3 * power});
    std::vector<std::int64_t> sizes;
    for (const std::int64_t k : factors) {
        if (k > maxCells / k / base) continue; // k² · base > maxCells, tested without overflowing
        const std::int64_t cells = k * k * base;
        if (cells >= minCells && cells <= maxCells && scaledGrid(grid, cells)) sizes.push_back(cells);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

std::int64_t problemSize(std::int64_t givenN, const TokenGrid* grid) {
    if (!grid) {
        if (givenN < 1) throw InputError("--n is required (or --grid)");
        return givenN;
    }
    if (givenN != 0 && givenN != grid->cells())
        throw InputError("--n " + std::to_string(givenN) + " does not match --grid " + grid->sizeText() + " (" +
                         std::to_string(grid->cells()) + " cells)");
    return grid->cells();
}

} // namespace attnlab
