// The task-graph library's concurrent map from keys to nodes (Nabbit,
// NabbitC paper, section II: "each thread will try to initialize the predecessor
// f but only one will succeed"): find_or_create makes the value of a key
// exactly once, however many workers ask for it at the same time.
//
// Contract: find_or_create and find from any thread at once; for_each and
// size only while no other call runs. Values never move and are never
// removed until the map is destroyed; their keys are the map's own copies
// (std::unordered_map keeps references to its elements valid across
// rehashing), so a value may hold a reference to its key.
//
// Sharded: 64 shards, each an unordered_map under its own mutex, chosen by
// the high bits of the mixed hash. A critical section only hashes, probes
// and links one element (no task runs, no locus call, so a simulated worker
// never switches inside one); creation of the value's contents (the user's
// node, its init()) happens outside, by the one caller told `created`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

namespace locus::detail {

template <class Key, class Value, class Hash, class Eq>
class key_map {
 public:
  // The value of `key`, made by make(const Key& the_maps_key) if it is new;
  // `second` is true for the one caller whose make() made it.
  template <class Make>
  std::pair<Value*, bool> find_or_create(const Key& key, Make&& make) {
    shard& s = shard_of(key);
    std::lock_guard lock(s.mutex);
    auto [it, inserted] = s.map.try_emplace(key);
    if (inserted) {
      try {
        it->second = make(it->first);
      } catch (...) {
        s.map.erase(it);
        throw;
      }
    }
    return {it->second.get(), inserted};
  }

  Value* find(const Key& key) const {
    const shard& s = shard_of(key);
    std::lock_guard lock(s.mutex);
    auto it = s.map.find(key);
    return it == s.map.end() ? nullptr : it->second.get();
  }

  template <class F>
  void for_each(F&& f) const {
    for (const shard& s : shards_)
      for (const auto& [key, value] : s.map) f(*value);
  }

  std::size_t size() const {
    std::size_t n = 0;
    for (const shard& s : shards_) n += s.map.size();
    return n;
  }

 private:
  struct alignas(64) shard {
    mutable std::mutex mutex;
    std::unordered_map<Key, std::unique_ptr<Value>, Hash, Eq> map;
  };
  static constexpr std::size_t num_shards = 64;

  // std::hash of an integer is the integer: mix it (Fibonacci hashing) so
  // that consecutive keys spread over the shards.
  std::size_t index_of(const Key& key) const {
    const std::uint64_t h = static_cast<std::uint64_t>(Hash{}(key)) * 0x9e3779b97f4a7c15ull;
    return static_cast<std::size_t>(h >> 58);  // 6 bits: num_shards
  }
  shard& shard_of(const Key& key) { return shards_[index_of(key)]; }
  const shard& shard_of(const Key& key) const { return shards_[index_of(key)]; }

  std::array<shard, num_shards> shards_;
};

}  // namespace locus::detail
