#pragma once

// Values that are costly to build and the same from run to run (block plans, random projections), kept
// between runs: the last few used of each type, keyed by text. A miss builds outside the lock, so values of
// other keys may be built meanwhile; two threads missing the same key both build it, and either result
// serves.

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace attnlab {

template <typename T, std::size_t Entries>
std::shared_ptr<const T> recentValue(const std::string& key,
                                     const std::function<std::shared_ptr<const T>()>& build) {
    static std::mutex mutex;
    static std::list<std::pair<std::string, std::shared_ptr<const T>>> recent; // most recent first
    {
        const std::lock_guard lock(mutex);
        for (auto entry = recent.begin(); entry != recent.end(); ++entry)
            if (entry->first == key) {
                recent.splice(recent.begin(), recent, entry);
                return entry->second;
            }
    }
    auto value = build();
    const std::lock_guard lock(mutex);
    recent.emplace_front(key, value);
    if (recent.size() > Entries) recent.pop_back();
    return value;
}

} // namespace attnlab
