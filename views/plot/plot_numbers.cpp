// The numbers and units the figures' labels are written in (plot_axes.h): three significant digits,
// k/M/G/T for counts, µs/ms/s for durations, binary units for sizes, never an exponent.
#include "views/plot/plot_axes.h"

#include <cmath>
#include <utility>

namespace attnlab {

namespace {

QString significant(double value) { return QString::number(value, 'g', 3); }

// `value` rounded up to 3 significant digits.
double ceilSignificant(double value) {
    if (!(value > 0) || !std::isfinite(value)) return value;
    const double unit = std::pow(10.0, std::floor(std::log10(value)) - 2);
    return std::ceil(value / unit - 1e-9) * unit;
}

} // namespace

QString compactNumber(double value) {
    const double magnitude = std::abs(value);
    if (magnitude < 1e5 && value == std::round(value)) return QString::number(static_cast<long long>(value));
    if (magnitude < 1e3) return significant(value);
    static const std::pair<double, const char*> units[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    for (const auto& [scale, suffix] : units)
        if (magnitude >= scale) return significant(value / scale) + QString::fromLatin1(suffix);
    return significant(value);
}

QString durationText(double seconds) {
    if (seconds < 1e-3) return significant(seconds * 1e6) + QStringLiteral(" µs");
    if (seconds < 1.0) return significant(seconds * 1e3) + QStringLiteral(" ms");
    return significant(seconds) + QStringLiteral(" s");
}

namespace {

// A value of a unit as the figures write it: three significant digits, whole from 100 up ("512", "1.5",
// "1000"), never in exponent form.
QString unitValue(double value) {
    return value >= 100 ? QString::number(static_cast<long long>(std::llround(value))) : significant(value);
}

// Each size in the largest binary unit it reaches 1000/1024 of, so a value stays below 1000 of its unit.
QString bytesText(double bytes, double (*round)(double)) {
    static const std::pair<double, const char*> units[] = {
        {0x1p60, "EiB"}, {0x1p50, "PiB"}, {0x1p40, "TiB"}, {0x1p30, "GiB"}, {0x1p20, "MiB"}, {0x1p10, "KiB"}};
    for (const auto& [scale, suffix] : units)
        if (bytes >= scale * (1000.0 / 1024.0)) return unitValue(round(bytes / scale)) + QLatin1Char(' ') + QString::fromLatin1(suffix);
    return unitValue(round(bytes)) + QStringLiteral(" B");
}

double unrounded(double value) { return value; }

} // namespace

QString bytesText(double bytes) { return bytesText(bytes, unrounded); }

QString bytesBoundText(double bytes) { return bytesText(bytes, ceilSignificant); }

} // namespace attnlab
