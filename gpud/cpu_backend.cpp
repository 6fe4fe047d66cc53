#include "gpud/cpu_backend.hpp"

#include "gpud/host_expansion.hpp"

namespace cuzk::gpud {

namespace {

struct cpu_work final : partition_work {
    const groth16::parameters* params = nullptr;
    // A compact partition's aux values (and, until prepare takes them over, rows): prepared.aux borrows them.
    std::unique_ptr<expanded_partition> expanded;
    groth16::prepared_partition prepared;
    groth16::kernel_results kernels;
};

cpu_work& as_cpu(partition_work& w) { return dynamic_cast<cpu_work&>(w); }

}  // namespace

std::unique_ptr<partition_work> cpu_backend::prepare(const groth16::witness_view& w, const groth16::parameters& params) {
    auto work = std::make_unique<cpu_work>();
    work->params = &params;
    work->prepared = groth16::prepare_partition(w, params);
    return work;
}

std::unique_ptr<partition_work> cpu_backend::prepare_compact(const compact_partition& w,
                                                             const groth16::parameters& params) {
    auto work = std::make_unique<cpu_work>();
    work->params = &params;
    work->expanded = expand_on_host(w);
    auto& e = *work->expanded;
    work->prepared =
        groth16::prepare_partition(std::move(e.rows.a), std::move(e.rows.b), std::move(e.rows.c), e.view, params);
    return work;
}

void cpu_backend::run_kernels(partition_work& work) {
    auto& w = as_cpu(work);
    w.kernels = groth16::run_kernels(w.prepared, *w.params);
}

groth16::proof cpu_backend::finish(partition_work& work, groth16::rng_fn& rng) {
    auto& w = as_cpu(work);
    return groth16::finish_proof(w.prepared, w.kernels, *w.params, rng);
}

}  // namespace cuzk::gpud
