#pragma once

// The range of an animation (`attnlab figure --animate PARAM=FROM:TO[:STEP|:*FACTOR]`): which setting
// it sweeps and the value of each frame. What a parameter means in a view is the views' business; this
// reads the text and lists the values.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// More frames than this are refused: 5 minutes at 2 frames per second, and a bound on the work.
inline constexpr std::size_t kMaxAnimationFrames = 600;

// PARAM and the range text of "PARAM=FROM:TO[:STEP|:*FACTOR]"; throws InputError when there is no '=',
// PARAM is empty or the range is empty.
struct AnimationOption {
    std::string param;
    std::string range;
};
AnimationOption splitAnimationOption(const std::string& text);

// The frame values of `range` ("FROM:TO", "FROM:TO:STEP" or "FROM:TO:*FACTOR"), FROM first:
// - FROM:TO steps by 1 (FROM ≤ TO only); FROM:TO:STEP by STEP, negative for a descending range; TO is the
//   last frame when the steps land on it, else the last value before it;
// - FROM:TO:*FACTOR multiplies by FACTOR (> 1 ascending, between 0 and 1 descending; FROM, TO > 0).
// With `integral`, FROM, TO and STEP are integers (the one integer grammar) and a factor's values are
// rounded to the nearest integer, a value equal to the one before dropped; otherwise they are decimal
// numbers or fractions such as 1/64. Throws InputError (one line, naming `param` and the range) for a
// malformed number, a step of 0, a factor ≤ 0 or = 1, a range the step never enters (empty: 1:10:-1), a
// descending range without a negative step or a factor below 1, fewer than two frames and more than
// kMaxAnimationFrames.
std::vector<double> animationValues(const std::string& param, const std::string& range, bool integral);

// A decimal number or a fraction of two ("2", "0.5", "1/64"), as FROM, TO and a factor take them; nullopt
// for anything else (white space, a '+', hex, infinities).
std::optional<double> parseAnimationNumber(const std::string& text);

// A frame value as the frame writes it: an integer without a decimal point, otherwise up to 6
// significant digits ("0.015625", "0.25", "1.5").
std::string animationValueText(double value, bool integral);

} // namespace attnlab
