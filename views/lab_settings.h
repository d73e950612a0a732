#pragma once

#include "core/param_schema.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// Where Q, K, V come from.
enum class InputSource { RandomGaussian, LocalSimilarity, NpyFiles };

// Everything the user has chosen: the immutable value every view and job is computed from.
// Parameter values are kept as text exactly as a user would type them with --set.
struct LabSettings {
    std::string variant = "full";
    ParamOverrides params;                   // only the keys the user changed from their defaults
    std::int64_t n = 256;
    std::int64_t d = 64;
    int heads = 1;
    bool causal = false;
    int head = 0;                            // head shown by per-head views
    InputSource source = InputSource::LocalSimilarity;
    std::uint64_t inputSeed = 0;
    std::string qPath, kPath, vPath;         // for InputSource::NpyFiles
    std::vector<std::string> compareVariants; // compare mode: 2–4 ids (empty: off)
    std::int64_t layers = 2;                  // receptive field depth
    bool showWeights = false;                 // pattern view: weights heatmap instead of the mask
    bool flopsAsMacs = true;                  // FLOP view unit

    bool operator==(const LabSettings&) const = default;
};

} // namespace attnlab
