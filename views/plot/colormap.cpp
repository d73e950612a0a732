#include "views/plot/colormap.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace attnlab {

namespace {

// Matplotlib's viridis sampled at t = 0, 1/8, …, 1.
constexpr std::array<QRgb, 9> kViridisStops = {0x440154, 0x472c7a, 0x3b518b, 0x2c718e, 0x21908d,
                                               0x27ad81, 0x5cc863, 0xaadc32, 0xfde725};

// ColorBrewer's RdBu (7 classes) reversed, from t = −1 to 1.
constexpr std::array<QRgb, 7> kDivergingStops = {0x2166ac, 0x67a9cf, 0xd1e5f0, 0xf7f7f7, 0xfddbc7, 0xef8a62, 0xb2182b};

int mix(int a, int b, double f) { return static_cast<int>(std::lround(a + (b - a) * f)); }

// Linear interpolation between equally spaced stops, at position u in [0, 1].
template <std::size_t N>
QRgb interpolate(const std::array<QRgb, N>& stops, double u) {
    const double position = std::clamp(std::isfinite(u) ? u : 0.0, 0.0, 1.0) * (N - 1);
    const std::size_t low = std::min<std::size_t>(static_cast<std::size_t>(position), N - 2);
    const double f = position - static_cast<double>(low);
    const QRgb a = stops[low];
    const QRgb b = stops[low + 1];
    return qRgb(mix(qRed(a), qRed(b), f), mix(qGreen(a), qGreen(b), f), mix(qBlue(a), qBlue(b), f));
}

} // namespace

QRgb viridis(double t) { return interpolate(kViridisStops, t); }

QRgb divergingColor(double t) { return interpolate(kDivergingStops, (std::isfinite(t) ? t : 0.0) * 0.5 + 0.5); }

QRgb emptyCellColor() { return qRgb(0xf4, 0xf4, 0xf2); }

QRgb densityColor(double density) {
    if (!(density > 0.0)) return emptyCellColor();
    // Sparse blocks start at 0.75 (green) so a lone allowed cell stays visible against the background.
    return viridis(0.75 * (1.0 - std::min(density, 1.0)));
}

QRgb componentColor(int component) {
    static constexpr std::array<QRgb, 7> kOkabeIto = {0x0072b2, 0xe69f00, 0x009e73, 0xcc79a7, 0xd55e00, 0x56b4e9, 0xf0e442};
    if (component == 255) return qRgb(0x20, 0x20, 0x20);
    return 0xff000000u | kOkabeIto[static_cast<std::size_t>(std::max(component - 1, 0)) % kOkabeIto.size()];
}

QRgb fadedComponentColor(QRgb mixed, double density) {
    if (!(density > 0.0)) return emptyCellColor();
    const double opacity = 0.45 + 0.55 * std::min(density, 1.0);
    const QRgb background = emptyCellColor();
    return qRgb(mix(qRed(background), qRed(mixed), opacity), mix(qGreen(background), qGreen(mixed), opacity),
                mix(qBlue(background), qBlue(mixed), opacity));
}

} // namespace attnlab
