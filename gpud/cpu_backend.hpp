// The CPU proving backend: groth16::prover_stages on the host. Its "kernels" run under the CUDA lock all the
// same, so the pipeline's interlock and timeline behave as they will with a GPU; and as there, a WinningPoSt's
// kernels run beside the lock's holder (its works share nothing: any may).
#pragma once

#include "gpud/proving_backend.hpp"

namespace cuzk::gpud {

class cpu_backend final : public proving_backend {
public:
    std::string_view name() const override { return "cpu"; }
    std::unique_ptr<partition_work> prepare(const groth16::witness_view& w, const groth16::parameters& params) override;
    std::unique_ptr<partition_work> prepare_compact(const compact_partition& w,
                                                    const groth16::parameters& params) override;
    void run_kernels(partition_work& work) override;
    bool can_run_beside_lock(const partition_work& /*work*/) const override { return true; }
    groth16::proof finish(partition_work& work, groth16::rng_fn& rng) override;
};

}  // namespace cuzk::gpud
