#include "views/plot/device_metrics.h"

#include <cmath>

namespace attnlab {

int recordingDeviceMetric(QPaintDevice::PaintDeviceMetric metric, const QSizeF& size) {
    switch (metric) {
    case QPaintDevice::PdmWidth: return static_cast<int>(std::lround(size.width()));
    case QPaintDevice::PdmHeight: return static_cast<int>(std::lround(size.height()));
    case QPaintDevice::PdmWidthMM: return static_cast<int>(std::lround(size.width() * 25.4 / 96.0));
    case QPaintDevice::PdmHeightMM: return static_cast<int>(std::lround(size.height() * 25.4 / 96.0));
    case QPaintDevice::PdmNumColors: return 0xffffff;
    case QPaintDevice::PdmDepth: return 32;
    case QPaintDevice::PdmDpiX:
    case QPaintDevice::PdmDpiY:
    case QPaintDevice::PdmPhysicalDpiX:
    case QPaintDevice::PdmPhysicalDpiY: return 96;
    case QPaintDevice::PdmDevicePixelRatio: return 1;
    case QPaintDevice::PdmDevicePixelRatioScaled: return static_cast<int>(QPaintDevice::devicePixelRatioFScale());
    default: return 0;
    }
}

} // namespace attnlab
