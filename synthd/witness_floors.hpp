// The fewest bytes a partition witness of each circuit can take in a ring slot, known before anything is
// synthesized: a witness's size depends on its values (a compact aux value is a bit or 32 bytes), but every value
// a bit is a floor set by the circuit's shape alone. synthd refuses a partition whose floor exceeds the ring's
// slot at once, instead of after a synthesis (5 s and 2 GB at 32 GiB) whose witness cannot be written anywhere.
// The shape's sizes come from one blank synthesis into a counting constraint system (no values, no storage;
// 4.2 s for the 32 GiB PoRep partition, milliseconds for the test sizes), once per circuit shape and process.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <mutex>
#include <string>

namespace cuzk::synthd {

class witness_floors {
public:
    // Bytes for |spec| (a circuit spec as jobs name it: "porep:<proof>", "post:<proof>", "mul:64@3"). Thread-safe:
    // the first caller of a shape counts it, callers of the same shape meanwhile wait for that count. Throws what
    // building the blank circuit throws (an unknown spec: std::invalid_argument).
    std::uint64_t of(const std::string& spec);

private:
    std::mutex mutex_;
    std::map<std::string, std::shared_future<std::uint64_t>> by_shape_;
};

}  // namespace cuzk::synthd
