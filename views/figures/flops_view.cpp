#include "views/figures/flops_view.h"
#include "views/figures/preset_papers.h"
#include "views/i18n/language.h"

#include "core/analysis/flop_breakdown.h"
#include "core/errors.h"
#include "core/registry.h"
#include "views/figures/csv_text.h"
#include "views/figures/pattern_grid.h"
#include "views/figures/view_inputs.h"
#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"
#include "views/plot/figure_text.h"
#include "views/plot/text_style.h"
#include "views/plot/variant_colors.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

namespace attnlab {

namespace {

// Pixels a block-kernel label keeps clear of the bar chart's right frame.
constexpr double kFrameClearance = 4.0;

// A GAU layer's terms where they differ from a standard layer's (e = 2hd, s = 128, one head).
QString gauTermLabel(const std::string& term) {
    const std::map<std::string, QString> labels = {
        {"uv_proj", FlopsView::tr("U, V projections 2n(hd)e")},
        {"z_proj", FlopsView::tr("Z projection n(hd)s")},
        {"scores", FlopsView::tr("scores nnz·s")},
        {"weights_v", FlopsView::tr("weights × V nnz·e")},
        {"out_proj", FlopsView::tr("output projection n·e(hd)")},
        {"linear_state", FlopsView::tr("linear state 2n·s·e")},
    };
    const auto found = labels.find(term);
    return found != labels.end() ? found->second : QString();
}

// costTermColor, with the GAU layer's two input projections in the colours of the standard layer's input
// projection and of a term a GAU layer does not have.
QColor termColor(const std::string& term) {
    if (term == "uv_proj") return costTermColor("qkv_proj");
    if (term == "z_proj") return costTermColor("feature_map");
    return costTermColor(term);
}

// The term's multiply-adds for the variant on screen, all heads, in the cost model's notation
// (docs/cost_model.md, "The terms of a layer"); nnz is the mask's allowed pairs of one head.
QString termFormula(const std::string& term, const LabSettings& settings) {
    const std::string& variant = settings.variant;
    if (term == "scores" || term == "weights_v") {
        if (variant == "linformer") return QStringLiteral("n·k·hd");
        if (variant == "full") return settings.causal ? QStringLiteral("n(n+1)/2·hd") : QStringLiteral("n²·hd");
        return QStringLiteral("nnz·hd");
    }
    if (term == "relpos") return QStringLiteral("nnz·hd");
    if (term == "feature_map") return variant == "performer" ? QStringLiteral("2n·m·hd") : QStringLiteral("2n·hd");
    if (term == "linear_state") return variant == "performer" ? QStringLiteral("2n·m·hd") : QStringLiteral("2n·d·hd");
    if (term == "projection") return QStringLiteral("2k·n·hd");
    if (term == "hashing") return QStringLiteral("rounds·n·b·hd");
    return {};
}

// Every stacked term with its formula: the names that carry theirs already (the projections, the FFN,
// the GAU layer's terms) as they are, the others followed by termFormula.
QString termLabel(const std::string& term, const LabSettings& settings, LayerKind layer) {
    if (layer == LayerKind::Gau) {
        const QString gau = gauTermLabel(term);
        if (!gau.isEmpty()) return gau;
    }
    const std::map<std::string, QString> labels = {
        {"qkv_proj", FlopsView::tr("QKV projections 3n(hd)²")},
        {"scores", FlopsView::tr("scores QKᵀ")},
        {"weights_v", FlopsView::tr("weights × V")},
        {"out_proj", FlopsView::tr("output projection n(hd)²")},
        {"ffn", FlopsView::tr("FFN 8n(hd)²")},
        {"feature_map", FlopsView::tr("feature map")},
        {"linear_state", FlopsView::tr("linear state")},
        {"projection", FlopsView::tr("low-rank projection")},
        {"relpos", FlopsView::tr("relative position q·R")},
        {"hashing", FlopsView::tr("LSH hashing")},
    };
    const auto found = labels.find(term);
    const QString name = found != labels.end() ? found->second : QString::fromStdString(term);
    const QString formula = termFormula(term, settings);
    return formula.isEmpty() ? name : name + QLatin1Char(' ') + formula;
}

} // namespace

FlopsView::FlopsView(QWidget* parent) : FigureView(parent) { watchJobs(m_jobs); }

QString FlopsView::title() const {
    const QString variant = QString::fromStdString(m_settings.variant);
    const QString title = gauLayer() ? FlopsView::tr("Where one GAU layer's %1 go (FLASH): %2, hd=%3, e=2hd, s=128")
                                           .arg(unitName(), variant)
                                           .arg(m_settings.heads * m_settings.d)
                                     : FlopsView::tr("Where one layer's %1 go: %2, h=%3, d=%4 (hd=%5)")
                                           .arg(unitName(), variant)
                                           .arg(m_settings.heads)
                                           .arg(m_settings.d)
                                           .arg(m_settings.heads * m_settings.d);
    const QString grid = gridText(m_settings);
    const QString paper = presetPaper(m_settings.preset);
    const QString named = paper.isEmpty() ? title : title + QStringLiteral(" — ") + paper;
    return grid.isEmpty() ? named : FlopsView::tr("%1, on a %2").arg(named, grid);
}

QString FlopsView::unitName() const { return m_settings.flopsAsMacs ? FlopsView::tr("MACs") : FlopsView::tr("FLOPs"); }

// Whose exponentials the current variant computes: the softmax's, a feature map's (linear, performer),
// or none (relu², the taylor kernel).
QString FlopsView::exponentialsText() const {
    if (!(m_current->exps > 0)) return FlopsView::tr("no exponentials at n=%1").arg(m_settings.n);
    const auto featureMap = m_current->terms.find("feature_map");
    const QString text = featureMap != m_current->terms.end() && featureMap->second > 0
                             ? FlopsView::tr("feature map φ: %1 exps at n=%2 (not %3)")
                             : FlopsView::tr("softmax: %1 exps at n=%2 (not %3)");
    return text.arg(compactNumber(m_current->exps)).arg(m_settings.n).arg(unitName());
}

QString FlopsView::caption() const {
    if (gauLayer())
        return settingsCaption(m_settings) +
               FlopsView::tr("   |   convention: 1 MAC = one multiply-add (an a×b by b×c product is a·b·c MACs); "
                             "FLOPs = 2 × MACs. FLASH's GAU layer: expansion e = 2hd, one head of size s = 128, no FFN; "
                             "its gates and offsets are element-wise and not counted. Shown in %1.")
                   .arg(unitName());
    return settingsCaption(m_settings) +
           FlopsView::tr("   |   convention: 1 MAC = one multiply-add (an a×b by b×c product is a·b·c MACs); "
                          "FLOPs = 2 × MACs; softmax exponentials are counted apart, not as MACs. Model width hd, "
                          "FFN width 4hd. Shown in %1.")
               .arg(unitName());
}

bool FlopsView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::CostFigure);
}

