#pragma once

#include <QObject>
#include <QString>

#include <vector>

namespace attnlab {

class JobRunner;

// Every job runner of the app with work under way, for the status bar: one line naming them.
class JobBoard : public QObject {
    Q_OBJECT
public:
    static JobBoard& instance();
    // "receptive field, timing sweep" — the names of the runners that are busy, in start order.
    QString runningText() const;
    void setBusy(const JobRunner* runner, bool busy);
    void forget(const JobRunner* runner);

signals:
    void changed();

private:
    std::vector<const JobRunner*> m_busy;
};

} // namespace attnlab
