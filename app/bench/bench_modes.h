#pragma once

// The modes of `attnlab bench`, one file each; app/bench_command.cpp parses the options and dispatches.

#include "app/bench/bench_support.h"

namespace attnlab {

int benchVariants(const CliArgs& cli, const BenchSettings& settings);
int benchLayer(const CliArgs& cli, const BenchSettings& settings);
int benchPeak(const BenchSettings& settings);
int benchRoofline(const CliArgs& cli, const BenchSettings& settings);
int benchTargets(const BenchSettings& settings);
int benchDecode(const CliArgs& cli, const BenchSettings& settings);

} // namespace attnlab
