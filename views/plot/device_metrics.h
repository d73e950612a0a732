#pragma once

#include <QPaintDevice>
#include <QSizeF>

namespace attnlab {

// The metrics of a paint device that records what is painted on it rather than rasterising it (the
// TikZ writer, the SVG anchor recorder): `size` logical pixels at 96 dpi, one device pixel each.
int recordingDeviceMetric(QPaintDevice::PaintDeviceMetric metric, const QSizeF& size);

} // namespace attnlab