void FlopsView::startWork() {
    m_jobs.bumpGeneration();
    m_jobs.submit<FlopBreakdown>([settings = m_settings](const CancelCheck& cancelled) { return flopBreakdown(settings, cancelled); },
                                 [this](const FlopBreakdown& breakdown) {
                                     m_layer = breakdown.layer;
                                     m_sweep = breakdown.sweep;
                                     m_bars = breakdown.bars;
                                     m_leftOut = breakdown.leftOut;
                                     m_terms = breakdown.terms;
                                     m_current = breakdown.current;
                                     m_crossovers = breakdown.crossovers;
                                     m_error = QString::fromStdString(breakdown.error);
                                     m_note = QString::fromStdString(breakdown.note);
                                     if (!m_note.isEmpty()) emit statusMessage(m_note);
                                     update();
                                 });
    update();
}

void FlopsView::drawFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = paintFrame(painter, rect, title(), caption());
    const double split = body.left() + body.width() * 0.6;
    const QRectF left(body.topLeft(), QPointF(split - 8, body.bottom()));
    if (gauLayer() && !m_sweep.empty()) {
        const double cut = left.top() + left.height() * 0.6;
        paintStack(painter, QRectF(left.topLeft(), QPointF(left.right(), cut - 6)));
        paintGauComparison(painter, QRectF(QPointF(left.left(), cut + 6), left.bottomRight()));
    } else {
        paintStack(painter, left);
    }
    paintBars(painter, QRectF(QPointF(split + 8, body.top()), body.bottomRight()));
}

