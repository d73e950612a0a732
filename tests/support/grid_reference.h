#pragma once

// An independent evaluation of token grids for the tests: every order enumerated the way docs/grids.md
// describes it, and the grid primitives evaluated cell by cell from its formulas (no range algebra).

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

// Internal linkage: one test program includes it.
namespace attnlab::grid_reference {
namespace {


struct Cell {
    std::int64_t t, y, x;
};

// Cells in sequence order, enumerated the way docs/grids.md describes each order.
std::vector<Cell> cellsInOrder(std::int64_t T, std::int64_t H, std::int64_t W, const std::string& order,
                               std::vector<std::int64_t> tile) {
    std::vector<Cell> cells;
    if (order == "tiles") {
        if (tile.size() == 2) tile.insert(tile.begin(), 1);
        for (std::int64_t bt = 0; bt < T / tile[0]; ++bt)
            for (std::int64_t by = 0; by < H / tile[1]; ++by)
                for (std::int64_t bx = 0; bx < W / tile[2]; ++bx)
                    for (std::int64_t t = 0; t < tile[0]; ++t)
                        for (std::int64_t y = 0; y < tile[1]; ++y)
                            for (std::int64_t x = 0; x < tile[2]; ++x)
                                cells.push_back({bt * tile[0] + t, by * tile[1] + y, bx * tile[2] + x});
        return cells;
    }
    for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t y = 0; y < H; ++y)
            for (std::int64_t x = 0; x < W; ++x) cells.push_back({t, y, x});
    if (order == "morton") {
        const auto code = [](const Cell& c) {
            std::uint64_t value = 0;
            for (int bit = 0; bit < 20; ++bit) {
                value |= static_cast<std::uint64_t>((c.x >> bit) & 1) << (3 * bit);
                value |= static_cast<std::uint64_t>((c.y >> bit) & 1) << (3 * bit + 1);
                value |= static_cast<std::uint64_t>((c.t >> bit) & 1) << (3 * bit + 2);
            }
            return value;
        };
        std::sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) { return code(a) < code(b); });
    }
    return cells;
}

// NATTEN's rule on one axis, as written in the contract.
bool natten(std::int64_t L, std::int64_t k, std::int64_t delta, std::int64_t a, std::int64_t b) {
    if (a % delta != b % delta) return false;
    const std::int64_t g = a % delta, u = a / delta, v = b / delta;
    const std::int64_t Lg = (L - g + delta - 1) / delta, left = k / 2, right = k / 2 + k % 2 - 1;
    const std::int64_t c = std::min(std::max(u, left), Lg - 1 - right);
    return c - left <= v && v <= c + right;
}

struct Problem {
    std::vector<std::int64_t> sizes; // {T, H, W}, T = 1 for an image
    int dims;
    std::vector<Cell> cells;
    std::int64_t n() const { return static_cast<std::int64_t>(cells.size()); }
};

struct Term {
    std::string name;
    std::vector<std::int64_t> args;
    bool negate = false;
};

// Expands a grid primitive's arguments to per-axis values (t, y, x), as its arities define them.
std::vector<std::int64_t> perAxis(const std::vector<std::int64_t>& args, std::size_t from, int dims) {
    std::vector<std::int64_t> values(3, 1);
    for (int k = 0; k < dims; ++k)
        values[static_cast<std::size_t>(3 - dims + k)] = args.size() == 1 ? args[0] : args[from + static_cast<std::size_t>(k)];
    return values;
}

