#include "synthd/witness_floors.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <memory>

#include "common/circuits/registry.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/porep/porep_circuit.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/post/post_circuit.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/update/update_circuit.hpp"
#include "common/update/update_shape.hpp"
#include "daemon/params_files.hpp"
#include "daemon/partition_witness.hpp"

namespace cuzk::synthd {

namespace {

// The blank circuit of a shape: PoRep, PoSt and SnapDeals built from their registered proof alone (make_circuit
// would seal a sample sector or update for the small sizes), the test circuits as make_circuit builds them.
std::unique_ptr<circuits::circuit> blank_circuit(const std::string& shape) {
    if (shape.starts_with("porep:"))
        return std::make_unique<porep::porep_partition_circuit>(porep::registered_proof_by_name(shape.substr(6)));
    if (shape.starts_with("post:"))
        return std::make_unique<post::post_partition_circuit>(post::registered_post_proof_by_name(shape.substr(5)));
    if (shape.starts_with("update:"))
        return std::make_unique<update::update_partition_circuit>(
            update::registered_update_proof_by_name(shape.substr(7)));
    return circuits::make_circuit(shape);
}

std::uint64_t count_floor(const std::string& shape) {
    const auto t0 = std::chrono::steady_clock::now();
    cs::counting_cs counter;
    blank_circuit(shape)->synthesize(counter);
    const auto bytes = daemon::witness_bytes_floor(counter.num_inputs(), counter.num_aux());
    spdlog::debug("{}: {} inputs, {} aux values, a witness of at least {} bytes (counted in {} ms)", shape,
                  counter.num_inputs(), counter.num_aux(), bytes,
                  std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count());
    return bytes;
}

}  // namespace

std::string witness_floors::circuit_key(const std::string& spec) {
    if (daemon::has_published_params(spec))
        return "params:" + daemon::official_params_files({}, spec).params.filename().string();
    return daemon::circuit_shape(spec);
}

std::size_t witness_floors::counted() const {
    std::lock_guard lock(mutex_);
    return counted_;
}

std::uint64_t witness_floors::of(const std::string& spec) {
    const auto key = circuit_key(spec);
    const auto shape = daemon::circuit_shape(spec);
    std::shared_future<std::uint64_t> floor;
    std::promise<std::uint64_t> mine;
    bool counts = false;
    {
        std::lock_guard lock(mutex_);
        auto it = by_circuit_.find(key);
        if (it == by_circuit_.end()) {
            it = by_circuit_.emplace(key, mine.get_future().share()).first;
            counts = true;
        }
        floor = it->second;
    }
    if (counts) {
        try {
            const auto bytes = count_floor(shape);
            {
                std::lock_guard lock(mutex_);
                ++counted_;
            }
            mine.set_value(bytes);
        } catch (...) {
            // Not kept: a later job of the shape tries again (and fails the same way, naming the spec).
            {
                std::lock_guard lock(mutex_);
                by_circuit_.erase(key);
            }
            mine.set_exception(std::current_exception());
        }
    }
    return floor.get();
}

}  // namespace cuzk::synthd
