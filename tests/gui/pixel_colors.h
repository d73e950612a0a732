#pragma once

// Colour comparisons for the GUI tests that read painted pixels.
#include <QColor>
#include <QRgb>

#include <cstdlib>
#include <string>

namespace attnlab::guitest {

// Equal RGB within `tolerance` per channel (antialiasing and colour conversions move a channel by a unit
// or two); alpha is not compared.
inline bool sameColor(QRgb a, QRgb b, int tolerance = 2) {
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

inline std::string colorText(QRgb c) { return QColor(c).name().toStdString(); }

} // namespace attnlab::guitest
