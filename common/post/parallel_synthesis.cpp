#include "common/post/parallel_synthesis.hpp"

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "common/cs/counting_cs.hpp"

namespace cuzk::post {

void synthesize_witness_parallel(const post_partition_circuit& circuit, witness::witness_assignment& out) {
    if (out.num_inputs() != 1 || out.num_aux() != 0 || out.num_circuit_constraints() != 0)
        throw std::invalid_argument(circuit.name() + ": parallel synthesis needs an empty witness assignment");
    if (!circuit.witness()) throw std::invalid_argument(circuit.name() + ": the blank circuit has no witness");
    const auto& shape = circuit.shape();
    const auto& slots = circuit.witness()->sectors;
    if (slots.size() != shape.sectors)
        throw std::invalid_argument(circuit.name() + ": " + std::to_string(slots.size()) +
                                    " sector slots, the circuit has " + std::to_string(shape.sectors));
    // A few groups a thread, so that threads that finish early take more; a group is at least one slot.
    const std::size_t threads = std::size_t(std::max(1, tbb::this_task_arena::max_concurrency()));
    const std::size_t groups = std::min<std::size_t>(slots.size(), 4 * threads);
    if (groups <= 1) {
        circuit.synthesize(out);
        return;
    }
    // Every slot allocates the same variables: one blank slot's count sizes each part's arrays before it is
    // filled, so that none grows by copying (at 32 GiB the parts hold ~4 GB). Reserved as if every value were
    // full: the pages of the room left over are never touched.
    cs::counting_cs blank;
    synthesize_sector_slot(blank, shape, nullptr);
    std::vector<witness::witness_assignment> parts(groups);
    tbb::parallel_for(std::size_t(0), groups, [&](std::size_t g) {
        const std::size_t begin = slots.size() * g / groups, end = slots.size() * (g + 1) / groups;
        const std::uint64_t n = end - begin;
        parts[g].reserve_more(n * blank.num_inputs_without_one(), n * blank.num_aux(), n * blank.num_aux());
        for (std::size_t i = begin; i < end; ++i) {
            cs::namespace_scope ns(parts[g], "sector", i);
            synthesize_sector_slot(parts[g], shape, &slots[i]);
        }
    });
    // Joined into room made first, each part freed once appended: the peak is about one witness, not two.
    std::uint64_t inputs = 0, aux = 0, full = 0;
    for (const auto& part : parts) {
        inputs += part.num_inputs() - 1;
        aux += part.num_aux();
        full += part.num_full_aux();
    }
    out.reserve_more(inputs, aux, full);
    for (auto& part : parts) {
        out.append(part);
        part = witness::witness_assignment();
    }
}

}  // namespace cuzk::post
