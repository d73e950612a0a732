#include "core/io/output_file.h"

#include "core/errors.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab {

namespace {

// The signal handler's table: async-signal-safe storage (fixed arrays, atomic state words).
// State 1: a temporary to unlink. State 2: a temporary inside a commit, to rename over its target.
constexpr int kSlots = 64;
struct Slot {
    volatile std::sig_atomic_t state = 0;
    char temporary[PATH_MAX] = {};
    char target[PATH_MAX] = {};
};
std::array<Slot, kSlots> g_slots;

void onTerminatingSignal(int signal) {
    for (auto& slot : g_slots) {
        if (slot.state == 2) ::rename(slot.temporary, slot.target);
        if (slot.state == 1) ::unlink(slot.temporary);
    }
    ::signal(signal, SIG_DFL);
    ::raise(signal);
}

// Installed once, and only over the default action: a host (the GUI) that handles a signal keeps it.
void installHandlerOnce() {
    static const bool installed = [] {
        for (const int signal : {SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) {
            struct sigaction current = {};
            if (::sigaction(signal, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) continue;
            struct sigaction action = {};
            action.sa_handler = onTerminatingSignal;
            sigemptyset(&action.sa_mask);
            ::sigaction(signal, &action, nullptr);
        }
        return true;
    }();
    (void)installed;
}

int registerTemporary(const std::string& temporary, const std::string& target) {
    installHandlerOnce();
    if (temporary.size() >= PATH_MAX || target.size() >= PATH_MAX) return -1;
    for (int s = 0; s < kSlots; ++s) {
        if (g_slots[s].state != 0) continue;
        std::memcpy(g_slots[s].temporary, temporary.c_str(), temporary.size() + 1);
        std::memcpy(g_slots[s].target, target.c_str(), target.size() + 1);
        g_slots[s].state = 1;
        return s;
    }
    return -1; // more than kSlots files at once: the destructor still cleans up, a signal will not
}

void setSlotState(int slot, std::sig_atomic_t state) {
    if (slot >= 0) g_slots[slot].state = state;
}

std::string describeFileType(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

// The file a write to `destination` replaces: symlinks resolved, directory made absolute. Refuses
// anything but a regular file or a new name in an existing directory.
std::string resolveTarget(const std::string& destination) {
    namespace fs = std::filesystem;
    struct stat info = {};
    std::string path = destination;
    if (::lstat(destination.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
        std::error_code error;
        const auto resolved = fs::canonical(destination, error);
        if (error) throw InputError(destination + ": is a symlink to a missing file; refusing to write through it");
        path = resolved.string();
    }
    if (::stat(path.c_str(), &info) == 0) {
        if (!S_ISREG(info.st_mode))
            throw InputError(destination + ": is " + describeFileType(info.st_mode) + "; only a regular file is replaced");
    } else if (errno != ENOENT) {
        throw InputError(destination + ": cannot write: " + std::strerror(errno));
    }
    const fs::path asPath(path);
    if (asPath.filename().empty()) throw InputError(destination + ": names a directory, not a file");
    std::error_code error;
    const fs::path parent = asPath.has_parent_path() ? asPath.parent_path() : fs::path(".");
    const auto directory = fs::canonical(parent, error);
    if (error) throw InputError(destination + ": directory does not exist: " + parent.string());
    return (directory / asPath.filename()).string();
}

std::string directoryOf(const std::string& target) { return std::filesystem::path(target).parent_path().string(); }

std::string randomHex() {
    std::random_device entropy;
    char text[9];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(entropy()));
    return text;
}

void syncDirectory(const std::string& directory) {
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

// Parses "<anything><marker><pid>-<8 hex>" (the exact name pattern this file creates). Returns the pid or -1.
long ownNamePid(const std::string& name, const std::string& marker) {
    const auto at = name.rfind(marker);
    if (at == std::string::npos) return -1;
    const std::string tail = name.substr(at + marker.size());
    const auto dash = tail.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 10 || tail.size() != dash + 9) return -1;
    for (std::size_t c = 0; c < tail.size(); ++c) {
        const char x = tail[c];
        const bool ok = c < dash ? (x >= '0' && x <= '9') : c == dash ? x == '-' : std::isxdigit(static_cast<unsigned char>(x)) != 0;
        if (!ok) return -1;
    }
    return std::stol(tail.substr(0, dash));
}

bool isStale(const std::string& path, long pid) {
    struct stat info = {};
    if (::lstat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || info.st_uid != ::geteuid()) return false;
    const bool processGone = pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
    return processGone && std::time(nullptr) - info.st_mtime > kStaleSeconds;
}

constexpr const char* kTemporaryMarker = ".partial-";
constexpr const char* kJournalMarker = ".attnlab-commit-";
constexpr const char* kJournalEnd = "END";

std::vector<std::string> directoryEntries(const std::string& directory) {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(directory.c_str())) {
        while (const dirent* entry = ::readdir(dir)) names.emplace_back(entry->d_name);
        ::closedir(dir);
    }
    return names;
}

// Journal: NUL-separated temporary, target pairs, then kJournalEnd; anything else is incomplete.
void replayJournal(const std::string& journal) {
    std::string bytes;
    if (const int fd = ::open(journal.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
        char buffer[4096];
        ssize_t got;
        while ((got = ::read(fd, buffer, sizeof buffer)) > 0 && bytes.size() < (1u << 20)) bytes.append(buffer, static_cast<std::size_t>(got));
        ::close(fd);
    }
    std::vector<std::string> fields;
    for (std::size_t start = 0; start < bytes.size();) {
        const auto end = bytes.find('\0', start);
        if (end == std::string::npos) break;
        fields.push_back(bytes.substr(start, end - start));
        start = end + 1;
    }
    const bool complete = !fields.empty() && fields.back() == kJournalEnd && fields.size() % 2 == 1;
    if (complete)
        for (std::size_t f = 0; f + 1 < fields.size(); f += 2)
            if (::access(fields[f].c_str(), F_OK) == 0) ::rename(fields[f].c_str(), fields[f + 1].c_str());
    ::unlink(journal.c_str());
}

} // namespace

void recoverInterruptedCommits(const std::string& directory) {
    const auto names = directoryEntries(directory);
    for (const auto& name : names)
        if (const long pid = ownNamePid(name, kJournalMarker); pid > 0 && name.rfind(kJournalMarker, 0) == 0) {
            const std::string path = directory + "/" + name;
            struct stat info = {};
            const bool gone = pid != ::getpid() && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
            if (gone && ::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && info.st_uid == ::geteuid())
                replayJournal(path);
        }
    for (const auto& name : names)
        if (const long pid = ownNamePid(name, kTemporaryMarker); pid > 0 && isStale(directory + "/" + name, pid))
            ::unlink((directory + "/" + name).c_str());
}

PendingFile::PendingFile(std::string destination) : m_destination(std::move(destination)) {
    m_target = resolveTarget(m_destination);
    recoverInterruptedCommits(directoryOf(m_target));
    const std::string suffix = kTemporaryMarker + std::to_string(::getpid()) + "-" + randomHex();
    // A name too long for the suffix (over NAME_MAX with it) gets a temporary of the suffix alone.
    const std::size_t nameLength = m_target.size() - directoryOf(m_target).size() - 1;
    m_temporary = nameLength + suffix.size() > NAME_MAX ? directoryOf(m_target) + "/" + suffix : m_target + suffix;
    m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (m_fd < 0) throw InputError(m_destination + ": cannot create: " + std::strerror(errno));
    m_slot = registerTemporary(m_temporary, m_target);
}

PendingFile::~PendingFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_committed) ::unlink(m_temporary.c_str());
    setSlotState(m_slot, 0);
}

void PendingFile::write(const void* data, std::size_t bytes) {
    const char* cursor = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t written = ::write(m_fd, cursor, std::min<std::size_t>(bytes, 1u << 30));
        if (written < 0) {
            if (errno == EINTR) continue;
            throw InputError(m_destination + ": write failed: " + std::strerror(errno));
        }
        cursor += written;
        bytes -= static_cast<std::size_t>(written);
    }
}

