#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace attnlab {

// A file written under a temporary name in the destination's directory and renamed over the
// destination only by commit(). Guarantees (docs/limits.md):
// - only a regular file is ever replaced: a destination that is a directory, device, FIFO or socket
//   is refused; a symlink is written through (the regular file it points to is replaced, the link
//   stays); a dangling symlink is refused;
// - the temporary "<name>.partial-<pid>-<8 hex>" (".partial-<pid>-<8 hex>" when the name is too long
//   for the suffix) is removed when the object dies uncommitted
//   (exceptions), and on SIGINT, SIGTERM, SIGHUP and SIGXFSZ by a handler that unlinks every registered
//   temporary; after a kill -9 the next attnlab writing into that directory sweeps it (its process is
//   gone and it is older than kStaleSeconds).
class PendingFile {
public:
    explicit PendingFile(std::string destination);
    ~PendingFile();
    PendingFile(const PendingFile&) = delete;
    PendingFile& operator=(const PendingFile&) = delete;

    void write(const void* data, std::size_t bytes);
    void commit();
    const std::string& destination() const { return m_destination; }
    // The path that will be replaced: the destination with symlinks resolved and its directory absolute.
    const std::string& target() const { return m_target; }
    const std::string& temporary() const { return m_temporary; }

private:
    friend void commitTogether(const std::vector<PendingFile*>&, const std::function<void(std::size_t)>&);
    void finishWriting();

    std::string m_destination;
    std::string m_target;
    std::string m_temporary;
    int m_fd = -1;
    int m_slot = -1; // in the signal handler's table
    bool m_committed = false;
};

// Seconds after which a temporary or commit journal of a dead process counts as stale.
constexpr int kStaleSeconds = 180;

// Commits several files as one: all new or all old. The temporaries are flushed, then a journal
// ".attnlab-commit-<pid>-<hex>" listing (temporary, target) pairs is written next to the first
// target, then the files are renamed in order, then the journal is removed. A signal during the
// renames finishes them in the handler; after a kill -9 between two renames, the next attnlab
// writing into that directory (recoverInterruptedCommits) finishes the renames from the journal.
// `afterRename(i)` runs after the i-th rename (tests inject a crash there).
void commitTogether(const std::vector<PendingFile*>& files, const std::function<void(std::size_t)>& afterRename = {});

// Finishes commits of dead processes found in `directory`, then removes their stale temporaries.
// Runs automatically when a PendingFile is created in that directory.
void recoverInterruptedCommits(const std::string& directory);

// Throws InputError when an existing output is the same file (device and inode, through symlinks
// and hard links) as one of the inputs, or two outputs resolve to one target. Names are the option
// names used in the message, e.g. {"--out", path}.
using NamedPath = std::pair<std::string, std::string>;
void refuseOverlappingFiles(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs);

// Throws InputError (one line) when `destination` is not a file PendingFile would replace: for checking an
// output before long work, so that a refusal comes before the work rather than after it.
void requireReplaceableTarget(const std::string& destination);

// One whole output held in memory: the option that named it (for messages), where it goes, its bytes.
struct WholeFile {
    std::string option;
    std::string destination;
    std::string bytes;
};

// Every file the program writes from memory goes through here: refuseOverlappingFiles against `inputs`,
// then each through a PendingFile (every write, the flush and the close checked), committed together.
// On any failure nothing is replaced and InputError says why in one line.
void writeWholeFiles(const std::vector<WholeFile>& files, const std::vector<NamedPath>& inputs);

} // namespace attnlab
