#include "core/measure/gemm_choice.h"

#include <cstdio>
#include <stdexcept>

namespace attnlab {

namespace {

std::string rateText(double gflops) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f GFLOP/s", gflops);
    return text;
}

} // namespace

GemmChoice chooseGemmEngine(const std::vector<GemmEngineRate>& rates) {
    if (rates.empty()) throw std::logic_error("chooseGemmEngine: no engine was timed");
    GemmChoice choice;
    choice.measured = rates;
    choice.chosen = rates.front();
    for (const GemmEngineRate& rate : rates)
        if (rate.gflops > choice.chosen.gflops) choice.chosen = rate;
    choice.openBlasCore = openBlasCoreName();
    return choice;
}

bool gemmFarBelowAttention(double gemmGflops, double attentionGflops) {
    return attentionGflops > 0 && gemmGflops < kSlowGemmShare * attentionGflops;
}

std::string gemmChoiceText(const GemmChoice& choice) {
    std::string others;
    for (const GemmEngineRate& rate : choice.measured)
        if (rate.engine != choice.chosen.engine) others += (others.empty() ? "" : ", ") + rate.name + ", " + rateText(rate.gflops);
    return choice.chosen.name + ", " + rateText(choice.chosen.gflops) + (others.empty() ? "" : " (also timed: " + others + ")");
}

std::string gemmWarningText(const GemmChoice& choice, double attentionGflops) {
    if (!gemmFarBelowAttention(choice.chosen.gflops, attentionGflops)) return {};
    char share[16];
    std::snprintf(share, sizeof share, "%.0f%%", 100.0 * choice.chosen.gflops / attentionGflops);
    return "warning: the GEMM engine runs at " + rateText(choice.chosen.gflops) + ", " + share + " of the attention core's " +
           rateText(attentionGflops) + ": the projections and the FFN are slowed and the measured crossovers move to larger n";
}

} // namespace attnlab
