#pragma once

#include <cstddef>
#include <string>

namespace attnlab {

// An animation for Beamer (and any LaTeX document): frame k as the vector PDF "NAME-k.pdf" beside the
// snippet "NAME.tex", which plays them with \animategraphics from the `animate` package. With a held last
// frame a timeline "NAME-timeline.txt" beside them gives that frame its longer time. Paths are as the
// command named them, so the snippet is \input from the directory the command ran in.

// "dir/NAME-" for "dir/NAME.tex": what \animategraphics appends the frame numbers to.
std::string beamerFrameBase(const std::string& texPath);
// "dir/NAME-k.pdf".
std::string beamerFramePath(const std::string& texPath, std::size_t index);
// "dir/NAME-timeline.txt".
std::string beamerTimelinePath(const std::string& texPath);

struct BeamerAnimation {
    std::string texPath;
    std::size_t frames = 0;
    double fps = 2;
    double holdLastSeconds = 0;
    std::string description; // what the frames show, for the snippet's comment (one line)
};

// The snippet: a comment naming the frames and the preamble line it needs, then the \animategraphics call
// (controls, looping, the frame rate, frames 0 … frames − 1, the width of the line).
std::string beamerSnippet(const BeamerAnimation& animation);
// The timeline that holds the last frame holdLastSeconds longer (needed only when that is above 0).
std::string beamerTimeline(const BeamerAnimation& animation);

} // namespace attnlab
