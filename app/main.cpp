#include "app/commands.h"
#include "app/thread_environment.h"
#include "core/measure/timing.h"

#ifdef ATTNLAB_WITH_GUI
#include "app/figure_command.h"
#include "app/gui_main.h"
#endif

#include <csignal>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
    // Under a file-size limit (ulimit -f) a write past it then fails with EFBIG, which every writer reports
    // in one line and exit 2 (keeping the old file), instead of the process dying silently by SIGXFSZ.
    std::signal(SIGXFSZ, SIG_IGN);
    if (const std::string note = attnlab::threadEnvironmentNote(); !note.empty()) std::fprintf(stderr, "%s\n", note.c_str());
    attnlab::prepareAllocatorForMeasurements();
#ifdef ATTNLAB_WITH_GUI
    if (attnlab::isCommandLineInvocation(argc, argv))
        return attnlab::runCommandLine(argc, argv, {{"figure", attnlab::figureCommand}});
    return attnlab::runGui(argc, argv);
#else
    if (attnlab::isCommandLineInvocation(argc, argv)) return attnlab::runCommandLine(argc, argv);
    std::fprintf(stderr, "attnlab: error: this build has no GUI (configure with ATTNLAB_BUILD_GUI=ON)\n");
    return 2;
#endif
}