bool leafContains(const Term& term, const Problem& p, std::int64_t i, std::int64_t j) {
    const Cell a = p.cells[static_cast<std::size_t>(i)], b = p.cells[static_cast<std::size_t>(j)];
    const std::int64_t qa[3] = {a.t, a.y, a.x}, kb[3] = {b.t, b.y, b.x};
    const auto& s = term.name;
    const auto& args = term.args;
    const std::size_t dims = static_cast<std::size_t>(p.dims);
    if (s == "band") return std::abs(i - j) <= args[0];
    if (s == "stride") return (i - j) % args[0] == 0;
    if (s == "block") return i / args[0] == j / args[0];
    if (s == "sink") return j < args[0];
    if (s == "diag") return i == j;
    if (s == "causal") return j <= i;
    if (s == "same_row") return a.t == b.t && a.y == b.y;
    if (s == "same_col") return a.t == b.t && a.x == b.x;
    if (s == "same_frame") return a.t == b.t;
    if (s == "same_pixel") return a.y == b.y && a.x == b.x;
    const auto first = perAxis(args, 0, p.dims);
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const std::int64_t L = p.sizes[axis], m = first[axis];
        bool ok = false;
        if (s == "neighborhood") {
            const std::int64_t delta = args.size() == 2 * dims ? perAxis(args, dims, p.dims)[axis] : 1;
            ok = natten(L, m, delta, qa[axis], kb[axis]);
        } else if (s == "window") {
            ok = qa[axis] / m == kb[axis] / m;
        } else if (s == "shifted_window") {
            const std::int64_t sigma = (m - m / 2) % m;
            ok = (qa[axis] + sigma) / m == (kb[axis] + sigma) / m;
        } else if (s == "tile_neighborhood") {
            const std::int64_t K = perAxis(args, dims, p.dims)[axis];
            ok = natten(L / m, K, 1, qa[axis] / m, kb[axis] / m);
        }
        if (!ok) return false;
    }
    return true;
}

// term := leaf ('&' leaf)*, each leaf possibly negated; expression := term ('|' term)*.
using Expression = std::vector<std::vector<Term>>;

std::string print(const Expression& expression) {
    std::string text;
    for (const auto& term : expression) {
        std::string part;
        for (const auto& leaf : term) {
            part += (part.empty() ? "" : " & ") + std::string(leaf.negate ? "!" : "") + leaf.name;
            for (std::size_t a = 0; a < leaf.args.size(); ++a) part += (a ? ", " : "(") + std::to_string(leaf.args[a]);
            if (!leaf.args.empty()) part += ")";
        }
        text += (text.empty() ? "" : " | ") + part;
    }
    return text;
}

std::vector<std::int64_t> divisors(std::int64_t L) {
    std::vector<std::int64_t> result;
    for (std::int64_t d = 1; d <= L; ++d)
        if (L % d == 0) result.push_back(d);
    return result;
}

class Maker {
public:
    explicit Maker(std::uint64_t seed) : m_rng(seed) {}
    std::int64_t pick(std::int64_t bound) { return static_cast<std::int64_t>(m_rng() % static_cast<std::uint64_t>(bound)); }

    Term leaf(const Problem& p) {
        static const char* names[] = {"neighborhood", "window",   "shifted_window", "tile_neighborhood", "same_row", "same_col",
                                      "same_frame",   "same_pixel", "band",         "stride",            "block",    "sink",
                                      "diag",         "neighborhood", "tile_neighborhood", "shifted_window"};
        Term t;
        t.name = names[pick(16)];
        t.negate = pick(6) == 0;
        const auto dims = static_cast<std::size_t>(p.dims);
        const auto axes = [&](auto value) {
            std::vector<std::int64_t> v;
            for (std::size_t k = 3 - dims; k < 3; ++k) v.push_back(value(p.sizes[k]));
            return v;
        };
        if (t.name == "band" || t.name == "sink") t.args = {pick(p.n() + 2)};
        if (t.name == "stride" || t.name == "block") t.args = {1 + pick(p.n() + 1)};
        if (t.name == "window" || t.name == "shifted_window") {
            const std::int64_t shortest = *std::min_element(p.sizes.begin() + static_cast<std::ptrdiff_t>(3 - dims), p.sizes.end());
            t.args = pick(2) ? std::vector<std::int64_t>{1 + pick(shortest + 2)} : axes([&](std::int64_t L) { return 1 + pick(L + 2); });
        }
        if (t.name == "neighborhood") {
            const std::int64_t shortest = *std::min_element(p.sizes.begin() + static_cast<std::ptrdiff_t>(3 - dims), p.sizes.end());
            switch (pick(3)) {
            case 0: t.args = {1 + pick(shortest)}; break;
            case 1: t.args = axes([&](std::int64_t L) { return 1 + pick(L); }); break;
            default: {
                std::vector<std::int64_t> kernels, dilations;
                for (std::size_t k = 3 - dims; k < 3; ++k) {
                    const std::int64_t kernel = 1 + pick(p.sizes[k]);
                    kernels.push_back(kernel);
                    dilations.push_back(1 + pick(p.sizes[k] / kernel));
                }
                t.args = kernels;
                t.args.insert(t.args.end(), dilations.begin(), dilations.end());
            }
            }
        }
        if (t.name == "tile_neighborhood") {
            std::vector<std::int64_t> tiles, kernels;
            for (std::size_t k = 3 - dims; k < 3; ++k) {
                const auto options = divisors(p.sizes[k]);
                const std::int64_t tile = options[static_cast<std::size_t>(pick(static_cast<std::int64_t>(options.size())))];
                tiles.push_back(tile);
                kernels.push_back(1 + pick(p.sizes[k] / tile));
            }
            t.args = tiles;
            t.args.insert(t.args.end(), kernels.begin(), kernels.end());
        }
        return t;
    }

