// A short deterministic fuzz run inside the normal suite (no clang needed): thousands of seeded
// mutations of the checked-in corpus (tests/fuzz/corpus) through the same entry points the libFuzzer
// targets use. Each must return (valid, or refused with InputError); a crash, a sanitizer report, any
// other exception or a broken pattern invariant (std::abort) fails the run.
#include "fuzz/fuzz_entry_points.h"
#include "fuzz/fuzz_mutation.h"

#include <gtest/gtest.h>

namespace attnlab {
namespace {

TEST(FuzzCorpus, NpyReaderSurvivesFourThousandMutations) { fuzz::runMutations("npy", fuzz::npyInput, 4000, 1); }

TEST(FuzzCorpus, ParameterParserSurvivesThreeThousandMutations) {
    fuzz::runMutations("params", fuzz::paramInput, 3000, 2);
}

TEST(FuzzCorpus, ExpressionParserSurvivesThreeThousandMutations) {
    fuzz::runMutations("expression", fuzz::expressionInput, 3000, 3);
}

TEST(FuzzCorpus, GridAndOrderParsersSurviveThreeThousandMutations) {
    fuzz::runMutations("grid", fuzz::gridInput, 3000, 4);
}

TEST(FuzzCorpus, PanelParserSurvivesTwoThousandMutations) { fuzz::runMutations("panel", fuzz::panelInput, 2000, 5); }

TEST(FuzzCorpus, AnimationRangeParserSurvivesThreeThousandMutations) {
    fuzz::runMutations("animation", fuzz::animationRangeInput, 3000, 6);
}

} // namespace
} // namespace attnlab
