#pragma once

#include "core/variant.h"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace attnlab {

// The background work of one view, named for the user ("receptive field", "timing sweep"). Every job
// is tagged with the generation current when it was submitted; bumpGeneration() (called on every
// relevant settings change) makes all earlier jobs stale: their CancelCheck turns true so kernels stop
// between heads or row blocks, and a stale result or error is dropped instead of delivered. Results
// travel to the UI thread as immutable shared values through a queued call, so no kernel ever runs on
// the UI thread and no result is shared mutably. A job that throws is reported through failed() with
// its message; the view keeps its previous result and shows the error. Every runner is listed on the
// JobBoard while it has work.
class JobRunner : public QObject {
    Q_OBJECT
public:
    explicit JobRunner(const QString& name = QString(), QObject* parent = nullptr);
    ~JobRunner() override; // waits for running jobs (they are cancelled first)

    const QString& name() const { return m_name; }
    std::uint64_t generation() const { return m_state->generation.load(); }
    std::uint64_t bumpGeneration();
    bool busy() const { return m_pending > 0; }
    // "name: message" of the last job of the current generation that threw; empty when none did.
    const QString& lastError() const { return m_lastError; }
    // OpenMP threads a job passes to core (the machine's cores shared with the UI).
    static int kernelThreads();

    // Runs work(cancelled) on a worker; deliver(result) runs later on this object's thread only if the
    // generation has not changed in between.
    template <class Result>
    void submit(std::function<Result(const CancelCheck&)> work, std::function<void(const Result&)> deliver) {
        auto erased = [work = std::move(work)](const CancelCheck& cancelled) -> std::shared_ptr<const void> {
            return std::make_shared<const Result>(work(cancelled));
        };
        auto unerased = [deliver = std::move(deliver)](const std::shared_ptr<const void>& result) {
            deliver(*std::static_pointer_cast<const Result>(result));
        };
        submitErased(std::move(erased), std::move(unerased));
    }

signals:
    void busyChanged(bool busy);
    // A job of the current generation threw; `message` is "name: what()".
    void failed(const QString& message);
    // The error shown so far belongs to settings that are gone (a new generation started).
    void errorCleared();

private:
    struct SharedState {
        std::atomic<std::uint64_t> generation{0};
    };
    using ErasedWork = std::function<std::shared_ptr<const void>(const CancelCheck&)>;
    using ErasedDeliver = std::function<void(const std::shared_ptr<const void>&)>;

    void submitErased(ErasedWork work, ErasedDeliver deliver);
    void finishJob(std::uint64_t jobGeneration, const std::shared_ptr<const void>& result, const QString& error,
                   const ErasedDeliver& deliver);

    QString m_name;
    std::shared_ptr<SharedState> m_state = std::make_shared<SharedState>();
    QThreadPool m_pool;
    int m_pending = 0;
    QString m_lastError;
};

} // namespace attnlab
