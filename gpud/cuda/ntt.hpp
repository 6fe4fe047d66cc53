// Number-theoretic transforms over Fr on the GPU, and the Groth16 H pipeline, with the same
// semantics as common/ntt (ntt.hpp there): natural order in and out, omega = root_of_unity(log n),
// coset shift g = 7, inverse scaled by 1/n.
//
// Each transform is one decimation-in-frequency pass sequence (natural in, bit-reversed out) plus an
// in-place bit reversal (fused with the 1/n scaling of the inverse, and with the coset scaling after an
// inverse: g^p / n from two tables of ~2^(log n / 2) powers); a coset forward transform's shift by g^p is
// taken as its first pass loads its tiles. The reversal swaps tiles of 16 x 16 elements, read and written in
// rows of 16 consecutive elements. A pass runs up to 9 stages on a tile of 1024
// elements in shared memory, three at a time in registers (radix 8), so 2^27 takes 3 passes over device
// memory. Twiddles come from one table of omega_max^i (forward and inverse, i < 2^(log_max - 1)), built on
// the device when a larger size is first asked for; smaller sizes read it with a stride.
//
// Data lives in three resident slots of device memory (a, b, c of the H pipeline): load, transform,
// store; compute_h runs its 6 transforms (C is not evaluated on the coset: H = (Q - C) / (g^n - 1), ntt.cu),
// coset scalings and the pointwise step without host round trips, and without reversals between an input's
// inverse and forward transforms: the forward one runs as decimation in time on the bit-reversed
// coefficients (natural order out), applying 1/n and the coset shift as it loads them; the pointwise product
// is taken as the last inverse transform loads its input, and C subtracted as its result is reversed. The span overloads do load, transform, store for callers with host data (tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "gpud/cuda/stream_priority.hpp"

namespace cuzk::cuda {

enum class ntt_kind { forward, inverse, coset_forward, coset_inverse };

class ntt_context {
public:
    static constexpr unsigned MAX_LOG = 28;
    static constexpr int SLOTS = 3;

    explicit ntt_context(int device = 0, stream_priority priority = stream_priority::normal);
    ~ntt_context();
    ntt_context(const ntt_context&) = delete;
    ntt_context& operator=(const ntt_context&) = delete;

    // Host data: x.size() must be a power of two <= 2^MAX_LOG (std::invalid_argument otherwise).
    void transform(std::span<ff::fr_t> x, ntt_kind kind);
    // Groth16 H as cuzk::ntt::compute_h: the n coefficients of (A B - C) / (X^n - 1) written into |a|;
    // b and c are left unchanged.
    void compute_h(std::vector<ff::fr_t>& a, const std::vector<ff::fr_t>& b, const std::vector<ff::fr_t>& c);

