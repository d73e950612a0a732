#!/usr/bin/env bash
# Reruns the measurements behind docs/benchmarks.md ("Results on the reference machine") on this
# machine, in one go:
#   1. builds two Release command-line binaries (no GUI, no tests): Eigen over OpenBLAS (the default)
#      and Eigen's own GEMM (ATTNLAB_USE_BLAS=OFF);
#   2. for each, measures the FMA peak, the engine's sgemm rate and the memory bandwidth (attnlab bench
#      --peak), once as the environment is and once with OPENBLAS_CORETYPE unset (OpenBLAS then picks its
#      kernels for the CPU);
#   3. with the default engine: the kernel and sparse-pattern targets as ratios (attnlab bench --targets,
#      a few minutes), the roofline of every variant at n = 4096 causal and bidirectional (attnlab bench
#      --roofline), the layer crossovers (attnlab bench --layer) and a sweep of every variant at n = 4096;
#   4. bigbird's memory accesses alone beside its kernel (bench_bigbird_loads: a third Release build,
#      configured with the tests so that this one Google Benchmark program can be built; two threads);
#   5. the decoding step beside loops that only read its cache (bench_decode_loads, the same build), and
#      the decoding steps of full attention, a window and a window with sinks at n = 131,072 (h = 32,
#      h_kv = 8, d = 128) in each cache precision, with the triad measured in the same process.
# See docs/benchmarks.md for what each mode measures and how to read it.
# Usage: tests/bench/run_benchmarks.sh [THREADS]     (default 2; results also go to build/bench-results/)
# Close other work first: every figure is a ratio of numbers measured in this run, but a busy machine
# still moves them.
set -euo pipefail
cd "$(dirname "$0")/../.."
threads="${1:-2}"
results=build/bench-results
mkdir -p "$results"

build() { # build DIR USE_BLAS
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_GUI=OFF -DATTNLAB_BUILD_TESTS=OFF \
        -DATTNLAB_USE_BLAS="$2" > /dev/null
  cmake --build "$1" --target attnlab > /dev/null
}
build build/bench-openblas ON
build build/bench-eigen OFF
openblas=build/bench-openblas/app/attnlab
eigen=build/bench-eigen/app/attnlab

run() { # run NAME COMMAND...: prints the output and keeps a copy
  local name="$1"; shift
  echo "== $name"
  "$@" | tee "$results/$name.txt"
  echo
}

run peak-openblas-env "$openblas" bench --peak --threads "$threads"
run peak-openblas-native env -u OPENBLAS_CORETYPE "$openblas" bench --peak --threads "$threads"
run peak-eigen "$eigen" bench --peak --threads "$threads"
run targets env -u OPENBLAS_CORETYPE "$openblas" bench --targets --threads "$threads"
run roofline-bidirectional-4096 env -u OPENBLAS_CORETYPE "$openblas" bench --roofline --n 4096 --threads "$threads" \
    --budget 0.3
run roofline-causal-4096 env -u OPENBLAS_CORETYPE "$openblas" bench --roofline --n 4096 --causal --threads "$threads" \
    --budget 0.3
run layer-openblas env -u OPENBLAS_CORETYPE "$openblas" bench --layer --threads "$threads"
run layer-eigen "$eigen" bench --layer --threads "$threads"
# Variant ids by causal support, from the registry ("[both]", "[causal]", "[bidirectional]").
ids() { "$openblas" variants | awk -v want="$1" '/^[a-z]/ && ($0 ~ "\\[both\\]" || $0 ~ "\\[" want) {print $1}' | paste -sd, -; }
run variants-causal-4096 env -u OPENBLAS_CORETYPE "$openblas" bench --variant "$(ids causal)" --n 4096 --causal \
    --threads "$threads" --budget 0.3
run variants-bidirectional-4096 env -u OPENBLAS_CORETYPE "$openblas" bench --variant "$(ids bidirectional)" --n 4096 \
    --threads "$threads" --budget 0.3
# bigbird's loads alone beside its kernel (a Google Benchmark program, two threads whatever THREADS is).
cmake -S . -B build/bench-loads -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNLAB_BUILD_GUI=OFF -DATTNLAB_BUILD_TESTS=ON \
      > /dev/null
cmake --build build/bench-loads --target bench_bigbird_loads bench_decode_loads > /dev/null
run bigbird-loads env -u OPENBLAS_CORETYPE build/bench-loads/tests/bench/bench_bigbird_loads
run decode-loads build/bench-loads/tests/bench/bench_decode_loads
decode() { # decode NAME DTYPE BENCH-OPTIONS...
  local name="$1" dtype="$2"; shift 2
  run "decode-131072-$name-$dtype" "$openblas" bench --decode --peak --n 131072 --heads 32 --kv-heads 8 --d 128 \
      --kv-dtype "$dtype" --threads "$threads" --budget 2 "$@"
}
for dtype in f32 f16 bf16; do
  decode full "$dtype" --variant full
  decode window "$dtype" --variant longformer --set window=8190
  decode sinks "$dtype" --variant longformer --set window=8190 --set globals=0,1,2,3
done
