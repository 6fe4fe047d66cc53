// r1cs_device.hpp: the matrices' upload and checks.
#include <algorithm>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "gpud/cuda/r1cs_device_layout.cuh"

namespace cuzk::cuda {

namespace {

constexpr const char* MATRIX_NAME[3] = {"A", "B", "C"};
constexpr size_t STAGE_ROWS = size_t(1) << 22;  // row offsets converted to 32 bits per copy (16 MiB)

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument("R1CS matrices on the GPU: " + why); }

// The largest column and coefficient index of |n| terms, into limits[0] and limits[1] (zero-initialised).
__global__ void term_limits_kernel(const uint32_t* column, const uint16_t* coeff, uint64_t n, uint32_t* limits) {
    uint32_t col = 0, k = 0;
    for (uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < n; t += uint64_t(gridDim.x) * blockDim.x) {
        col = max(col, column[t]);
        k = max(k, uint32_t(coeff[t]));
    }
    col = __reduce_max_sync(0xffffffffu, col);
    k = __reduce_max_sync(0xffffffffu, k);
    if (threadIdx.x % 32 == 0) {
        atomicMax(limits, col);
        atomicMax(limits + 1, k);
    }
}

// A host array into a device buffer of its size, on |stream| and waited for (|src| may be pageable).
template <class T>
void upload(device_buffer<T>& dst, std::span<const T> src, cudaStream_t stream) {
    dst.reserve(src.size());
    if (src.empty()) return;
    CUDA_OK(cudaMemcpyAsync(dst.get(), src.data(), src.size_bytes(), cudaMemcpyHostToDevice, stream));
    CUDA_OK(cudaStreamSynchronize(stream));
}

void check_density(const std::vector<uint64_t>& words, uint64_t bits, const char* what) {
    const uint64_t need = (bits + 63) / 64;
    if (words.size() != need)
        refuse(std::string("density ") + what + " has " + std::to_string(words.size()) + " words, " +
               std::to_string(bits) + " variables need " + std::to_string(need));
    if (bits % 64 != 0 && (words.back() >> (bits % 64)) != 0)
        refuse(std::string("density ") + what + " has bits set beyond its " + std::to_string(bits) + " variables");
}

// Owns the upload's stream.
struct upload_stream {
    cudaStream_t s = nullptr;
    upload_stream() { CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
    ~upload_stream() {
        if (s) {
            cudaStreamSynchronize(s);
            cudaStreamDestroy(s);
        }
    }
};

void upload_matrix(r1cs_device::impl::matrix& d, const r1cs::sparse_rows& m, uint64_t rows, const char* name,
                   cudaStream_t stream) {
    const auto& rs = m.row_start;
    const uint64_t terms = m.column.size();
    auto where = [&] { return std::string("matrix ") + name + ": "; };
    if (rs.size() != rows + 1)
        refuse(where() + std::to_string(rs.size()) + " row offsets for " + std::to_string(rows) + " circuit rows");
    if (m.coeff.size() != terms)
        refuse(where() + std::to_string(terms) + " columns but " + std::to_string(m.coeff.size()) + " coefficients");
    if (rs.front() != 0 || rs.back() != terms)
        refuse(where() + "row offsets run from " + std::to_string(rs.front()) + " to " + std::to_string(rs.back()) +
               ", not from 0 to its " + std::to_string(terms) + " terms");
    if (terms > UINT32_MAX)
        refuse(where() + std::to_string(terms) + " terms; the device layout holds fewer than 2^32 per matrix");
    if (rows >= UINT32_MAX) refuse(where() + std::to_string(rows) + " rows; the device layout holds fewer than 2^32");
    d.rows = rows;
    d.terms = terms;
    d.row_start.reserve(rows + 1);
    std::vector<uint32_t> stage(std::min<size_t>(rows + 1, STAGE_ROWS));
    for (uint64_t lo = 0; lo <= rows; lo += stage.size()) {
        const size_t n = size_t(std::min<uint64_t>(stage.size(), rows + 1 - lo));
        for (size_t i = 0; i < n; ++i) {
            const uint64_t r = lo + i;
            if (r > 0 && rs[r] < rs[r - 1])
                refuse(where() + "row " + std::to_string(r) + " starts at term " + std::to_string(rs[r]) +
                       ", before the previous row's start " + std::to_string(rs[r - 1]));
            stage[i] = uint32_t(rs[r]);
        }
        CUDA_OK(cudaMemcpyAsync(d.row_start.get() + lo, stage.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                stream));
        CUDA_OK(cudaStreamSynchronize(stream));  // |stage| is refilled next
    }
    upload(d.column, std::span<const uint32_t>(m.column), stream);
    upload(d.coeff, std::span<const uint16_t>(m.coeff), stream);
    r1cs_plan::long_rows plan;
    r1cs_plan::add_long_rows(plan, 0, std::span<const uint64_t>(rs));
    d.n_pieces = plan.pieces.size();
    d.n_long = plan.rows.size();
    d.long_terms = plan.terms;
    upload(d.pieces, std::span<const r1cs_plan::piece>(plan.pieces), stream);
    upload(d.long_rows, std::span<const r1cs_plan::long_row>(plan.rows), stream);
}

void upload_density(r1cs_device::impl::density& d, const std::vector<uint64_t>& words, uint64_t bits,
                    const char* what, cudaStream_t stream) {
    check_density(words, bits, what);
    d.size = bits;
    const std::vector<uint32_t> prefix = r1cs_plan::density_prefix(words, d.count);
    upload(d.words, std::span<const uint64_t>(words), stream);
    upload(d.prefix, std::span<const uint32_t>(prefix), stream);
}

}  // namespace

r1cs_device::impl::impl(const r1cs::r1cs_matrices& m, int dev)
    : device(dev), circuit_rows(m.circuit_rows), num_inputs(m.num_inputs), num_aux(m.num_aux) {
    if (m.num_inputs == 0) refuse("no inputs (input 0 is ONE)");
    if (m.z_size() > UINT32_MAX) refuse(std::to_string(m.z_size()) + " variables; columns are 32-bit");
    if (m.coefficients.size() < 2 || m.coefficients.size() > 65536)
        refuse(std::to_string(m.coefficients.size()) + " coefficients; the table holds 2 to 65536");
    // The kernels add and subtract for indices 0 and 1 without reading the table (r1cs_rows.cuh, add_scaled).
    if (!(fr_t(m.coefficients[0]) == fr_t::one()) || !(fr_t(m.coefficients[1]) == -fr_t::one()))
        refuse("coefficients 0 and 1 are not 1 and -1");
    CUDA_OK(cudaSetDevice(device));
    upload_stream stream;
    const r1cs::sparse_rows* src[3] = {&m.a, &m.b, &m.c};
    device_buffer<uint32_t> limits;
    limits.reserve(2);
    for (int k = 0; k < 3; ++k) {
        upload_matrix(mat[k], *src[k], m.circuit_rows, MATRIX_NAME[k], stream.s);
        if (mat[k].terms == 0) continue;
        CUDA_OK(cudaMemsetAsync(limits.get(), 0, 2 * sizeof(uint32_t), stream.s));
        term_limits_kernel<<<std::min<unsigned>(grid_for(mat[k].terms, 256), 4096), 256, 0, stream.s>>>(
            mat[k].column.get(), mat[k].coeff.get(), mat[k].terms, limits.get());
        CUDA_LAUNCH_OK("term_limits_kernel");
        uint32_t lim[2] = {};
        CUDA_OK(cudaMemcpyAsync(lim, limits.get(), sizeof lim, cudaMemcpyDeviceToHost, stream.s));
        CUDA_OK(cudaStreamSynchronize(stream.s));
        if (lim[0] >= m.z_size())
            refuse(std::string("matrix ") + MATRIX_NAME[k] + " names variable " + std::to_string(lim[0]) + " of " +
                   std::to_string(m.z_size()));
        if (lim[1] >= m.coefficients.size())
            refuse(std::string("matrix ") + MATRIX_NAME[k] + " names coefficient " + std::to_string(lim[1]) +
                   " of " + std::to_string(m.coefficients.size()));
    }
    n_coefficients = m.coefficients.size();
    static_assert(sizeof(fr_t) == sizeof(ff::fr_t));  // the same bits on both sides (field.cuh)
    upload(coefficients,
           std::span<const fr_t>(reinterpret_cast<const fr_t*>(m.coefficients.data()), m.coefficients.size()),
           stream.s);
    upload_density(a_aux, m.a_aux_density, m.num_aux, "A aux", stream.s);
    upload_density(b_input, m.b_input_density, m.num_inputs, "B input", stream.s);
    upload_density(b_aux, m.b_aux_density, m.num_aux, "B aux", stream.s);
}

r1cs_device::r1cs_device(const r1cs::r1cs_matrices& m, int device) : impl_(std::make_unique<impl>(m, device)) {}
r1cs_device::~r1cs_device() = default;

int r1cs_device::device() const { return impl_->device; }
std::uint64_t r1cs_device::circuit_rows() const { return impl_->circuit_rows; }
std::uint64_t r1cs_device::num_inputs() const { return impl_->num_inputs; }
std::uint64_t r1cs_device::num_aux() const { return impl_->num_aux; }
std::uint64_t r1cs_device::non_zeros() const {
    return impl_->mat[0].terms + impl_->mat[1].terms + impl_->mat[2].terms;
}
std::uint64_t r1cs_device::long_rows() const {
    return impl_->mat[0].n_long + impl_->mat[1].n_long + impl_->mat[2].n_long;
}
std::uint64_t r1cs_device::long_row_terms() const {
    return impl_->mat[0].long_terms + impl_->mat[1].long_terms + impl_->mat[2].long_terms;
}
std::uint64_t r1cs_device::a_aux_count() const { return impl_->a_aux.count; }
std::uint64_t r1cs_device::b_input_count() const { return impl_->b_input.count; }
std::uint64_t r1cs_device::b_aux_count() const { return impl_->b_aux.count; }
std::size_t r1cs_device::device_bytes() const {
    const impl& m = *impl_;
    return m.mat[0].bytes() + m.mat[1].bytes() + m.mat[2].bytes() + m.coefficients.bytes() + m.a_aux.bytes() +
           m.b_input.bytes() + m.b_aux.bytes();
}

}  // namespace cuzk::cuda