    // Resident slots (0..SLOTS-1), all of size 2^log_n.
    void load(int slot, std::span<const ff::fr_t> x);
    // |x| (at most 2^log_n elements) into a slot of 2^log_n, the rest zero: rows shorter than the domain
    // copied from where they are, without a padded copy on the host.
    void load_padded(int slot, std::span<const ff::fr_t> x, unsigned log_n);
    // As load_padded, but on the context's copy stream, returning at once: the copy starts after the kernels
    // issued so far (which may still use the slot) and runs beside the kernels issued after it (page-locked
    // |x| for that; pageable works, without the overlap). The slot's next user waits for it: this context's
    // kernels on the device, store and device_data on the host. |x| must stay valid and unchanged until then
    // (synchronize() waits for every copy).
    void load_padded_async(int slot, std::span<const ff::fr_t> x, unsigned log_n);
    void store(int slot, std::span<ff::fr_t> x);
    // The device address of |slot| grown to at least 2^log_n elements (contents kept only where it was large
    // enough), for another context's kernels to fill (r1cs_witness::evaluate_rows: rows a, b, c computed on
    // the device). Returns once every kernel and copy of this context has finished; this context's kernels do
    // not wait for the writer's stream, so the writer must be done before the next call that uses the slot.
    ff::fr_t* slot_for_writing(int slot, unsigned log_n);
    // Fills a slot with pseudo-random field elements made on the device (benchmarks).
    void fill_random(int slot, unsigned log_n, uint64_t seed);
    void transform_resident(int slot, unsigned log_n, ntt_kind kind);
    // H of slots 0 (a), 1 (b), 2 (c) into slot 0; slots 1 and 2 are clobbered.
    void compute_h_resident(unsigned log_n);
    // Builds the twiddle tables for sizes up to 2^log_n now, so timings exclude it.
    void prepare(unsigned log_n);
    // Tuning (benchmarks): each strided pass over the data takes 2^log_columns consecutive elements per row
    // (log_columns fewer butterfly stages per pass, longer contiguous reads). 1 is the default (2^27 forward
    // on an H200: 80.7 ms, against 88.7 with 0 and 85-99 with 2..6; docs/benchmarks-history.md).
    void set_pass_columns(unsigned log_columns);
    // Tuning (benchmarks): stages run in registers per shared-memory round trip inside a pass, 1 to 3
    // (radix 2, 4, 8); 3 is the default.
    void set_register_stages(unsigned stages);
    // Tuning and tests: the bit reversal by tiles of rows (the default, from 2^8 elements) or element by element.
    void set_tiled_reversal(bool tiled);
    // Waits for every kernel and copy issued.
    void synchronize();
    // Device address of a slot's elements (same layout as ff::fr_t), for handing a result to another
    // kernel (the H coefficients to the H MSM) without a round trip; null before the slot is used. Waits for
    // a pending load_padded_async into the slot; call synchronize() first when the reader is on another
    // stream and the slot's contents come from this context's kernels.
    const ff::fr_t* device_data(int slot) const;
    // A spare slot beside the three, filled from another host thread while this context's kernels run and then
    // taken in place of a slot (gpud's CUDA backend: row a of the partition waiting for the CUDA lock, copied
    // under the holder's H MSM, so the waiting partition's transforms need not wait for that copy).
    // reserve_spare allocates 2^log_n elements for it (nothing when it holds that many already); release_spare
    // frees it. fill_spare copies |x| (at most 2^log_n elements, the rest zero) into it on the spare's own
    // stream and returns once the copy is done: it touches nothing else of the context, so it may run beside
    // any call but adopt_spare, reserve_spare and release_spare. adopt_spare swaps the spare with |slot| (the
    // slot's buffer becomes the spare): call it when none of this context's kernels or copies may use the slot.
    void reserve_spare(unsigned log_n);
    void release_spare();
    size_t spare_capacity() const;  // elements; 0 without a spare
    void fill_spare(std::span<const ff::fr_t> x, unsigned log_n);
    void adopt_spare(int slot);
    // Device memory held now (slots and tables; they only grow; the spare apart: spare_capacity), and what a
    // context needs for H at 2^log_n.
    size_t device_bytes() const;
    static size_t device_bytes_for(unsigned log_n);

    struct impl;

private:
    std::unique_ptr<impl> impl_;
};

namespace detail {
// Host-computed constants of the domain of size 2^log_n (common/ntt/domain.hpp), for the device code.
// The coset powers g^p, p < 2^log_n, come from two tables (ntt.cu, coset_powers): g^j and g^(j 2^split).
constexpr unsigned coset_split(unsigned log_n) { return (log_n + 1) / 2; }
struct ntt_constants {
    ff::fr_t omega, omega_inv, size_inv, g, g_inv, z_coset_inv;
    ff::fr_t g_step, g_inv_step;  // g^(2^coset_split) and g^-(2^coset_split)
    ff::fr_t z_coset_inv_size_inv;  // z_coset_inv size_inv (compute_h's scale of C)
};
ntt_constants make_ntt_constants(unsigned log_n);
}  // namespace detail

}  // namespace cuzk::cuda