void FlopsView::paintStack(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const SweepPoint& point : m_sweep) xs.push_back(static_cast<double>(point.n));
    std::vector<double> range = xs;
    const TokenGridPtr grid = settingsGrid(m_settings);
    if (range.empty()) // the axes of the sweep a notice stands in for
        for (const std::int64_t n : flopSweepSizes(m_settings.heads, m_settings.d, grid.get())) range.push_back(static_cast<double>(n));
    Axis x = Axis::fitted(sweepAxisLabel(), AxisScale::Log2, range);
    Axis y;
    // The GAU stack is shorter (its comparison sits under it): a label that fits its height.
    y.label = gauLayer() ? FlopsView::tr("share of the layer (%)") : FlopsView::tr("share of the layer's %1 (%)").arg(unitName());
    y.min = 0;
    y.max = 100;
    std::vector<std::vector<double>> layers;
    std::vector<QColor> colors;
    std::vector<LegendEntry> legend;
    for (const std::string& term : m_terms) {
        std::vector<double> shares;
        for (const SweepPoint& point : m_sweep) {
            const auto found = point.cost.terms.find(term);
            shares.push_back(found == point.cost.terms.end() ? 0.0 : 100.0 * found->second / point.cost.layerMacs);
        }
        if (shares.empty() || *std::max_element(shares.begin(), shares.end()) <= 0) continue;
        layers.push_back(std::move(shares));
        colors.push_back(termColor(term));
        legend.push_back({termLabel(term, m_settings, m_layer), termColor(term), Qt::SolidLine, true});
    }
    std::reverse(legend.begin(), legend.end()); // top of the stack first
    if (m_current)
        legend.push_back({exponentialsText(), Qt::black, Qt::NoPen, false});
    if (!m_note.isEmpty()) legend.push_back({m_note, Qt::black, Qt::NoPen, false});
    const QRectF chart = aboveLegend(painter, area, legend);
    const PlotAxes axes(painter, chart, x, y, FlopsView::tr("Layer terms stacked (share of the whole layer)"));
    axes.drawAxes();
    drawLegendBelow(painter, QRectF(area.left(), chart.bottom(), area.width(), area.bottom() - chart.bottom()), legend);
    if (m_sweep.empty()) {
        const VariantInfo* variant = findVariant(m_settings.variant);
        const QString leftOut = variant ? compareCausalProblem(m_settings, *variant) : QString();
        axes.drawNotice(!leftOut.isEmpty()    ? leftOut
                        : m_error.isEmpty() ? FlopsView::tr("no valid n for these parameters")
                                            : m_error);
        return;
    }
    axes.drawStackedAreas(xs, layers, colors);
    std::vector<VerticalMarker> markers = {{static_cast<double>(m_settings.n), FlopsView::tr("current n = %1").arg(m_settings.n),
                                    QColor(0x55, 0x55, 0x55), 2}};
    // Only crossovers this case has, each at its own threshold: "n > 2hd = 1536" (bidirectional full),
    // "n > 4hd - 1 = 3071" (causal), none for linear attention's n² term.
    auto addCrossover = [&](const Crossover& crossover, const QString& what, int row) {
        if (crossover.threshold && *crossover.threshold > 0)
            markers.push_back({static_cast<double>(*crossover.threshold),
                               QStringLiteral("%1: %2").arg(crossoverText(crossover), what), Qt::black, row});
    };
    addCrossover(m_crossovers.attentionExceedsFfn, FlopsView::tr("attention > FFN"), 0);
    addCrossover(m_crossovers.coreDominates, FlopsView::tr("attention core dominates"), 1);
    axes.drawVerticalMarkers(markers);
}

