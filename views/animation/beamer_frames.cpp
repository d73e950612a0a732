#include "views/animation/beamer_frames.h"

#include <cstdio>

namespace attnlab {

namespace {

std::string stem(const std::string& texPath) {
    const std::size_t slash = texPath.find_last_of('/');
    const std::size_t dot = texPath.find_last_of('.');
    return dot != std::string::npos && (slash == std::string::npos || dot > slash) ? texPath.substr(0, dot)
                                                                                   : texPath;
}

std::string rateText(double fps) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", fps);
    return text;
}

} // namespace

std::string beamerFrameBase(const std::string& texPath) {
    return stem(texPath) + "-";
}

std::string beamerFramePath(const std::string& texPath, std::size_t index) {
    return beamerFrameBase(texPath) + std::to_string(index) + ".pdf";
}

std::string beamerTimelinePath(const std::string& texPath) {
    return stem(texPath) + "-timeline.txt";
}

std::string beamerSnippet(const BeamerAnimation& animation) {
    const std::string last = std::to_string(animation.frames - 1);
    std::string options = "controls,loop,autoplay,width=\\linewidth";
    if (animation.holdLastSeconds > 0) options += ",timeline=" + beamerTimelinePath(animation.texPath);
    return "% An animation by attnlab: " + animation.description + "\n" + "% Frames " +
           beamerFramePath(animation.texPath, 0) + " ... " +
           beamerFramePath(animation.texPath, animation.frames - 1) + " at " + rateText(animation.fps) +
           " frames per second.\n"
           "% Needs \\usepackage{animate} in the preamble; \\input this file from the directory attnlab ran "
           "in.\n"
           "\\animategraphics[" +
           options + "]{" + rateText(animation.fps) + "}{" + beamerFrameBase(animation.texPath) + "}{0}{" +
           last + "}\n";
}

std::string beamerTimeline(const BeamerAnimation& animation) {
    // One line per frame, ":RATE:FRAME": the rate is set on the first frame (again at every loop) and
    // lowered on the last so that it stays 1/fps + holdLastSeconds.
    std::string timeline;
    for (std::size_t k = 0; k < animation.frames; ++k) {
        std::string rate;
        if (k + 1 == animation.frames)
            rate = rateText(1.0 / (1.0 / animation.fps + animation.holdLastSeconds));
        else if (k == 0)
            rate = rateText(animation.fps);
        timeline += ":" + rate + ":" + std::to_string(k) + "\n";
    }
    return timeline;
}

} // namespace attnlab
