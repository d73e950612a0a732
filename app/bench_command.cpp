#include "app/bench/bench_modes.h"
#include "app/commands.h"
#include "app/model_option.h"

#include "core/errors.h"

#include <cstdio>

namespace attnlab {

namespace {

constexpr const char* kBenchHelp = R"(usage: attnlab bench --variant ID[,ID...] [--n N[,N...]] [--d D] [--dv DV] [--heads H] [--causal]
                     [--grid H,W | T,H,W [--order ORDER]] [--queries M] [--set KEY=VALUE]... [--threads T] [--budget SECONDS]
                     [--reference] [--peak] [--json | --csv]
       attnlab bench --peak [--threads T] [--budget SECONDS] [--stream-mib MIB] [--json | --csv]
       attnlab bench --roofline [--variant ID[,ID...]] [--n N[,N...]] [--d D] [--dv DV] [--heads H] [--causal]
                     [--set KEY=VALUE]... [--threads T] [--budget SECONDS] [--stream-mib MIB] [--json | --csv]
       attnlab bench --layer [--variant ID] [--n N[,N...]] [--d D] [--heads H] [--causal] [--threads T]
                     [--budget SECONDS] [--json | --csv]
       attnlab bench --decode [--variant ID[,ID...]] [--n N[,N...]] [--d D] [--heads H] [--kv-heads G]
                     [--kv-dtype f32|f16|bf16] [--set KEY=VALUE]... [--threads T] [--budget SECONDS] [--peak]
                     [--stream-mib MIB] [--json | --csv]
       attnlab bench --targets [--threads T] [--budget SECONDS] [--stream-mib MIB] [--json]
       attnlab bench --model list

Times attention variants on generated Gaussian inputs: one warm-up run, then repeats until both three
runs and the time budget per point (default 0.5 s) are reached. Reports median/min/max seconds,
GFLOP/s from the cost model's MACs (flops = 2*macs) and the peak extra resident memory of the runs.
Defaults: --n 1024,2048,4096, --d 64, --dv = d, --heads 12, every core as threads.

--peak      measures this machine's fp32 FMA peak, the GEMM engine's sgemm rate (2048^3, with the
            OpenBLAS kernel set in use) and the memory bandwidth (STREAM triad a = b + s*c over arrays
            at least as large as the last-level cache, 12 bytes per element) in this process; with
            --variant every rate is also printed as a fraction of the FMA peak. --stream-mib sets the
            size of each triad array (default: the last-level cache, at least 64 MiB; arrays that fit
            in a cache measure that cache instead of memory).
--roofline  measures the peak, then times each variant (default: every variant that supports the
            direction; default --n 4096) and prints its arithmetic intensity 2*MACs / bytes_min (see
            attnlab cost), its GFLOP/s, the roof min(FMA peak, intensity x bandwidth) and the
            measured rate as a fraction of that roof.
--layer     times one Transformer layer's parts (qkv projections, attention core, output projection,
            FFN with width 4hd) and one GAU layer (e = 2hd, s = 128) per n, the attention core of
            linear elu at 4d, and prints the measured crossovers beside the cost model's, searched for
            the variant, its parameters and the causal flag (n > 2hd, 6hd, 16d + 4 for full attention).
            First times the GEMM engines (OpenBLAS, Eigen's own) on a 512 x hd x 4hd product and runs
            the layers' products on the faster; says which, at what rate, with a warning when it is far
            below the attention core's rate. Default --variant full, --n 256,512,1024,2048,4096,8192.
--targets   the kernel and sparse-pattern targets measured in one run (2 threads unless --threads),
            as ratios with their goals; a target not met is reported, not an error (exit 0). Takes
            a few minutes.
--decode    one decoding step per (variant, n): query row n-1 of the causal pattern against a cache of
            the keys the layer keeps, or the recurrent update and read-out for linear and performer,
            with retained_keys and kv_cache_bytes per layer, kv_read_bytes (the cached keys' and values'
            bytes the step reads) and bandwidth_gbs (kv_read_bytes / median time). --kv-heads G groups the
            key/value heads (G divides --heads); --kv-dtype keeps the cache in float16 or bfloat16 (the
            step converts to float32 as it reads; default f32); --peak measures the triad first and
            prints each bandwidth as a fraction of it. Default --variant full,longformer,linear,
            --n 1024,4096,16384,65536.
--model NAME (with --variant, --decode, --roofline): a known model's d, heads and context length as
            the defaults of --d, --heads and --n, with --decode also its key/value heads, cache
            precision and (without --variant) its own attention; --model list shows them.
--queries M (with --variant): only the last M positions query, against all n keys (a chunk of prefill
            over a cache of n); GFLOP/s from the cost of those M rows (attnlab cost --queries).
--reference runs the plain reference kernels instead of the fast ones.
--grid, --order (with --variant): the tokens lie on an image or video grid (docs/grids.md); n is its
            cell count, or each --n given with the grid scaled to it (height and width by one factor),
            and custom's grid primitives act on it.
--budget    seconds of timed repeats per point (default 0.5; --targets: each target's own, 0 to 2 s).
An option a mode does not take is refused. Every point is checked against the job limits (memory
budget, work limit: attnlab --help) before the first is timed; a point over a limit refuses the run
at once, naming the limit and how to raise it (--memory-budget, --max-macs).
A progress line is drawn on stderr when it is a terminal. See docs/benchmarks.md.
)";

} // namespace

int benchCommand(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kBenchHelp, stdout);
        return 0;
    }
    if (listsModels(args)) {
        std::fputs(modelShapesListing().c_str(), stdout);
        return 0;
    }
    const CliArgs cli("bench", args,
                      {"--variant", "--n", "--d", "--dv", "--heads", "--kv-heads", "--threads", "--budget", "--stream-mib",
                       "--grid", "--order", "--queries", "--kv-dtype", "--model"},
                      {"--causal", "--json", "--csv", "--peak", "--layer", "--targets", "--roofline", "--decode", "--reference"});
    int modes = 0;
    for (const char* mode : {"--layer", "--targets", "--roofline", "--decode"}) modes += cli.flag(mode) ? 1 : 0;
    if (modes > 1) throw InputError("attnlab bench: --layer, --roofline, --decode and --targets exclude each other");
    const std::vector<std::string> common = {"--threads", "--budget", "--json", "--csv"};
    const auto with = [&common](std::vector<std::string> options) {
        options.insert(options.end(), common.begin(), common.end());
        return options;
    };
    if (cli.flag("--targets")) {
        requireModeOptions(cli, "--targets", {"--targets", "--threads", "--budget", "--stream-mib", "--json"});
        return benchTargets(readBenchSettings(cli, 2));
    }
    const BenchSettings settings = readBenchSettings(cli, defaultThreadCount());
    if (cli.flag("--layer")) {
        requireModeOptions(cli, "--layer", with({"--layer", "--variant", "--n", "--d", "--heads", "--causal", "--set"}));
        return benchLayer(cli, settings);
    }
    if (cli.flag("--roofline")) {
        requireModeOptions(cli, "--roofline", with({"--roofline", "--variant", "--n", "--d", "--dv", "--heads", "--causal",
                                                    "--set", "--stream-mib", "--reference", "--model"}));
        return benchRoofline(cli, settings);
    }
    if (cli.flag("--decode")) {
        requireModeOptions(cli, "--decode", with({"--decode", "--variant", "--n", "--d", "--heads", "--kv-heads", "--kv-dtype", "--set",
                                                  "--peak", "--stream-mib", "--model"}));
        return benchDecode(cli, settings);
    }
    for (const char* option : {"--kv-heads", "--kv-dtype"})
        if (cli.value(option)) throw InputError(std::string("attnlab bench: ") + option + " goes with --decode");
    if (cli.value("--variant")) {
        requireModeOptions(cli, "--variant", with({"--variant", "--n", "--d", "--dv", "--heads", "--causal", "--set",
                                                   "--peak", "--stream-mib", "--reference", "--grid", "--order", "--queries", "--model"}));
        return benchVariants(cli, settings);
    }
    if (cli.flag("--peak")) {
        requireModeOptions(cli, "--peak", with({"--peak", "--stream-mib"}));
        return benchPeak(settings);
    }
    throw InputError("attnlab bench: give --variant, --peak, --roofline, --layer or --targets (see attnlab bench --help)");
}

} // namespace attnlab
