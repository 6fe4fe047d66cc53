// The prover split at the boundaries of the GPU interlock (docs/DESIGN.md section 4), so that a pipeline
// worker holds the CUDA lock across exactly the kernel work:
//   prepare_partition  CPU, before the lock: size checks, rows padded to the domain, scalars of the A and B
//                      queries compacted by density
//   run_kernels        under the lock: the 6 NTTs of H, then the H, L, A and B_G1 multi-exponentiations
//   finish_proof       CPU, after the lock: the B_G2 multi-exponentiation, blinding with r and s, the proof
// create_proof (prover.hpp) is the three in a row. A witness can come from a proving_assignment or from
// memory laid out elsewhere (a ring slot): witness_view names it without copying.
#pragma once

#include <cstdint>
#include <memory_resource>
#include <span>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/groth16/keys.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/randomness.hpp"
#include "common/groth16/scalar_buffer.hpp"

namespace cuzk::groth16 {

// A density bitmap held elsewhere: bit i of words[i / 64] says whether variable i is in the query. Bits at
// and beyond |bits| must be zero.
struct density_view {
    std::span<const std::uint64_t> words;
    std::size_t bits = 0;

    bool test(std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
    std::size_t count() const;
};

// Everything the prover reads of a synthesized partition (bellperson's ProvingAssignment after finish()).
struct witness_view {
    std::span<const ff::fr_t> a, b, c;  // one evaluation per row (circuit rows, then the input rows)
    std::span<const ff::fr_t> inputs;   // inputs[0] == ONE
    std::span<const ff::fr_t> aux;
    density_view a_aux_density, b_input_density, b_aux_density;
};

// |pa| must be finished; the view is valid while |pa| lives and is not modified.
witness_view view_of(const proving_assignment& pa);

struct prepared_partition {
    // |scalars| provides the memory of a_scalars and b_scalars (gpud's CUDA backend: page-locked buffers
    // reused across partitions, gpud/cuda/pinned_pool.hpp); moves carry the memory and its resource along.
    explicit prepared_partition(std::pmr::memory_resource* scalars = std::pmr::get_default_resource())
        : a_scalars(scalars), b_scalars(scalars) {}

    unsigned log_m = 0;
    std::vector<ff::fr_t> h, b, c;  // the rows padded to m = 2^log_m; h starts as a and becomes H's coefficients
    std::span<const ff::fr_t> aux;  // borrowed from the witness: it must outlive finish_proof
    scalar_buffer a_scalars, b_scalars;  // in the order of the density-filtered a and b_g1/b_g2 points
    // A uses every aux variable and its aux scalars were left in |aux| (a_aux_storage::in_aux_when_dense):
    // a_scalars then holds the inputs alone, for the first |a_scalars|.size() points of A, and |aux| is the
    // scalars of the rest.
    bool a_aux_in_aux = false;
};

// Where prepare puts A's aux scalars. gathered: into a_scalars after the inputs, always. in_aux_when_dense:
// where A uses every aux variable they are the witness's aux in order, so they stay there (a_aux_in_aux)
// and a_scalars holds the inputs alone: the CUDA backend runs L and A over the same aux scalars, and the copy
// would be 4.2 GB of page-locked memory at 32 GiB. (The PoRep circuits are not such circuits: at 32 GiB A
// leaves 416,601 aux variables out, at 2 KiB 10,765; groth16/scalar_census.hpp.)
enum class a_aux_storage { gathered, in_aux_when_dense };

struct kernel_results {
    ec::g1_jacobian_t h_acc, l_acc, a_acc, b1_acc;
};

// Throws std::invalid_argument naming the first parameter vector that does not fit the witness.
prepared_partition prepare_partition(const witness_view& w, const parameters& params, prove_timings* timings = nullptr);
// As above, taking the row vectors over instead of copying them (the in-process prover's path).
prepared_partition prepare_partition(std::vector<ff::fr_t>&& a, std::vector<ff::fr_t>&& b, std::vector<ff::fr_t>&& c,
                                     const witness_view& w, const parameters& params, prove_timings* timings = nullptr);

// As above without the rows: |h|, |b|, |c| stay empty and the caller reads the witness's rows a, b, c
// (|w.a|.size() of them, zero beyond up to 2^log_m) where they are. The GPU backend copies them to the
// device straight from the ring slot, so gpud's CPU step before the lock does not copy (and fault in)
// three fresh row vectors per partition.
prepared_partition prepare_partition_without_rows(const witness_view& w, const parameters& params,
                                                  prove_timings* timings = nullptr);
// The same into |out|, whose scalar vectors keep their memory resource; |out| must be freshly constructed.
void prepare_partition_without_rows(const witness_view& w, const parameters& params, prepared_partition& out,
                                    prove_timings* timings = nullptr,
                                    a_aux_storage a_aux = a_aux_storage::gathered);

// Consumes |p.h|, |p.b|, |p.c| (released on return).
kernel_results run_kernels(prepared_partition& p, const parameters& params, prove_timings* timings = nullptr);

proof finish_proof(const prepared_partition& p, const kernel_results& k, const parameters& params, rng_fn& rng,
                   prove_timings* timings = nullptr);
// finish_proof's tail for a caller that computed the B_G2 multi-exponentiation itself (sum of b_g2 times
// the b scalars): draws r then s from |rng| and blinds, exactly as finish_proof does.
proof blind_proof(const kernel_results& k, const ec::g2_jacobian_t& b2_acc, const verifying_key& vk, rng_fn& rng,
                  prove_timings* timings = nullptr);

}  // namespace cuzk::groth16
