#pragma once

#include "views/figure_view.h"
#include "views/job_runner.h"

#include <array>
#include <cstdint>
#include <memory>

namespace attnlab {

// How far the approximations are from exact softmax attention on the current inputs: the relative
// error ‖out − out_full‖_F / ‖out_full‖_F over all heads for performer vs its number of random features,
// linformer (Gaussian and pooling projections) vs k, Reformer LSH vs hashing rounds, and the three
// linear kernels as reference lines. The exact output is computed once per input change on a worker;
// random methods are averaged over kSeeds seeds.
class AccuracyView : public FigureView {
    Q_OBJECT
public:
    explicit AccuracyView(QWidget* parent = nullptr);
    ~AccuracyView() override;

    QString viewName() const override { return QStringLiteral("accuracy"); }
    QString title() const override;
    QString caption() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    // family, parameter, value, relative_error, seeds, min_error, max_error — one row per measurement.
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy(); }
    void setSettings(const LabSettings& settings) override;

    // The swept values. Linformer keeps the k ≤ n; the figure names the ones left out.
    static constexpr std::array<std::int64_t, 6> kPerformerFeatures = {16, 32, 64, 128, 256, 512};
    static constexpr std::array<std::int64_t, 7> kLinformerK = {8, 16, 32, 64, 128, 256, 512};
    static constexpr std::array<std::int64_t, 4> kLshRounds = {1, 2, 4, 8};
    static constexpr std::array<const char*, 3> kLinearKernels = {"elu", "efficient", "taylor"};
    // Seeds 0 … kSeeds − 1 of the random methods (performer, linformer gaussian, lsh).
    static constexpr int kSeeds = 3;

    // One point of the figure. family: performer, linformer_gaussian, linformer_pool, lsh or linear.
    struct Measurement {
        QString family;
        QString parameter; // the swept key: features, k, rounds or kernel
        QString value;
        double x = 0;      // the swept number (0 for the linear kernels)
        double error = 0;  // mean over the seeds
        double minError = 0;
        double maxError = 0;
        int seeds = 1;
    };
    struct Snapshot;

private:
    void startJob();
    void paintKey(QPainter& painter, const QRectF& box) const;

    JobRunner m_jobs;
    std::shared_ptr<const Snapshot> m_snapshot;
};

} // namespace attnlab
