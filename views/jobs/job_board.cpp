#include "views/jobs/job_board.h"

#include "views/jobs/job_runner.h"

#include <QStringList>

#include <algorithm>

namespace attnlab {

JobBoard& JobBoard::instance() {
    static JobBoard board;
    return board;
}

QString JobBoard::runningText() const {
    QStringList names;
    for (const JobRunner* runner : m_busy)
        if (!runner->name().isEmpty() && !names.contains(runner->name())) names << runner->name();
    return names.join(QStringLiteral(", "));
}

void JobBoard::setBusy(const JobRunner* runner, bool busy) {
    forget(runner);
    if (busy) m_busy.push_back(runner);
    emit changed();
}

void JobBoard::forget(const JobRunner* runner) { std::erase(m_busy, runner); }

} // namespace attnlab
