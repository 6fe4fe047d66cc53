#include "daemon/porep_input_check.hpp"

#include <fmt/format.h>
#include <tbb/parallel_for.h>

#include <mutex>
#include <optional>
#include <utility>

#include "common/cs/checking_cs.hpp"
#include "common/porep/stacked_circuit.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

namespace {

// Why partition |k|'s first challenge fails, or nothing.
std::optional<std::string> first_challenge_failure(const porep_job_input& in, std::uint32_t k) {
    auto witness = in.partition_witness(k);
    if (witness.challenges.empty()) return std::nullopt;
    witness.challenges.resize(1);
    auto shape = porep::stacked_circuit_shape::of(*in.proof);
    shape.challenges = 1;
    cs::checking_cs checker;
    porep::synthesize_stacked_partition(checker, shape, &witness);
    if (!checker.is_satisfied())
        return fmt::format("partition {}, challenge {}: the constraint {} does not hold", k,
                           witness.challenges[0].challenge, *checker.first_failure());
    // The circuit's inputs (ONE first) against the verifier's: the partition's global ones, then the first
    // challenge's.
    const auto expected = in.partition_inputs(k);
    const auto allocated = checker.inputs();
    for (std::size_t i = 1; i < allocated.size() && i - 1 < expected.size(); ++i) {
        if (allocated[i] != expected[i - 1])
            return fmt::format("partition {}, challenge {}: public input {} of the circuit differs from the one the "
                               "verifier derives from the C1's comm_r, comm_d, replica id and seed",
                               k, witness.challenges[0].challenge, i - 1);
    }
    return std::nullopt;
}

}  // namespace

void check_first_challenges(const porep_job_input& in, const std::string& source) {
    std::mutex mutex;
    std::optional<std::pair<std::uint32_t, std::string>> first;  // the lowest failing partition
    tbb::parallel_for(std::uint32_t{0}, in.partitions(), [&](std::uint32_t k) {
        std::optional<std::string> why;
        try {
            why = first_challenge_failure(in, k);
        } catch (const std::exception& e) {
            why = fmt::format("partition {}: {}", k, e.what());
        }
        if (!why) return;
        std::lock_guard lock(mutex);
        if (!first || k < first->first) first.emplace(k, std::move(*why));
    });
    if (first)
        throw input_error(fmt::format("{}: the C1 does not satisfy the PoRep circuit ({}): it would not prove; "
                                      "check that the file is the commit phase 1 output of this sector, whole",
                                      source, first->second));
}

}  // namespace cuzk::daemon
