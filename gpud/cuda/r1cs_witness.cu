// r1cs_witness.hpp: uploads, and the launches of r1cs_kernels.cuh over r1cs_device's matrices.
#include "gpud/cuda/r1cs_witness.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "gpud/cuda/copy_plan.hpp"
#include "gpud/cuda/r1cs_device_layout.cuh"
#include "gpud/cuda/r1cs_kernels.cuh"

namespace cuzk::cuda {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("GPU witness: " + why); }

void check_sizes(const r1cs_device& m, std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux) {
    if (inputs.size() != m.num_inputs())
        refuse(std::to_string(inputs.size()) + " inputs; the circuit has " + std::to_string(m.num_inputs()) +
               " (ONE included)");
    if (aux.size != m.num_aux())
        refuse(std::to_string(aux.size) + " aux values; the circuit has " + std::to_string(m.num_aux()));
    const size_t blocks = aux.blocks();
    if (aux.full_mask.size() != blocks || aux.bit_value.size() != blocks || aux.full_before.size() != blocks)
        refuse("compact aux arrays of " + std::to_string(aux.full_mask.size()) + ", " +
               std::to_string(aux.bit_value.size()) + " and " + std::to_string(aux.full_before.size()) +
               " blocks; " + std::to_string(aux.size) + " values take " + std::to_string(blocks));
}

// Room for the uploaded arrays of |bytes|, and a sixteenth more when it must grow: the next partition of the same
// circuit differs by a few full values (PoRep by kilobytes, a WinningPoSt by its sector's data), and growing frees
// the old buffer, and cudaFree waits for everything running on the device, another lane's kernels too: a
// WinningPoSt on the side lane (gpud/cuda_backend/side_lane.cpp) would wait for the lock holder's partition.
void reserve_staged(device_buffer<std::byte>& staged, size_t bytes) {
    bytes = std::max<size_t>(bytes, 1);
    if (bytes > staged.capacity()) staged.reserve(bytes + bytes / 16);
}

}  // namespace

struct r1cs_witness::impl {
    int device;
    stream_priority priority;
    cudaStream_t stream = nullptr;
    device_buffer<fr_t> z;
    device_buffer<std::byte> staged;  // upload's copies of the inputs and the compact arrays (copy_plan.hpp)
    device_buffer<uint32_t> error;    // r1cs_rows::FULL_INDEX_BEYOND ...: what a kernel found wrong
    device_buffer<fr_t> a_scalars, b_scalars, partial;
    r1cs_rows::z_compact compact;  // the uploaded (or resident) witness; inputs at z's head
    const r1cs_device::impl* matrices = nullptr;  // the matrices it was uploaded for
    bool expanded = false;
    const fr_t* a_ptr = nullptr;
    size_t a_count = 0, b_count = 0, uploaded = 0, copies = 0;

    impl(int dev, stream_priority p) : device(dev), priority(p) {
        CUDA_OK(cudaSetDevice(device));
        stream = detail::new_stream(priority);
        error.reserve(1);
        CUDA_OK(cudaMemsetAsync(error.get(), 0, sizeof(uint32_t), stream));
        CUDA_OK(cudaStreamSynchronize(stream));
    }
    ~impl() {
        if (stream) {
            cudaStreamSynchronize(stream);  // no kernel may outlive the buffers
            cudaStreamDestroy(stream);
        }
    }

