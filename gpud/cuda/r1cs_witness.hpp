// A partition's witness on the GPU and what the prover's kernels take from it, computed there from the
// circuit's resident matrices (r1cs_device): instead of a, b, c rows and the aux values in full (~17 GB at
// the 32 GiB PoRep shape), the inputs in full and the aux values as a compact vector (~100 MB,
// common/witness/compact_vector.hpp) cross PCIe.
//
//   cuda::r1cs_device m(matrices);                       // once per parameters set
//   cuda::r1cs_witness w;                                // one per worker; buffers reused across partitions
//   w.upload(m, inputs, compact_aux);                    // or use_resident (already in device memory)
//   w.expand(m);                                         // z = [inputs | aux]: L's scalars are aux()
//   w.evaluate_rows(m, ntt.slot_for_writing(0, L), ntt.slot_for_writing(1, L), ntt.slot_for_writing(2, L), L);
//   ntt.compute_h_resident(L);                           // H straight from the rows in the NTT slots
//   w.gather_scalars(m);                                 // A's and B's scalars: a_scalars(), b_scalars()
//
// gpud's CUDA backend (cuda_backend/compact_sequence.cpp) gathers B's scalars first (gather_b_scalars: its
// B_G2 MSM starts on them while the rows are evaluated) and A's last, into NTT slot 1 once H's transforms have
// freed it (gather_a_scalars into the caller's memory), and reserves the buffers before it shares out the rest of
// the device memory (reserve).
//
// The rows and scalars equal the CPU's (groth16::proving_assignment's a, b, c after finish, and
// prepare_partition's A and B scalars). Every call returns with its device work done (the next call, or
// another context's kernels, may read what it wrote). Not thread-safe: one object per worker. upload and
// use_resident overwrite z's head at once (and the later calls the rest of what the previous partition left):
// call them once nothing reads this object's outputs any more.
//
// Reading z: z_source::compact (the default) takes the aux values from the uploaded compact vector, so
// evaluate_rows and gather_scalars need no expand() before them; z_source::expanded reads z in full, after
// expand() (r1cs_rows.cuh has the costs of each). An index into the full values beyond them (a compact vector
// another process wrote wrongly) is caught on the device and thrown as std::invalid_argument by the call that
// met it; nothing is read out of bounds. CUDA failures throw cuda_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "common/ff/bls12_381.hpp"
#include "common/witness/compact_vector.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/stream_priority.hpp"

namespace cuzk::cuda {

enum class z_source { compact, expanded };

class r1cs_witness {
public:
    explicit r1cs_witness(int device = 0, stream_priority priority = stream_priority::normal);
    ~r1cs_witness();
    r1cs_witness(const r1cs_witness&) = delete;
    r1cs_witness& operator=(const r1cs_witness&) = delete;

    // Copies |inputs| (m.num_inputs() values, ONE first) into z's head and |aux|'s arrays (m.num_aux() values;
    // each block array exactly aux.blocks() long) into this object's device memory. |inputs| and |aux| may be
    // pageable or page-locked host memory (page-locked copies at the link's rate); they are the caller's again
    // on return. Arrays back to back in memory, as a ring slot holds them, go in one copy (two where the full
    // values are not 16-byte aligned relative to the inputs: copy_plan.hpp). std::invalid_argument on sizes
    // that do not fit |m|.
    void upload(const r1cs_device& m, std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux);
    // As upload, with |inputs| and |aux|'s arrays already in device memory of this device (copied there by the
    // caller beside other work): the inputs are copied into z's head on the device, the compact arrays read
    // where they are, so they must stay there unchanged until the last call that reads them returns.
    void use_resident(const r1cs_device& m, std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux);

    // Allocates now the device memory the calls take for partitions of |m| laid out as |inputs| and |aux| (z,
    // the uploaded arrays, B's scalars, the long rows' partial sums, and A's scalars unless
    // |a_scalars_elsewhere| or A's density is full), so that a caller can share out the rest of the device
    // around it. Buffers only grow: a later partition with more full values grows the uploaded arrays' buffer, by a
    // sixteenth more than it needs (growing frees the old one, which waits for the whole device).
    void reserve(const r1cs_device& m, std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux,
                 bool a_scalars_elsewhere);

    // z's aux part from the compact vector: z = [inputs | aux] complete (z(), aux()).
    void expand(const r1cs_device& m);

    // a = A z, b = B z, c = C z into |a|, |b|, |c|, each 2^log_m elements of device memory on this device
    // (2^log_m >= m.prover_rows()): the circuit rows, then one row per input (a = z[i], b = c = 0), then zeros,
    // as groth16::proving_assignment::finish leaves them, padded as prepare_partition pads them.
    void evaluate_rows(const r1cs_device& m, ff::fr_t* a, ff::fr_t* b, ff::fr_t* c, unsigned log_m,
                       z_source from = z_source::compact);

    // A's scalars (every input, then the aux values in A's density) and B's (the inputs in B's input density,
    // then the aux values in its aux density), in the order of the parameters' filtered queries. Where A's
    // density holds every aux value A's scalars are z itself (no copy; prepare_partition's a_aux_in_aux), which
    // needs expand() first.
    void gather_scalars(const r1cs_device& m, z_source from = z_source::compact);
    // gather_scalars in two: B's scalars (b_scalars()), and A's (a_scalars()) into |to|, device memory of this
    // device for m.num_inputs() + m.a_aux_count() values (null: this object's buffer; unused where A's scalars
    // are z). |to| must stay unchanged while a_scalars() is read.
    void gather_b_scalars(const r1cs_device& m, z_source from = z_source::compact);
    void gather_a_scalars(const r1cs_device& m, ff::fr_t* to = nullptr, z_source from = z_source::compact);

    // Device addresses, valid until the next upload or use_resident (and the object's end).
    const ff::fr_t* z() const;    // m.z_size() values, after expand()
    const ff::fr_t* aux() const;  // z() + m.num_inputs(): L's scalars
    const ff::fr_t* a_scalars() const;
    std::size_t a_scalar_count() const;
    const ff::fr_t* b_scalars() const;
    std::size_t b_scalar_count() const;

    // Bytes uploaded by the last upload (inputs and the compact arrays), and the copies it took (0 after
    // use_resident).
    std::size_t uploaded_bytes() const;
    std::size_t upload_copies() const;
    // Device memory held now (z, the compact arrays, the gathered scalars, scratch); it only grows.
    std::size_t device_bytes() const;

    struct impl;

private:
    std::unique_ptr<impl> impl_;
};

}  // namespace cuzk::cuda