QString FlopsView::sweepAxisLabel() const {
    return settingsGrid(m_settings) ? FlopsView::tr("image cells n = H·W (the grid scaled, aspect and order kept)")
                                    : FlopsView::tr("sequence length n");
}

// FLASH keeps a standard model's parameter count with two GAU layers per attention + FFN layer (3·hd·e
// parameters each against 12(hd)²): what that trade costs in multiply-adds at each n.
void FlopsView::paintGauComparison(QPainter& painter, const QRectF& area) const {
    Series ratio{FlopsView::tr("two GAU layers ÷ one layer of full attention + FFN 4hd"), seriesColor(1), {}};
    std::vector<double> xs, ys = {1.0};
    for (const SweepPoint& point : m_sweep) {
        if (!(point.standardLayerMacs > 0)) continue;
        const double value = 2.0 * point.cost.layerMacs / point.standardLayerMacs;
        ratio.points.emplace_back(static_cast<double>(point.n), value);
        xs.push_back(static_cast<double>(point.n));
        ys.push_back(value);
    }
    const Axis x = Axis::fitted(sweepAxisLabel(), AxisScale::Log2, xs);
    const Axis y = Axis::fitted(FlopsView::tr("ratio"), AxisScale::Linear, ys);
    const Series equal{FlopsView::tr("equal cost"), QColor(0x55, 0x55, 0x55), {{x.min, 1.0}, {x.max, 1.0}}, Qt::DashLine, false, 1.2};
    const std::vector<LegendEntry> legend = {{ratio.name, ratio.color, Qt::SolidLine, false},
                                             {equal.name, equal.color, Qt::DashLine, false}};
    const QRectF chart = aboveLegend(painter, area, legend);
    const PlotAxes axes(painter, chart, x, y, FlopsView::tr("FLASH's trade: two GAU layers in place of one attention + FFN layer"));
    axes.drawAxes();
    axes.drawSeries(equal);
    axes.drawSeries(ratio);
    axes.drawVerticalMarkers({{static_cast<double>(m_settings.n), FlopsView::tr("current n = %1").arg(m_settings.n), QColor(0x55, 0x55, 0x55), 0}});
    drawLegendBelow(painter, QRectF(area.left(), chart.bottom(), area.width(), area.bottom() - chart.bottom()), legend);
}

std::vector<QColor> FlopsView::barColours() const {
    std::vector<std::string> variants;
    for (const CoreBar& bar : m_bars) variants.push_back(bar.variant);
    return variantColors(variants);
}

void FlopsView::paintBars(QPainter& painter, const QRectF& area) const {
    QStringList names;
    std::vector<double> values;
    const std::vector<QColor> colors = barColours();
    for (const CoreBar& bar : m_bars) {
        names << (bar.order.empty() ? QString::fromStdString(bar.variant)
                                    : FlopsView::tr("%1 (order %2)").arg(QString::fromStdString(bar.variant), QString::fromStdString(bar.order)));
        values.push_back(bar.attentionMacs * unitFactor());
    }
    std::vector<double> range = values;
    for (const CoreBar& bar : m_bars)
        if (bar.block) range.push_back(bar.block->blockMacs * unitFactor());
    // The bar panel is the narrow one: its title and axis label are short enough to stay whole there.
    Axis x = Axis::fitted(FlopsView::tr("core %1, log scale").arg(unitName()), AxisScale::Log10, range);
    std::vector<LegendEntry> legend = {{FlopsView::tr("each bar in its variant's colour; the chosen variants with their parameters, the others with their defaults"),
                                        QColor(), Qt::NoPen, false},
                                       {FlopsView::tr("hatched: a block kernel's cost, B=%1").arg(m_settings.blockCost), QColor(0x55, 0x55, 0x55),
                                        Qt::SolidLine, false},
                                       {FlopsView::tr("block ×r: computed ÷ allowed cells (all of each non-empty block)"), QColor(), Qt::NoPen,
                                        false}};
    for (const std::string& id : m_leftOut)
        legend.push_back({causalFormProblem(requireVariant(id), askedCausal(m_settings)), Qt::black, Qt::NoPen, false});
    const QRectF chart = aboveLegend(painter, area, legend);
    const PlotAxes axes(painter, chart, x, Axis::categorical(QString(), names),
                        FlopsView::tr("Attention cores at n = %1").arg(m_settings.n));
    axes.drawAxes();
    axes.drawHorizontalBars(values, colors);
    paintBlockBars(painter, axes, names.size());
    drawLegendBelow(painter, QRectF(area.left(), chart.bottom(), area.width(), area.bottom() - chart.bottom()), legend);
}