    Expression expression(const Problem& p) {
        Expression e(static_cast<std::size_t>(1 + pick(3)));
        for (auto& term : e)
            for (std::int64_t k = 0, count = 1 + pick(2); k < count; ++k) term.push_back(leaf(p));
        return e;
    }

private:
    std::mt19937_64 m_rng;
};

std::vector<std::uint8_t> expectedComponents(const Expression& e, const Problem& p, bool causal) {
    const std::int64_t n = p.n();
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(n * n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        bool any = false;
        for (std::int64_t j = 0; j < n && !(causal && j > i); ++j)
            for (std::size_t k = 0; k < e.size(); ++k) {
                const bool in = std::all_of(e[k].begin(), e[k].end(),
                                            [&](const Term& leaf) { return leafContains(leaf, p, i, j) != leaf.negate; });
                if (in) {
                    labels[static_cast<std::size_t>(i * n + j)] = static_cast<std::uint8_t>(k + 1);
                    any = true;
                    break;
                }
            }
        if (!any) labels[static_cast<std::size_t>(i * n + i)] = 255;
    }
    return labels;
}

struct GridCase {
    std::vector<std::int64_t> grid; // as --grid takes it
    std::string order;
    std::vector<std::int64_t> tile;
};

std::string orderText(const GridCase& c) {
    if (c.order != "tiles") return c.order;
    std::string text = "tiles:";
    for (std::size_t k = 0; k < c.tile.size(); ++k) text += (k ? "," : "") + std::to_string(c.tile[k]);
    return text;
}

std::vector<GridCase> gridCases() {
    std::vector<GridCase> cases;
    const std::vector<std::vector<std::int64_t>> grids = {{1, 9}, {7, 5}, {3, 4, 4}, {4, 4}, {6, 4}, {5, 1}, {2, 3, 5}, {4, 8}};
    for (const auto& grid : grids) {
        cases.push_back({grid, "raster", {}});
        cases.push_back({grid, "morton", {}});
        std::vector<std::int64_t> tile;
        for (const std::int64_t L : grid) tile.push_back(divisors(L)[divisors(L).size() > 1 ? 1 : 0]);
        cases.push_back({grid, "tiles", tile});
    }
    cases.push_back({{6, 4}, "tiles", {3, 2}});
    cases.push_back({{3, 4, 4}, "tiles", {3, 2, 4}});
    return cases;
}

Problem problemOf(const GridCase& c) {
    Problem p;
    p.dims = static_cast<int>(c.grid.size());
    p.sizes = c.grid.size() == 2 ? std::vector<std::int64_t>{1, c.grid[0], c.grid[1]} : c.grid;
    p.cells = cellsInOrder(p.sizes[0], p.sizes[1], p.sizes[2], c.order, c.tile);
    return p;
}

} // namespace
} // namespace attnlab::grid_reference