    // Waits for the work issued; throws what the kernels found wrong (and clears it for the next call).
    void finish(const char* what) {
        uint32_t found = 0;
        CUDA_OK(cudaMemcpyAsync(&found, error.get(), sizeof found, cudaMemcpyDeviceToHost, stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        if (found == 0) return;
        CUDA_OK(cudaMemsetAsync(error.get(), 0, sizeof(uint32_t), stream));
        CUDA_OK(cudaStreamSynchronize(stream));
        refuse(std::string(what) + ": the compact aux vector names a full value beyond its " +
               std::to_string(compact.n_full) + " (full_before and full_mask disagree with full)");
    }

    const r1cs_device::impl& bound(const r1cs_device& m, const char* what) const {
        if (matrices == nullptr) throw std::logic_error(std::string("GPU witness: ") + what + " before upload");
        if (matrices != &m.layout())
            throw std::logic_error(std::string("GPU witness: ") + what + " with other matrices than the upload's");
        return *matrices;
    }

    // Calls f with the reader of |from|.
    template <class F>
    void with_reader(z_source from, const char* what, F&& f) {
        if (from == z_source::compact) {
            f(compact);
            return;
        }
        if (!expanded) throw std::logic_error(std::string("GPU witness: ") + what + " from z before expand()");
        f(r1cs_rows::z_expanded{z.get()});
    }

    // to[place] = z.at(first + i) for the elements of |d| (gather_kernel), on this object's stream.
    template <class Z>
    void gather(const Z& zr, uint64_t first, const r1cs_device::impl::density& d, fr_t* to) {
        if (d.size == 0) return;
        r1cs_rows::gather_kernel<Z><<<grid_for(d.size, r1cs_rows::ROW_THREADS), r1cs_rows::ROW_THREADS, 0, stream>>>(
            zr, first, d.view(), to);
        CUDA_LAUNCH_OK("gather_kernel");
    }

    void start(const r1cs_device& m) {
        CUDA_OK(cudaSetDevice(device));
        matrices = nullptr;  // until the copies are issued
        expanded = false;
        a_ptr = nullptr;
        a_count = b_count = 0;
        z.reserve(std::max<uint64_t>(m.z_size(), 1));
    }
};

r1cs_witness::r1cs_witness(int device, stream_priority priority)
    : impl_(std::make_unique<impl>(device, priority)) {}
r1cs_witness::~r1cs_witness() = default;

namespace {

// The inputs and the compact arrays in the order a ring slot holds them, with the alignment each needs on the
// device (fr values are read as 16-byte words, words.cuh).
std::array<host_array, 5> witness_arrays(std::span<const ff::fr_t> inputs, const witness::compact_vector_view& aux) {
    return {host_array{inputs.data(), inputs.size_bytes(), 16},
            host_array{aux.full_mask.data(), aux.full_mask.size_bytes(), 8},
            host_array{aux.bit_value.data(), aux.bit_value.size_bytes(), 8},
            host_array{aux.full_before.data(), aux.full_before.size_bytes(), 4},
            host_array{aux.full.data(), aux.full.size_bytes(), 16}};
}

}  // namespace

void r1cs_witness::upload(const r1cs_device& m, std::span<const ff::fr_t> inputs,
                          const witness::compact_vector_view& aux) {
    check_sizes(m, inputs, aux);
    impl& s = *impl_;
    const auto arrays = witness_arrays(inputs, aux);
    const copy_plan plan = plan_copies(arrays);
    CUDA_OK(cudaSetDevice(s.device));
    s.matrices = nullptr;  // until the copies are done: a failed upload leaves nothing to read
    reserve_staged(s.staged, plan.device_bytes);
    for (const auto& c : plan.copies)
        CUDA_OK(cudaMemcpyAsync(s.staged.get() + c.device_offset, c.host, c.bytes, cudaMemcpyHostToDevice, s.stream));
    CUDA_OK(cudaStreamSynchronize(s.stream));  // the sources are the caller's again
    auto on_device = [&](int i, const auto* host) {
        using T = std::remove_cv_t<std::remove_pointer_t<decltype(host)>>;
        return reinterpret_cast<const T*>(s.staged.get() + plan.offset[i]);
    };
    const witness::compact_vector_view staged{
        aux.size,
        {on_device(1, aux.full_mask.data()), aux.full_mask.size()},
        {on_device(2, aux.bit_value.data()), aux.bit_value.size()},
        {on_device(3, aux.full_before.data()), aux.full_before.size()},
        {on_device(4, aux.full.data()), aux.full.size()}};
    use_resident(m, {on_device(0, inputs.data()), inputs.size()}, staged);
    s.uploaded = 0;
    for (const auto& a : arrays) s.uploaded += a.bytes;
    s.copies = plan.copies.size();
}

void r1cs_witness::use_resident(const r1cs_device& m, std::span<const ff::fr_t> inputs,
                                const witness::compact_vector_view& aux) {
    check_sizes(m, inputs, aux);
    impl& s = *impl_;
    s.start(m);
    if (!inputs.empty())
        CUDA_OK(cudaMemcpyAsync(s.z.get(), inputs.data(), inputs.size_bytes(), cudaMemcpyDeviceToDevice, s.stream));
    CUDA_OK(cudaStreamSynchronize(s.stream));
    s.compact = {s.z.get(),
                 m.num_inputs(),
                 aux.full_mask.data(),
                 aux.bit_value.data(),
                 aux.full_before.data(),
                 reinterpret_cast<const fr_t*>(aux.full.data()),
                 aux.full.size(),
                 s.error.get()};
    s.uploaded = 0;
    s.copies = 0;
    s.matrices = &m.layout();
}

void r1cs_witness::reserve(const r1cs_device& m, std::span<const ff::fr_t> inputs,
                           const witness::compact_vector_view& aux, bool a_scalars_elsewhere) {
    impl& s = *impl_;
    const r1cs_device::impl& L = m.layout();
    CUDA_OK(cudaSetDevice(s.device));
    s.z.reserve(std::max<uint64_t>(m.z_size(), 1));
    reserve_staged(s.staged, plan_copies(witness_arrays(inputs, aux)).device_bytes);
    s.b_scalars.reserve(std::max<uint64_t>(L.b_input.count + L.b_aux.count, 1));
    if (!a_scalars_elsewhere && L.a_aux.count != L.num_aux) s.a_scalars.reserve(L.num_inputs + L.a_aux.count);
    s.partial.reserve(std::max<uint64_t>(L.max_pieces(), 1));
}

void r1cs_witness::expand(const r1cs_device& m) {
    impl& s = *impl_;
    const r1cs_device::impl& L = s.bound(m, "expand");
    CUDA_OK(cudaSetDevice(s.device));
    if (L.num_aux > 0) {
        r1cs_rows::expand_kernel<<<grid_for(L.num_aux, r1cs_rows::ROW_THREADS), r1cs_rows::ROW_THREADS, 0, s.stream>>>(
            s.compact, L.num_aux, s.z.get() + L.num_inputs);
        CUDA_LAUNCH_OK("expand_kernel");
    }
    s.finish("expand");
    s.expanded = true;
}

void r1cs_witness::evaluate_rows(const r1cs_device& m, ff::fr_t* a, ff::fr_t* b, ff::fr_t* c, unsigned log_m,
                                 z_source from) {
    impl& s = *impl_;
    const r1cs_device::impl& L = s.bound(m, "evaluate_rows");
    if (log_m >= 40 || (uint64_t(1) << log_m) < m.prover_rows())
        refuse("rows of 2^" + std::to_string(log_m) + " for " + std::to_string(m.prover_rows()) +
               " prover rows (circuit rows and one per input)");
    CUDA_OK(cudaSetDevice(s.device));
    const uint64_t n = uint64_t(1) << log_m;
    fr_t* out[3] = {reinterpret_cast<fr_t*>(a), reinterpret_cast<fr_t*>(b), reinterpret_cast<fr_t*>(c)};
    s.partial.reserve(std::max<uint64_t>(L.max_pieces(), 1));
    const fr_t* coefficients = L.coefficients.get();
    s.with_reader(from, "evaluate_rows", [&](const auto& zr) {
        using Z = std::decay_t<decltype(zr)>;
        for (int k = 0; k < 3; ++k) {
            const auto& mt = L.mat[k];
            if (mt.rows == 0) continue;
            r1cs_rows::short_rows_kernel<Z><<<grid_for(mt.rows, r1cs_rows::ROW_THREADS), r1cs_rows::ROW_THREADS, 0, s.stream>>>(
                mt.view(), zr, coefficients, out[k]);
            CUDA_LAUNCH_OK("short_rows_kernel");
            if (mt.n_pieces == 0) continue;
            constexpr unsigned threads = r1cs_rows::PIECE_WARPS * 32;
            r1cs_rows::pieces_kernel<Z><<<grid_for(mt.n_pieces * 32, threads), threads, 0, s.stream>>>(
                mt.view(), zr, coefficients, mt.pieces.get(), mt.n_pieces, s.partial.get());
            CUDA_LAUNCH_OK("pieces_kernel");
            r1cs_rows::long_rows_kernel<<<grid_for(mt.n_long, r1cs_rows::ROW_THREADS), r1cs_rows::ROW_THREADS, 0, s.stream>>>(
                mt.long_rows.get(), mt.n_long, s.partial.get(), out[k]);
            CUDA_LAUNCH_OK("long_rows_kernel");
        }
    });
    // The input rows: a = z[i] (the inputs at z's head), b = c = 0; then zeros to 2^log_m (zero bytes are the
    // field's zero in Montgomery form).
    const uint64_t rows = L.circuit_rows, prover = rows + L.num_inputs;
    CUDA_OK(cudaMemcpyAsync(out[0] + rows, s.z.get(), L.num_inputs * sizeof(fr_t), cudaMemcpyDeviceToDevice,
                            s.stream));
    if (n > prover) CUDA_OK(cudaMemsetAsync(out[0] + prover, 0, (n - prover) * sizeof(fr_t), s.stream));
    for (int k = 1; k < 3; ++k) CUDA_OK(cudaMemsetAsync(out[k] + rows, 0, (n - rows) * sizeof(fr_t), s.stream));
    s.finish("evaluate_rows");
}

void r1cs_witness::gather_b_scalars(const r1cs_device& m, z_source from) {
    impl& s = *impl_;
    const r1cs_device::impl& L = s.bound(m, "gather_b_scalars");
    CUDA_OK(cudaSetDevice(s.device));
    s.b_count = 0;
    const uint64_t count = L.b_input.count + L.b_aux.count;
    s.b_scalars.reserve(std::max<uint64_t>(count, 1));
    s.with_reader(from, "gather_b_scalars", [&](const auto& zr) {
        s.gather(zr, 0, L.b_input, s.b_scalars.get());
        s.gather(zr, L.num_inputs, L.b_aux, s.b_scalars.get() + L.b_input.count);
    });
    s.finish("gather_b_scalars");
    s.b_count = count;
}

void r1cs_witness::gather_a_scalars(const r1cs_device& m, ff::fr_t* to, z_source from) {
    impl& s = *impl_;
    const r1cs_device::impl& L = s.bound(m, "gather_a_scalars");
    CUDA_OK(cudaSetDevice(s.device));
    const uint64_t n_in = L.num_inputs;
    const bool a_dense = L.a_aux.count == L.num_aux;
    s.a_ptr = nullptr;
    s.a_count = 0;
    if (a_dense) {
        if (L.num_aux > 0 && !s.expanded)
            throw std::logic_error(
                "GPU witness: A's density holds every aux value, so its scalars are z: expand() first");
        s.a_ptr = s.z.get();
        s.a_count = n_in + L.a_aux.count;
        return;
    }
    fr_t* out = reinterpret_cast<fr_t*>(to);
    if (!out) {
        s.a_scalars.reserve(n_in + L.a_aux.count);
        out = s.a_scalars.get();
    }
    s.with_reader(from, "gather_a_scalars", [&](const auto& zr) {
        CUDA_OK(cudaMemcpyAsync(out, s.z.get(), n_in * sizeof(fr_t), cudaMemcpyDeviceToDevice, s.stream));
        s.gather(zr, n_in, L.a_aux, out + n_in);
    });
    s.finish("gather_a_scalars");
    s.a_ptr = out;
    s.a_count = n_in + L.a_aux.count;
}

void r1cs_witness::gather_scalars(const r1cs_device& m, z_source from) {
    gather_b_scalars(m, from);
    gather_a_scalars(m, nullptr, from);
}

const ff::fr_t* r1cs_witness::z() const { return reinterpret_cast<const ff::fr_t*>(impl_->z.get()); }
const ff::fr_t* r1cs_witness::aux() const {
    return impl_->matrices ? z() + impl_->matrices->num_inputs : nullptr;
}
const ff::fr_t* r1cs_witness::a_scalars() const { return reinterpret_cast<const ff::fr_t*>(impl_->a_ptr); }
std::size_t r1cs_witness::a_scalar_count() const { return impl_->a_count; }
const ff::fr_t* r1cs_witness::b_scalars() const {
    return impl_->b_count ? reinterpret_cast<const ff::fr_t*>(impl_->b_scalars.get()) : nullptr;
}
std::size_t r1cs_witness::b_scalar_count() const { return impl_->b_count; }
std::size_t r1cs_witness::uploaded_bytes() const { return impl_->uploaded; }
std::size_t r1cs_witness::upload_copies() const { return impl_->copies; }
std::size_t r1cs_witness::device_bytes() const {
    const impl& s = *impl_;
    return s.z.bytes() + s.staged.bytes() + s.error.bytes() + s.a_scalars.bytes() + s.b_scalars.bytes() +
           s.partial.bytes();
}

}  // namespace cuzk::cuda
