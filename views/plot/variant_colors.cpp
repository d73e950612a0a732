#include "views/plot/variant_colors.h"

#include <map>

namespace attnlab {

QColor variantColor(const std::string& variant) {
    static const std::map<std::string, QColor> colours = {
        {"full", QColor(0x00, 0x72, 0xB2)},        {"strided", QColor(0xE6, 0x9F, 0x00)},   {"fixed", QColor(0x56, 0xB4, 0xE9)},
        {"longformer", QColor(0x00, 0x9E, 0x73)},  {"bigbird", QColor(0xCC, 0x79, 0xA7)},   {"linear", QColor(0xD5, 0x5E, 0x00)},
        {"performer", QColor(0x88, 0x22, 0x55)},   {"linformer", QColor(0x99, 0x99, 0x33)}, {"lsh", QColor(0x33, 0x22, 0x88)},
        {"chunk", QColor(0x44, 0xAA, 0x99)},       {"xl", QColor(0x11, 0x77, 0x33)},        {"relu2", QColor(0xAA, 0x44, 0x99)},
        {"mixed_chunk", QColor(0xCC, 0x66, 0x77)}, {"custom", QColor(0x44, 0x44, 0x44)},
    };
    const auto found = colours.find(variant);
    return found != colours.end() ? found->second : QColor(0x77, 0x77, 0x77);
}

std::vector<QColor> variantColors(const std::vector<std::string>& variants) {
    std::map<std::string, int> drawn;
    std::vector<QColor> colours;
    for (const std::string& variant : variants) {
        const int repeat = drawn[variant]++;
        const QColor base = variantColor(variant);
        colours.push_back(repeat == 0 ? base : repeat % 2 == 1 ? base.darker(130 + 30 * repeat) : base.lighter(120 + 20 * repeat));
    }
    return colours;
}

} // namespace attnlab
