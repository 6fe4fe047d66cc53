// The fewest bytes a partition witness of each circuit can take in a ring slot, known before anything is
// synthesized: a witness's size depends on its values (a compact aux value is a bit or 32 bytes), but every value
// a bit is a floor set by the circuit's shape alone. synthd refuses a partition whose floor exceeds the ring's
// slot at once, instead of after a synthesis (5 s and 2 GB at 32 GiB) whose witness cannot be written anywhere.
// The shape's sizes come from one blank synthesis into a counting constraint system (no values, no storage;
// 4.2 s for the 32 GiB PoRep partition, milliseconds for the test sizes), once per circuit and process.
// A circuit is known by its published parameter file where it has one: proofs that share a .params file share the
// circuit (PoRep V1, V1_1 and the synthetic variants of a sector size; WindowPoSt V1 and V1_1), so one count serves
// them all (130,278,541 constraints, 328 inputs, 130,169,893 aux values for every 32 GiB PoRep); a test circuit
// by its shape (the spec without its seed).
#pragma once

#include <cstddef>
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
    // building the blank circuit throws (an unknown spec: std::invalid_argument or input_error).
    std::uint64_t of(const std::string& spec);

    // The key |spec|'s count is kept under: "params:<published .params file name>" or the test circuit's shape.
    // Throws input_error for a registered proof this build does not know.
    static std::string circuit_key(const std::string& spec);

    // How many circuits were counted (each once, however many specs share it).
    std::size_t counted() const;

private:
    mutable std::mutex mutex_;
    std::map<std::string, std::shared_future<std::uint64_t>> by_circuit_;
    std::size_t counted_ = 0;
};

}  // namespace cuzk::synthd
