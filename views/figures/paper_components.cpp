#include "views/figures/paper_components.h"

#include "core/param_schema.h"

#include <QCoreApplication>

namespace attnlab {

namespace {

QString named(const char* name, const QString& notation) {
    const QString text = QCoreApplication::translate("PatternView", name);
    return notation.isEmpty() ? text : QStringLiteral("%1 (%2)").arg(text, notation);
}

QString windowText(std::int64_t window, std::int64_t dilation) {
    if (window / 2 == 0) return named(QT_TRANSLATE_NOOP("PatternView", "self"), {});
    if (dilation > 1)
        return named(QT_TRANSLATE_NOOP("PatternView", "dilated sliding window"),
                     QStringLiteral("w = %1, δ = %2").arg(window).arg(dilation));
    return named(QT_TRANSLATE_NOOP("PatternView", "sliding window"), QStringLiteral("w = %1").arg(window));
}

} // namespace

std::optional<std::vector<QString>> paperComponentTexts(const ResolvedVariant& resolved) {
    const ParamSet& params = resolved.params;
    const std::string& id = resolved.variant->id;
    if (id == "longformer")
        return std::vector<QString>{windowText(params.integer("window"), params.integer("dilation")),
                                    named(QT_TRANSLATE_NOOP("PatternView", "global"),
                                          QString::fromStdString(paramValueText(params.indices("globals"))))};
    // Zaheer et al. (2020), fig. 1: random attention with r, sliding window attention with w, global attention with g.
    if (id == "bigbird")
        return std::vector<QString>{windowText(params.integer("window"), 1),
                                    named(QT_TRANSLATE_NOOP("PatternView", "global"), QStringLiteral("g = %1").arg(params.integer("globals"))),
                                    named(QT_TRANSLATE_NOOP("PatternView", "random"), QStringLiteral("r = %1").arg(params.integer("random")))};
    return std::nullopt;
}

} // namespace attnlab
