#pragma once

// Runs an AnimationRenderer to its end in the test's thread, processing events: the frames it painted,
// by index, and whether it finished (rather than failed or ran past the timeout).

#include "views/animation/animation_renderer.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QImage>

#include <cstddef>
#include <vector>

namespace attnlab::guitest {

struct AnimationRun {
    std::vector<QImage> frames;
    bool finished = false;
};

inline AnimationRun runToTheEnd(AnimationRenderer& renderer, std::size_t frames, int timeoutMs) {
    AnimationRun run;
    run.frames.resize(frames);
    const auto painted = QObject::connect(&renderer, &AnimationRenderer::framePainted, [&](int index, const QImage& image) {
        run.frames[static_cast<std::size_t>(index)] = image;
    });
    const auto finished = QObject::connect(&renderer, &AnimationRenderer::finished, [&] { run.finished = true; });
    renderer.start();
    QElapsedTimer waited;
    waited.start();
    while (!run.finished && renderer.running() && waited.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QObject::disconnect(painted);
    QObject::disconnect(finished);
    return run;
}

} // namespace attnlab::guitest
