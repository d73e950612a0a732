// main() of gui_imgui_lab, the program of the Dear ImGui lab's tests (test_imgui_lab_*.cpp). The lab
// draws with OpenGL, so the program runs itself again under Xvfb when the platform has none. Started
// with kOffscreenProbe it is instead the child process of ImGuiLabWithoutOpenGl's test: on the offscreen
// platform the lab must report OpenGL unavailable, without a crash (the main window then shows a note
// instead of the lab; test_main_window.cpp checks that).
#include "gui/imgui_lab_fixture.h"

#include <cstdio>
#include <cstring>

namespace {

int runOffscreenProbe(int argc, char** argv) {
    QApplication app(argc, argv);
    const bool available = attnlab::ImGuiLabWidget::openGlAvailable();
    std::printf("openGlAvailable=%s\n", available ? "true" : "false");
    return available ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], attnlab::labtest::kOffscreenProbe) == 0) return runOffscreenProbe(argc, argv);
    attnlab::labtest::reexecUnderXvfbWhenNeeded(argc, argv);
    return attnlab::guitest::runGuiTests(argc, argv, "gui_imgui_lab");
}
