#include "assemblerd/proof_verifier.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <span>
#include <utility>

#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/util/errors.hpp"
#include "daemon/params_files.hpp"

namespace cuzk::assemblerd {

proof_verifier::proof_verifier(std::filesystem::path params_dir, std::function<void(const job&)> before_verify)
    : params_dir_(std::move(params_dir)), before_verify_(std::move(before_verify)), thread_([this] { loop(); }) {}

proof_verifier::~proof_verifier() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
}

void proof_verifier::submit(job j) {
    {
        std::lock_guard lock(mutex_);
        const auto priority = j.priority;
        tasks_.push(priority, std::move(j));
    }
    cv_.notify_all();
}

std::vector<proof_verifier::outcome> proof_verifier::take() {
    std::lock_guard lock(mutex_);
    return std::exchange(done_, {});
}

std::size_t proof_verifier::busy() const {
    std::lock_guard lock(mutex_);
    return tasks_.size() + running_;
}

void proof_verifier::loop() {
    for (;;) {
        job j;
        {
            std::unique_lock lock(mutex_);
            cv_.wait(lock, [&] { return stop_ || !tasks_.empty(); });
            if (stop_) return;
            j = tasks_.pop();
            running_ = 1;
        }
        outcome o{j.id, {}, {}, {}};
        if (before_verify_) before_verify_(j);
        try {
            o.invalid = verify(j, o.vk_file);
        } catch (const std::exception& e) {
            o.error = e.what();
        }
        std::lock_guard lock(mutex_);
        running_ = 0;
        done_.push_back(std::move(o));
    }
}

// PoRep partitions: the public inputs from the C1's replica_id, seed, comm_d and comm_r, checked with the vk
// of the registered proof (the published .vk of its sector size, or porep_<name>.vk: daemon/params_files.hpp).
// SnapDeals partitions: k_and_h_select, comm_r_old, comm_d_new, comm_r_new of each (update/public_inputs.hpp).
std::vector<std::uint32_t> proof_verifier::verify(const job& j, std::string& vk_name) {
    const auto shape =
        j.porep || j.post || j.update ? j.circuit() : daemon::circuit_shape(j.test_input.partition_spec(0));
    auto it = pvks_.find(shape);
    if (it != pvks_.end()) {
        // A verifying key replaced since it was read is read again (one stat per job).
        const auto now = daemon::identity_of(it->second.file);
        if (now && it->second.identity && !(*now == *it->second.identity)) {
            spdlog::warn("{} changed since it was read: reading it again", it->second.file.string());
            pvks_.erase(it);
            it = pvks_.end();
        }
    }
    if (it == pvks_.end()) {
        const auto vk_file = daemon::resolve_params_files(params_dir_, shape).vk;
        const auto identity = daemon::identity_of(vk_file);
        const auto vk = groth16::read_vk(vk_file);
        const std::uint64_t inputs = j.porep    ? j.porep->proof->public_inputs_per_partition()
                                     : j.post   ? j.post->proof->public_inputs_per_partition()
                                     : j.update ? j.update->public_inputs.at(0).size()
                                                : 0;
        if (inputs && vk.ic.size() != inputs + 1)
            throw input_error(fmt::format("{}: {} IC points, {} needs {}", vk_file.string(), vk.ic.size(), j.circuit(),
                                          inputs + 1));
        it = pvks_.emplace(shape, loaded_vk{vk_file, identity, groth16::prepare_verifying_key(vk)}).first;
    }
    vk_name = it->second.file.string();
    std::vector<std::uint32_t> invalid;
    for (std::uint32_t p = 0; p < j.partitions.size(); ++p) {
        const auto inputs = j.porep    ? j.porep->partition_inputs(p)
                            : j.post   ? j.post->public_inputs
                            : j.update ? j.update->public_inputs.at(p)
                                       : circuits::make_circuit(j.test_input.partition_spec(p))->public_inputs();
        const auto& bytes = *j.partitions[p].proof;
        bool ok = false;
        try {
            const auto pi = groth16::proof_from_bytes(
                std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
            ok = groth16::verify_proof(it->second.pvk, pi, inputs);
        } catch (const std::exception& e) {
            spdlog::error("job {} partition {}: proof does not decode: {}", j.id, p, e.what());
        }
        if (!ok) invalid.push_back(p);
    }
    return invalid;
}

}  // namespace cuzk::assemblerd
