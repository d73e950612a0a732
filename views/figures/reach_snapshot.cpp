#include "views/figures/reach_snapshot.h"
#include "views/i18n/language.h"

#include "views/figures/view_inputs.h"

#include "core/registry.h"

#include <QCoreApplication>
#include <algorithm>
#include <optional>

namespace attnlab {

namespace {

QString choiceName(const VariantChoice& choice, const QString& displayName) {
    QStringList items;
    for (const auto& [key, value] : choice.params) items << QString::fromStdString(key + "=" + value);
    return items.isEmpty() ? displayName : displayName + QStringLiteral(" (") + items.join(QStringLiteral(", ")) + QLatin1Char(')');
}

QString resolvedText(const ParamSet& params) {
    QStringList items;
    for (const auto& [key, value] : params.values()) items << QString::fromStdString(key + "=" + paramValueText(value));
    return items.join(QLatin1Char(' '));
}

// Folds one query's hops (n values) into heatmap row `row`, keeping the fewest hops per column block.
void foldRow(ReceptiveFieldView::Panel& panel, int row, const std::uint8_t* hops) {
    std::uint8_t* out = panel.cells.data() + static_cast<std::size_t>(row) * panel.cols;
    for (int x = 0; x < panel.cols; ++x) {
        const std::int64_t begin = blockStart(x, panel.cols, panel.n), end = blockStart(x + 1, panel.cols, panel.n);
        out[x] = std::min(out[x], *std::min_element(hops + begin, hops + end));
    }
}

// Returns false when cancelled.
bool fillHeatmap(ReceptiveFieldView::Panel& panel, const Pattern& pattern, const CancelCheck& cancelled) {
    const std::int64_t n = pattern.size();
    const std::int64_t cells = std::min(n, ReceptiveFieldView::kHeatmapCells);
    const bool exact = n <= ReceptiveFieldView::kMaxHopMatrixN;
    panel.cols = static_cast<int>(cells);
    panel.rows = static_cast<int>(exact ? cells : ReceptiveFieldView::kSampledQueries);
    panel.cells.assign(static_cast<std::size_t>(panel.rows) * panel.cols, static_cast<std::uint8_t>(panel.layers + 1));
    if (exact) {
        const HopMatrix matrix = hopMatrix(pattern, panel.layers, cancelled);
        if (matrix.cancelled) return false;
        for (int y = 0; y < panel.rows; ++y)
            for (std::int64_t i = blockStart(y, cells, n); i < blockStart(y + 1, cells, n); ++i)
                foldRow(panel, y, matrix.hops.data() + i * n);
        if (cells < n)
            panel.heatmapNote = QCoreApplication::translate("attnlab::ReceptiveFieldView", "n = %1: each cell is a block of about %2 × %2 pairs showing its fewest hops")
                                    .arg(n).arg(static_cast<double>(n) / static_cast<double>(cells), 0, 'g', 3);
    } else {
        panel.sampledRows = true;
        for (int y = 0; y < panel.rows; ++y) {
            if (cancelled && cancelled()) return false;
            foldRow(panel, y, hopsFrom(pattern, sampledRow(y, panel.rows, n), panel.layers).data());
        }
        panel.heatmapNote = QCoreApplication::translate("attnlab::ReceptiveFieldView", "n = %1 > %2: heatmap and curves from %3 evenly spaced queries i (rows); each cell "
                                           "shows the fewest hops over its %4 keys")
                                .arg(n).arg(ReceptiveFieldView::kMaxHopMatrixN).arg(panel.rows).arg(n / cells);
    }
    panel.image = QImage(panel.cols, panel.rows, QImage::Format_RGB32);
    for (int y = 0; y < panel.rows; ++y) {
        auto* line = reinterpret_cast<QRgb*>(panel.image.scanLine(y));
        for (int x = 0; x < panel.cols; ++x) line[x] = ReceptiveFieldView::hopColor(panel.cells[static_cast<std::size_t>(y) * panel.cols + x], panel.layers);
    }
    return true;
}

ReceptiveFieldView::Panel buildPanel(const LabSettings& settings, const VariantChoice& choice, const VariantInfo* variant,
                                     const std::optional<ProblemInputs>& inputs, const CancelCheck& cancelled) {
    ReceptiveFieldView::Panel panel;
    panel.choice = choice;
    panel.name = QString::fromStdString(choice.variant);
    panel.layers = static_cast<int>(settings.layers);
    try {
        if (!variant) variant = &requireVariant(choice.variant); // throws, naming the known ids
        panel.name = choiceName(choice, coreText(variant->displayName));
        panel.error = compareCausalProblem(settings, *variant);
        if (!panel.error.isEmpty()) return panel;
        const ResolvedVariant resolved = resolveViewVariant(choiceSettings(settings, choice), *variant, choice.params, inputs ? &*inputs : nullptr);
        ViewPattern built = buildViewPattern(resolved, settings.head, inputs ? &*inputs : nullptr);
        const ProblemShape& shape = resolved.shape;
        const ParamSet& params = resolved.params;
        std::shared_ptr<const Pattern> shared = std::move(built.pattern);
        const Pattern* pattern = shared.get();
        panel.n = shape.n;
        panel.causal = shape.causal;
        panel.paramsText = resolvedText(params);
        panel.curve = reachCurve(*pattern, panel.layers, ReceptiveFieldView::reachSources(shape.n), cancelled);
        if (panel.curve.cancelled || !fillHeatmap(panel, *pattern, cancelled)) return panel;
        if (variant->reachTheory) panel.theory = variant->reachTheory(shape, params, panel.layers);
        panel.pattern = std::move(shared);
    } catch (const std::exception& error) {
        panel.error = QString::fromStdString(error.what());
        panel.curve = ReachCurve();
        panel.image = QImage();
    }
    return panel;
}

bool needsInputs(const LabSettings& settings, const std::vector<const VariantInfo*>& variants) {
    for (const VariantInfo* variant : variants)
        if (variant && variant->dataDependentPattern) return true;
    return settings.source == InputSource::NpyFiles;
}

} // namespace

ReceptiveFieldView::Snapshot buildReachSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    ReceptiveFieldView::Snapshot snapshot;
    snapshot.settings = settings;
    std::optional<ProblemInputs> inputs;
    QString inputError;
    const std::vector<VariantChoice> choices = chosenVariants(settings);
    const std::vector<const VariantInfo*> variants = chosenVariantInfos(choices);
    if (needsInputs(settings, variants)) {
        try {
            inputs = loadInputs(settings, variants.front() ? *variants.front() : requireVariant(choices.front().variant));
            snapshot.note = inputs->note;
        } catch (const std::exception& error) {
            inputError = QString::fromStdString(error.what());
        }
    }
    for (std::size_t index = 0; index < choices.size(); ++index) {
        if (cancelled()) break;
        ReceptiveFieldView::Panel panel = buildPanel(settings, choices[index], variants[index], inputs, cancelled);
        if (!inputError.isEmpty() && settings.source == InputSource::NpyFiles) panel.error = inputError;
        // A compared panel with a title (a preset's "(a) raster order") is named by it, as in the pattern view.
        if (choices.size() > 1 && index < settings.panelTitles.size() && !settings.panelTitles[index].empty())
            panel.name = QString::fromStdString(settings.panelTitles[index]);
        snapshot.panels.push_back(std::move(panel));
    }
    snapshot.grid = settingsGrid(settings);
    if (!snapshot.grid) return snapshot;
    snapshot.query = gridQueryOf(settings, *snapshot.grid);
    for (auto& panel : snapshot.panels)
        if (panel.pattern && panel.n == snapshot.grid->cells() && !cancelled())
            panel.picture = std::make_shared<const GridPicture>(panelHopPicture(snapshot, panel, snapshot.query));
    return snapshot;
}

GridPicture panelHopPicture(const ReceptiveFieldView::Snapshot& snapshot, const ReceptiveFieldView::Panel& panel, std::int64_t query) {
    const TokenGridPtr own = choiceGrid(snapshot.settings, panel.choice);
    const TokenGrid& grid = own ? *own : *snapshot.grid;
    return hopGridPicture(*panel.pattern, grid, cellPosition(*snapshot.grid, query, grid), panel.layers);
}

GridPicture hopGridPicture(const Pattern& pattern, const TokenGrid& grid, std::int64_t query, int layers) {
    GridPicture picture = emptyGridPicture(grid, query);
    const std::vector<std::uint8_t> hops = hopsFrom(pattern, query, layers);
    for (std::int64_t p = 0; p < grid.cells(); ++p) {
        const int hop = hops[static_cast<std::size_t>(p)];
        if (hop > layers) continue;
        setGridPictureCell(picture, grid, p, ReceptiveFieldView::hopColor(hop, layers));
        ++picture.attended;
    }
    return picture;
}

} // namespace attnlab
