#pragma once

// The inputs the fuzzers drive, shared by the libFuzzer targets (tests/fuzz/fuzz_*.cpp, clang, the
// `fuzz` preset) and the deterministic mutation run of the normal suite (tests/test_fuzz_corpus.cpp).
// Each entry point returns normally for valid input and for input refused with InputError; anything
// else (another exception, a crash, a sanitizer report, a broken invariant via std::abort) is a bug.

#include <cstddef>
#include <cstdint>

namespace attnlab::fuzz {

// The bytes as an NPY file (core/npy_io parseNpy), then the same checks readNpy's callers apply.
void npyInput(const std::uint8_t* data, std::size_t size);

// The bytes as command-line tokens (one per line) of `attnlab pattern`: --variant, --n (read modulo
// 64 so patterns stay small), --d, --causal and any number of --set KEY=VALUE, through CliArgs,
// prepareParams and the job limits; an accepted parameter set builds its pattern, whose ranges,
// counts and predicate must agree.
void paramInput(const std::uint8_t* data, std::size_t size);

// The bytes as a pattern expression of the `custom` variant (core/pattern_expression parseExpression);
// an accepted expression is evaluated at a small n (from the input's size), checked like a parameter
// set's pattern, and its components must label exactly the pattern's cells.
void expressionInput(const std::uint8_t* data, std::size_t size);

// The bytes as a token grid and an expression on it: line 1 is `--grid` ("H,W" or "T,H,W"), line 2
// `--order`, the rest a pattern expression (grid primitives included). A grid of at most 64 cells
// evaluates the expression on it (both causal forms), checked like any pattern.
void gridInput(const std::uint8_t* data, std::size_t size);

// The bytes as one `--panel` text ("VARIANT [KEY=VALUE]... [| TITLE]"); an accepted panel of a variant
// whose pattern does not depend on the data is resolved at a small n (from the input's size) through
// prepareParams and the pattern-build limits, and its pattern is checked.
void panelInput(const std::uint8_t* data, std::size_t size);

// The bytes as one `--animate` option ("PARAM=FROM:TO[:STEP|:*FACTOR]", core/analysis/animation_range.h),
// read as an integer parameter when the input's size is even, a real one when odd. An accepted range has
// 2 to kMaxAnimationFrames finite values, strictly monotone from FROM on, integers for an integer one.
void animationRangeInput(const std::uint8_t* data, std::size_t size);

} // namespace attnlab::fuzz