// Under each bar that has one, a thinner hatched bar to the block kernel's cost, labelled with its ratio
// to the exact cost past the end of both bars and the exact value's label.
void FlopsView::paintBlockBars(QPainter& painter, const PlotAxes& axes, qsizetype categories) const {
    const QRectF plot = axes.plotRect();
    const double slot = plot.height() / static_cast<double>(std::max<qsizetype>(1, categories));
    QFont small = painter.font();
    small.setPointSizeF(smallPrintPoints(small.pointSizeF() * 0.8));
    const QFontMetricsF exactMetrics(painter.font(), painter.device()), metrics(small, painter.device());
    const std::vector<QColor> colours = barColours();
    painter.save();
    painter.setFont(small);
    for (std::size_t k = 0; k < m_bars.size(); ++k) {
        const CoreBar& bar = m_bars[k];
        if (!bar.block) continue;
        const double y = axes.mapY(static_cast<double>(k)) + 0.31 * slot;
        const double end = std::clamp(axes.mapX(bar.block->blockMacs * unitFactor()), plot.left(), plot.right());
        const QRectF rect(plot.left(), y, end - plot.left(), 0.17 * slot);
        const QColor colour = colours[k];
        painter.setPen(QPen(colour.darker(130), 0.6));
        painter.setBrush(QBrush(colour, Qt::BDiagPattern));
        painter.drawRect(rect);
        // The exact value's label where drawHorizontalBars puts it: past the bar's end, or inside it.
        const double barEnd = std::clamp(axes.mapX(bar.attentionMacs * unitFactor()), plot.left(), plot.right());
        const double exactWidth = exactMetrics.horizontalAdvance(compactNumber(bar.attentionMacs * unitFactor()));
        const double exactLeft = barEnd + 4 + exactWidth <= plot.right() ? barEnd + 4 : barEnd - 4 - exactWidth;
        const QRectF exactLabel(exactLeft, axes.mapY(static_cast<double>(k)) - exactMetrics.height() / 2, exactWidth + 1, exactMetrics.height());
        const QString text = FlopsView::tr("block ×%1").arg(bar.block->ratio(), 0, 'f', 2);
        const double width = metrics.horizontalAdvance(text) + 2;
        // Past the end of both bars, else on a white ground inside the hatched bar at its start or at its
        // end, wherever it covers neither the exact value nor the plot's frame (a label against the frame
        // reads as running out of the chart); left out otherwise (the CSV has it).
        const double top = rect.center().y() - metrics.height() / 2;
        const double room = plot.right() - kFrameClearance;
        std::optional<QRectF> box;
        for (const double left : {std::max(end, exactLabel.right()) + 4, plot.left() + 2, end - width - 2}) {
            const QRectF candidate(left, top, width, metrics.height());
            if (candidate.left() >= plot.left() && candidate.right() <= room && !candidate.intersects(exactLabel)) {
                box = candidate;
                break;
            }
        }
        if (!box) continue;
        painter.fillRect(*box, QColor(255, 255, 255, 220));
        painter.setPen(QColor(0x33, 0x33, 0x33));
        drawAlignedText(painter, *box, Qt::AlignCenter, text);
    }
    painter.restore();
}