void PendingFile::finishWriting() {
    if (m_fd < 0) return;
    const int fd = m_fd;
    m_fd = -1;
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        throw InputError(m_destination + ": write failed: " + std::strerror(error));
    }
    if (::close(fd) != 0) throw InputError(m_destination + ": write failed: " + std::strerror(errno));
}

void PendingFile::commit() { commitTogether({this}); }

void commitTogether(const std::vector<PendingFile*>& files, const std::function<void(std::size_t)>& afterRename) {
    for (auto* file : files) file->finishWriting();
    std::string journal;
    if (files.size() > 1) {
        std::string record;
        for (const auto* file : files) record += file->m_temporary + '\0' + file->m_target + '\0';
        record += std::string(kJournalEnd) + '\0';
        journal = directoryOf(files.front()->m_target) + "/" + kJournalMarker + std::to_string(::getpid()) + "-" + randomHex();
        const int fd = ::open(journal.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        const bool written = fd >= 0 && ::write(fd, record.data(), record.size()) == static_cast<ssize_t>(record.size()) &&
                             ::fsync(fd) == 0;
        if (fd >= 0) ::close(fd);
        if (!written) {
            ::unlink(journal.c_str());
            throw InputError(files.front()->m_destination + ": cannot write the commit journal: " + std::strerror(errno));
        }
        syncDirectory(directoryOf(files.front()->m_target));
    }
    for (auto* file : files) setSlotState(file->m_slot, 2);
    for (std::size_t f = 0; f < files.size(); ++f) {
        auto* file = files[f];
        if (::rename(file->m_temporary.c_str(), file->m_target.c_str()) != 0)
            throw InputError(file->m_destination + ": cannot rename into place: " + std::strerror(errno));
        file->m_committed = true;
        setSlotState(file->m_slot, 0);
        if (afterRename) afterRename(f);
    }
    for (const auto* file : files) syncDirectory(directoryOf(file->m_target));
    if (!journal.empty()) ::unlink(journal.c_str());
}

void refuseOverlappingFiles(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
    std::vector<std::string> targets;
    for (const auto& [option, path] : outputs) {
        const std::string target = resolveTarget(path);
        for (std::size_t o = 0; o < targets.size(); ++o)
            if (targets[o] == target) throw InputError(outputs[o].first + " and " + option + " name the same file");
        targets.push_back(target);
        struct stat outInfo = {};
        if (::stat(target.c_str(), &outInfo) != 0) continue;
        for (const auto& [inputOption, inputPath] : inputs) {
            struct stat inInfo = {};
            if (::stat(inputPath.c_str(), &inInfo) == 0 && inInfo.st_dev == outInfo.st_dev && inInfo.st_ino == outInfo.st_ino)
                throw InputError(option + " " + path + " is the same file as the input " + inputOption +
                                 "; refusing to overwrite an input");
        }
    }
}

void requireReplaceableTarget(const std::string& destination) {
    if (destination.empty()) throw InputError("the output path is empty");
    resolveTarget(destination);
}

void writeWholeFiles(const std::vector<WholeFile>& files, const std::vector<NamedPath>& inputs) {
    std::vector<NamedPath> outputs;
    for (const WholeFile& file : files) outputs.emplace_back(file.option, file.destination);
    refuseOverlappingFiles(outputs, inputs);
    std::vector<std::unique_ptr<PendingFile>> pending;
    std::vector<PendingFile*> all;
    for (const WholeFile& file : files) {
        pending.push_back(std::make_unique<PendingFile>(file.destination));
        pending.back()->write(file.bytes.data(), file.bytes.size());
        all.push_back(pending.back().get());
    }
    commitTogether(all);
}

} // namespace attnlab
