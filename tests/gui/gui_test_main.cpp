// main() of gui_tests, the program of every GUI test file but the lab's and those with a main() of their
// own: runGuiTests (gui_test_main.h), on the offscreen platform unless QT_QPA_PLATFORM says otherwise.
#include "gui/gui_test_main.h"

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    return attnlab::guitest::runGuiTests(argc, argv, "gui_tests");
}