QString FlopsView::csvData() const {
    // Long format: one quantity per row, in the unit the figure shows.
    QString csv = QStringLiteral("series,variant,n,quantity,value,unit\n");
    const QString unit = m_settings.flopsAsMacs ? QStringLiteral("macs") : QStringLiteral("flops");
    const auto row = [&](const QString& series, const std::string& variant, double n, const QString& quantity,
                         double value, const QString& rowUnit) {
        csv += QStringLiteral("%1,%2,%3,%4,%5,%6\n")
                   .arg(series, csvField(QString::fromStdString(variant)), QString::number(n, 'g', 17), quantity,
                        QString::number(value, 'g', 17), rowUnit);
    };
    for (const SweepPoint& point : m_sweep) {
        for (const std::string& term : m_terms)
            if (const auto found = point.cost.terms.find(term); found != point.cost.terms.end())
                row(QStringLiteral("layer"), m_settings.variant, static_cast<double>(point.n), QString::fromStdString(term),
                    found->second * unitFactor(), unit);
        row(QStringLiteral("layer"), m_settings.variant, static_cast<double>(point.n), QStringLiteral("exps"), point.cost.exps,
            QStringLiteral("exps"));
        row(QStringLiteral("layer"), m_settings.variant, static_cast<double>(point.n), QStringLiteral("layer_total"),
            point.cost.layerMacs * unitFactor(), unit);
        if (!(point.standardLayerMacs > 0)) continue;
        row(QStringLiteral("gau_comparison"), m_settings.variant, static_cast<double>(point.n), QStringLiteral("two_gau_layers"),
            2.0 * point.cost.layerMacs * unitFactor(), unit);
        row(QStringLiteral("gau_comparison"), "full", static_cast<double>(point.n), QStringLiteral("attention_ffn_layer"),
            point.standardLayerMacs * unitFactor(), unit);
    }
    for (const CoreBar& bar : m_bars) {
        // A panel's own token order in the variant column, as --compare names it.
        const std::string variant = bar.order.empty() ? bar.variant : bar.variant + " order=" + bar.order;
        row(QStringLiteral("core_at_n"), variant, static_cast<double>(m_settings.n), QStringLiteral("attention"),
            bar.attentionMacs * unitFactor(), unit);
        if (!bar.block) continue;
        // The block kernel's cost at the settings' block size, with the counts it comes from.
        const auto block = [&](const QString& quantity, double value, const QString& rowUnit) {
            row(QStringLiteral("block_kernel_at_n"), variant, static_cast<double>(m_settings.n), quantity, value, rowUnit);
        };
        block(QStringLiteral("attention"), bar.block->blockMacs * unitFactor(), unit);
        block(QStringLiteral("block_size"), static_cast<double>(bar.block->blocks.size), QStringLiteral("cells"));
        block(QStringLiteral("computed_cells"), static_cast<double>(bar.block->blocks.computedCells), QStringLiteral("cells"));
        block(QStringLiteral("allowed_cells"), static_cast<double>(bar.block->blocks.allowedCells), QStringLiteral("cells"));
        block(QStringLiteral("full_blocks"), static_cast<double>(bar.block->blocks.full), QStringLiteral("blocks"));
        block(QStringLiteral("partial_blocks"), static_cast<double>(bar.block->blocks.partial), QStringLiteral("blocks"));
        block(QStringLiteral("empty_blocks"), static_cast<double>(bar.block->blocks.empty), QStringLiteral("blocks"));
    }
    auto crossoverRow = [&](const Crossover& crossover, const QString& name) {
        if (!crossover.threshold) return;
        const auto n = static_cast<double>(*crossover.threshold);
        const QString form = crossover.closedForm.empty() ? QString() : QStringLiteral("=") + QString::fromStdString(crossover.closedForm);
        row(QStringLiteral("marker"), {}, n, name + QStringLiteral("_n") + form, n, QStringLiteral("n"));
    };
    crossoverRow(m_crossovers.attentionExceedsFfn, QStringLiteral("attention_exceeds_ffn"));
    crossoverRow(m_crossovers.coreDominates, QStringLiteral("core_dominates"));
    crossoverRow(m_crossovers.linearBeatsFull, QStringLiteral("linear_beats_full"));
    return csv;
}

} // namespace attnlab
