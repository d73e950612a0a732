// What the figures' small print states, read back from the painted text: weights drawn from generated
// Q/K say so; a panel's "% of full" compares with full attention in its own direction (causal with
// causal); Transformer-XL's core MACs name their relative-position term; and the timing figure names the
// points a fixed cost per call dominates, computed from the measurement shown (a clock that adds a fixed
// time to every timed call stands for the overhead, so the machine's speed plays no part).

#include "gui/measure_clocks.h"
#include "gui/text_recorder.h"
#include "views/figures/figure_export.h"
#include "views/figures/pattern_view.h"
#include "views/figures/timing_view.h"

#include "core/analysis/timing_sweep.h"
#include "core/measure/thread_cpu_clock.h"

#include <gtest/gtest.h>

#include <QRegularExpression>

#include <atomic>
#include <memory>
#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;

// Every piece of text the figure paints, joined by spaces.
QString paintedText(const FigureView& view) {
    QString text;
    for (const auto& painted : testing::paintedTexts(view, QSize(900, 600))) text += painted.text + QLatin1Char(' ');
    return text;
}

QString shownPattern(const LabSettings& settings) {
    PatternView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setSettings(settings);
    view.show();
    EXPECT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    return paintedText(view);
}

TEST(SmallPrint, WeightsFromGeneratedInputsSaySo) {
    LabSettings settings;
    settings.n = 16;
    settings.showWeights = true;
    settings.tokens = "the cat sat on the mat and then it ran off to see a big dog";
    EXPECT_TRUE(shownPattern(settings).contains(QStringLiteral("synthetic Q/K: local similarity, seed 0")));
    settings.source = InputSource::RandomGaussian;
    settings.inputSeed = 7;
    EXPECT_TRUE(shownPattern(settings).contains(QStringLiteral("synthetic Q/K: Gaussian, seed 7")));
    settings.showWeights = false;
    EXPECT_FALSE(shownPattern(settings).contains(QStringLiteral("synthetic"))) << "a mask is no model's weights either way";
}

// Full attention's core MACs per head: 2·n²·d bidirectional, n(n+1)·d causal (n(n+1)/2 scores and as many
// products with V).
TEST(SmallPrint, PercentOfFullComparesWithinTheSameDirection) {
    LabSettings settings;
    settings.variant = "linear";
    settings.n = 64;
    settings.causal = true;
    const QString causal = shownPattern(settings);
    EXPECT_TRUE(causal.contains(QStringLiteral("causal full attention: 266 k MACs"))) << causal.toStdString(); // 64·65·64
    EXPECT_TRUE(causal.contains(QStringLiteral("% of causal full")));
    settings.causal = false;
    const QString bidirectional = shownPattern(settings);
    EXPECT_TRUE(bidirectional.contains(QStringLiteral("full attention: 524 k MACs"))) << bidirectional.toStdString(); // 2·64²·64
    EXPECT_FALSE(bidirectional.contains(QStringLiteral("causal full")));
    settings.variant = "full";
    settings.causal = true;
    EXPECT_TRUE(shownPattern(settings).contains(QStringLiteral("= 100 % of causal full")));
}

// xl's relative-position term is one d-long product q·R per allowed cell: nnz·d MACs.
TEST(SmallPrint, TransformerXlNamesItsRelativePositionTerm) {
    LabSettings settings;
    settings.variant = "xl";
    settings.causal = true;
    settings.n = 64;
    settings.params = {{"segment", "16"}, {"memory", "16"}};
    const QString text = shownPattern(settings);
    // Row i sees its own segment's keys up to i and the previous segment: 16·17/2 + 3·(16·17/2 + 16·16) = 1312 cells.
    EXPECT_TRUE(text.contains(QStringLiteral("nnz: 1.31 k"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("of which relative positions q·R: 84 k"))) << text.toStdString(); // 1312·64
    settings.params["relpos"] = "none";
    EXPECT_FALSE(shownPattern(settings).contains(QStringLiteral("relative positions q·R")));
}

// The measuring thread's CPU time plus a fixed time at every wall reading, so that each timed call (one
// reading at its start, one at its end) takes that much longer. The team's CPU time advances with it,
// so that no point reads as starved of CPU.
class FixedCostClock final : public MeasureClock {
public:
    explicit FixedCostClock(double perCall) : m_perCall(perCall) {}
    double wallSeconds() const override { return m_cpu.wallSeconds() + static_cast<double>(++m_readings) * m_perCall; }
    double teamCpuSeconds(int threads) const override {
        return threads * (m_cpu.wallSeconds() + static_cast<double>(m_readings.load()) * m_perCall);
    }

private:
    ThreadCpuClock m_cpu;
    double m_perCall;
    mutable std::atomic<long> m_readings{0};
};

TEST(SmallPrint, TheTimingFigureNamesThePointsAFixedCostDominates) {
    TimingView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setMeasureClock(std::make_shared<FixedCostClock>(2e-3));
    LabSettings settings;
    settings.timingMaxN = 2048;
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const std::vector<OverheadMiss> misses = overheadMisses(view.points());
    ASSERT_FALSE(misses.empty()) << "2 ms per call outweighs full attention's arithmetic at n = 64";
    EXPECT_EQ(misses.front().n, 64);
    const QString text = paintedText(view).simplified();
    const QString at = QStringLiteral("full at n = ") + QString::number(misses.front().n);
    EXPECT_TRUE(text.contains(at)) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("%1×").arg(misses.front().ratio, 0, 'f', 1))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("fixed cost per"))) << text.toStdString();
}

} // namespace
} // namespace attnlab
