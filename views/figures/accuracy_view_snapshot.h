#pragma once

#include "views/figures/accuracy_view.h"

#include <QStringList>

#include <vector>

namespace attnlab {

// What one accuracy computation produced, shared by accuracy_view.cpp (work, CSV) and
// accuracy_view_paint.cpp (drawing).
struct AccuracyView::Snapshot {
    LabSettings settings;
    std::vector<Measurement> measurements;      // budget sweeps and reference lines at the chosen scale
    std::vector<Measurement> scaleMeasurements; // the error-vs-scale panel
    QStringList notes;                          // values left out and why
    QString error;                              // set when nothing could be measured
    QString inputNote;
    int heads = 0; // of the inputs measured (the NPY files' when they are the source)
};

} // namespace attnlab
