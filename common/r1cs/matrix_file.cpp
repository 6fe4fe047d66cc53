#include "common/r1cs/matrix_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <system_error>
#include <type_traits>

#include "common/cs/linear_combination.hpp"
#include "common/util/errors.hpp"
#include "common/util/file_writer.hpp"

namespace cuzk::r1cs {

namespace {

static_assert(std::endian::native == std::endian::little, "the matrix file is read and written in host order");
static_assert(sizeof(ff::fr_t) == 32);

struct file_header {
    char magic[8];
    std::uint32_t version;
    std::uint32_t label_bytes;
    std::uint64_t circuit_rows, num_inputs, num_aux, coefficients, a_terms, b_terms, c_terms;
    std::uint64_t payload_digest;
    std::uint64_t header_digest;  // of the bytes before it and the label
};
static_assert(sizeof(file_header) == MATRIX_FILE_HEADER_BYTES && std::is_trivially_copyable_v<file_header>);

constexpr std::uint64_t pad8(std::uint64_t n) { return (n + 7) & ~std::uint64_t(7); }
constexpr std::uint64_t words(std::uint64_t bits) { return (bits + 63) / 64; }

// --- digest ----------------------------------------------------------------------------------------------
// 64 bits against corruption: four multiply-rotate lanes over 32-byte groups (no dependency between
// lanes, several GB/s a core), arrays cut into 1 MiB blocks digested in parallel, then the block digests
// digested in order, so the value does not depend on the thread count.
constexpr std::uint64_t P1 = 0x9e3779b97f4a7c15ULL, P2 = 0xc2b2ae3d27d4eb4fULL, P3 = 0x165667b19e3779f9ULL;
constexpr std::size_t DIGEST_BLOCK = std::size_t(1) << 20;

std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= P2;
    x ^= x >> 29;
    x *= P3;
    x ^= x >> 32;
    return x;
}

std::uint64_t digest_block(const std::byte* p, std::size_t n, std::uint64_t seed) {
    std::uint64_t s[4] = {seed + P1, seed + P2, seed ^ P3, seed - P1};
    auto round = [&s](const std::byte* q) {
        for (int j = 0; j < 4; ++j) {
            std::uint64_t w;
            std::memcpy(&w, q + 8 * j, 8);
            s[j] = std::rotl(s[j] + w * P2, 31) * P1;
        }
    };
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) round(p + i);
    if (i < n) {
        std::byte tail[32] = {};
        std::memcpy(tail, p + i, n - i);
        round(tail);
    }
    std::uint64_t h = mix(n ^ seed);
    for (std::uint64_t lane : s) h = mix(std::rotl(h, 17) ^ lane);
    return h;
}

std::uint64_t digest_array(std::span<const std::byte> b) {
    const std::size_t blocks = (b.size() + DIGEST_BLOCK - 1) / DIGEST_BLOCK;
    std::vector<std::uint64_t> d(blocks);
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t k) {
        const std::size_t off = k * DIGEST_BLOCK;
        d[k] = digest_block(b.data() + off, std::min(DIGEST_BLOCK, b.size() - off), k);
    });
    return digest_block(reinterpret_cast<const std::byte*>(d.data()), d.size() * 8, b.size());
}

std::uint64_t header_digest(const file_header& h, std::string_view label) {
    const std::uint64_t d = digest_block(reinterpret_cast<const std::byte*>(&h), offsetof(file_header, header_digest),
                                         MATRIX_FILE_VERSION);
    return mix(std::rotl(d, 17) ^ digest_block(reinterpret_cast<const std::byte*>(label.data()), label.size(), d));
}

// --- layout ----------------------------------------------------------------------------------------------
constexpr std::size_t SECTIONS = 13;
constexpr std::array<const char*, SECTIONS> SECTION_NAMES = {
    "coefficients", "A row starts",    "A columns", "A coefficient indices", "B row starts",
    "B columns",    "B coefficient indices", "C row starts", "C columns", "C coefficient indices",
    "A aux density", "B input density", "B aux density"};

// The arrays in file order, as bytes (writable when |m| is).
template <class M>
std::array<std::conditional_t<std::is_const_v<M>, std::span<const std::byte>, std::span<std::byte>>, SECTIONS>
sections_of(M& m) {
    auto bytes = [](auto& v) {
        if constexpr (std::is_const_v<M>)
            return std::as_bytes(std::span(v));
        else
            return std::as_writable_bytes(std::span(v));
    };
    return {bytes(m.coefficients), bytes(m.a.row_start), bytes(m.a.column), bytes(m.a.coeff),
            bytes(m.b.row_start),  bytes(m.b.column),    bytes(m.b.coeff),  bytes(m.c.row_start),
            bytes(m.c.column),     bytes(m.c.coeff),     bytes(m.a_aux_density), bytes(m.b_input_density),
            bytes(m.b_aux_density)};
}

// Section lengths in bytes (unpadded) for the counts; unsigned __int128 so that no header overflows them.
std::array<unsigned __int128, SECTIONS> section_bytes(const matrix_sizes& s) {
    using u128 = unsigned __int128;
    const u128 rows = u128(s.circuit_rows) + 1;
    return {u128(s.coefficients) * 32, rows * 8, u128(s.a_terms) * 4, u128(s.a_terms) * 2,
            rows * 8,                   u128(s.b_terms) * 4, u128(s.b_terms) * 2, rows * 8,
            u128(s.c_terms) * 4,        u128(s.c_terms) * 2, u128(words(s.num_aux)) * 8,
            u128(words(s.num_inputs)) * 8, u128(words(s.num_aux)) * 8};
}

unsigned __int128 file_bytes(const matrix_sizes& s, std::size_t label_bytes) {
    unsigned __int128 n = MATRIX_FILE_HEADER_BYTES + pad8(label_bytes);
    for (unsigned __int128 b : section_bytes(s)) n += (b + 7) & ~(unsigned __int128)7;
    return n;
}

matrix_sizes sizes_of(const file_header& h) {
    return {h.circuit_rows, h.num_inputs, h.num_aux, h.a_terms, h.b_terms, h.c_terms, h.coefficients};
}

std::uint64_t payload_digest(std::span<const std::span<const std::byte>> sections) {
    std::uint64_t h = P3;
    for (auto s : sections) h = mix(std::rotl(h, 17) ^ digest_array(s));
    return h;
}

// --- writing ---------------------------------------------------------------------------------------------
// Zeros from |n| bytes up to the next multiple of 8: every section starts 8-byte aligned.
void write_padding(util::file_writer& w, std::size_t n) {
    static constexpr char zeros[8] = {};
    w.write(zeros, pad8(n) - n);
}

void check_consistent(const r1cs_matrices& m, std::string_view circuit) {
    auto bad = [](const std::string& what) { throw std::invalid_argument("write_matrix_file: " + what); };
    if (circuit.size() > MATRIX_FILE_MAX_LABEL)
        bad(fmt::format("the circuit's name is {} bytes, more than {}", circuit.size(), MATRIX_FILE_MAX_LABEL));
    if (m.coefficients.size() < 2 || m.coefficients.size() > 65536)
        bad(fmt::format("{} coefficients, not between 2 and 65536", m.coefficients.size()));
    for (const sparse_rows* s : {&m.a, &m.b, &m.c})
        if (s->row_start.size() != m.circuit_rows + 1 || s->coeff.size() != s->column.size() ||
            s->row_start.back() != s->column.size())
            bad(fmt::format("a matrix's {} row starts, {} columns and {} coefficient indices do not make {} rows",
                            s->row_start.size(), s->column.size(), s->coeff.size(), m.circuit_rows));
    if (m.a_aux_density.size() != words(m.num_aux) || m.b_aux_density.size() != words(m.num_aux) ||
        m.b_input_density.size() != words(m.num_inputs))
        bad("the density bitmaps do not have the variables' sizes");
}

// --- reading ---------------------------------------------------------------------------------------------
class file_reader {
public:
    explicit file_reader(const std::filesystem::path& path) : path_(path), fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {
        if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "cannot open " + path.string());
        struct stat st {};
        if (::fstat(fd_, &st) != 0) {
            const int e = errno;
            ::close(fd_);
            throw std::system_error(e, std::generic_category(), "cannot stat " + path.string());
        }
        size_ = std::uint64_t(st.st_size);
    }
    ~file_reader() { ::close(fd_); }
    file_reader(const file_reader&) = delete;
    file_reader& operator=(const file_reader&) = delete;

    std::uint64_t size() const { return size_; }
    std::uint64_t offset() const { return offset_; }

    void read(void* data, std::size_t n) {
        auto* p = static_cast<char*>(data);
        while (n > 0) {
            const ssize_t got = ::read(fd_, p, std::min<std::size_t>(n, std::size_t(1) << 30));
            if (got < 0) {
                if (errno == EINTR) continue;
                throw std::system_error(errno, std::generic_category(), "cannot read " + path_.string());
            }
            if (got == 0) fail(fmt::format("ends at byte {} while {} more were expected (did it shrink while read?)",
                                           offset_, n));
            p += got;
            n -= std::size_t(got);
            offset_ += std::uint64_t(got);
        }
    }
    // The zero bytes that bring |n| up to a multiple of 8.
    void skip_padding(std::size_t n, const char* after) {
        char pad[8] = {};
        const std::size_t k = pad8(n) - n;
        read(pad, k);
        for (std::size_t i = 0; i < k; ++i)
            if (pad[i] != 0) fail(fmt::format("non-zero padding after the {} (byte {})", after, offset_ - k + i));
    }

    [[noreturn]] void fail(const std::string& what) const {
        throw input_error(fmt::format("R1CS matrix file {}: {}", path_.string(), what));
    }

private:
    std::filesystem::path path_;
    int fd_;
    std::uint64_t size_ = 0;
    std::uint64_t offset_ = 0;
};

// The first i in [0, n) for which bad(i), if any; in parallel.
template <class Bad>
std::optional<std::size_t> first_violation(std::size_t n, Bad bad) {
    const std::size_t none = std::numeric_limits<std::size_t>::max();
    const std::size_t first = tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, n, std::size_t(1) << 16), none,
        [&](const tbb::blocked_range<std::size_t>& r, std::size_t found) {
            for (std::size_t i = r.begin(); i != r.end() && i < found; ++i)
                if (bad(i)) return i;
            return found;
        },
        [](std::size_t x, std::size_t y) { return std::min(x, y); });
    if (first == none) return std::nullopt;
    return first;
}

// What a kernel relies on: each row's terms inside the arrays, every column in z and every coefficient
// index in the table; and the two coefficients the format fixes.
void check_structure(const r1cs_matrices& m, const file_reader& f) {
    if (m.coefficients[0] != cs::FR_ONE || m.coefficients[1] != cs::FR_MINUS_ONE)
        f.fail("coefficients 0 and 1 are not 1 and -1");
    if (auto i = first_violation(m.coefficients.size(), [&](std::size_t i) {
            return ff::geq(m.coefficients[i].raw(), ff::fr_t::MODULUS);
        }))
        f.fail(fmt::format("coefficient {} is not a reduced field element", *i));
    const char* names[] = {"A", "B", "C"};
    const sparse_rows* rows[] = {&m.a, &m.b, &m.c};
    const std::uint64_t z = m.z_size();
    const std::size_t coefficients = m.coefficients.size();
    for (int k = 0; k < 3; ++k) {
        const sparse_rows& s = *rows[k];
        if (s.row_start.front() != 0 || s.row_start.back() != s.column.size())
            f.fail(fmt::format("{}'s row starts do not span its {} terms", names[k], s.column.size()));
        if (auto r = first_violation(m.circuit_rows, [&](std::size_t r) { return s.row_start[r] > s.row_start[r + 1]; }))
            f.fail(fmt::format("{}'s row {} ends before it starts", names[k], *r));
        if (auto t = first_violation(s.column.size(), [&](std::size_t t) { return s.column[t] >= z; }))
            f.fail(fmt::format("{}'s term {} names column {}, beyond the {} variables", names[k], *t, s.column[*t], z));
        if (auto t = first_violation(s.coeff.size(), [&](std::size_t t) { return s.coeff[t] >= coefficients; }))
            f.fail(fmt::format("{}'s term {} names coefficient {} of {}", names[k], *t, s.coeff[*t], coefficients));
    }
}

}  // namespace

std::uint64_t matrix_file_bytes(const matrix_sizes& s, std::size_t label_bytes) {
    return std::uint64_t(file_bytes(s, label_bytes));
}

void write_matrix_file(const std::filesystem::path& path, const r1cs_matrices& m, std::string_view circuit) {
    check_consistent(m, circuit);
    const auto sections = sections_of(m);
    file_header h{};
    std::memcpy(h.magic, MATRIX_FILE_MAGIC, sizeof(h.magic));
    h.version = MATRIX_FILE_VERSION;
    h.label_bytes = std::uint32_t(circuit.size());
    h.circuit_rows = m.circuit_rows;
    h.num_inputs = m.num_inputs;
    h.num_aux = m.num_aux;
    h.coefficients = m.coefficients.size();
    h.a_terms = m.a.non_zeros();
    h.b_terms = m.b.non_zeros();
    h.c_terms = m.c.non_zeros();
    h.payload_digest = payload_digest(sections);
    h.header_digest = header_digest(h, circuit);

    std::filesystem::path tmp = path;
    tmp += ".tmp." + std::to_string(::getpid());
    try {
        util::file_writer w(tmp);
        w.write(&h, sizeof(h));
        w.write(circuit.data(), circuit.size());
        write_padding(w, circuit.size());
        for (auto s : sections) {
            w.write(s.data(), s.size());
            write_padding(w, s.size());
        }
        w.close();
        std::error_code ec;
        std::filesystem::rename(tmp, path, ec);
        if (ec) throw std::system_error(ec, "cannot rename " + tmp.string() + " to " + path.string());
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(tmp, ignored);
        throw;
    }
}

matrix_file_contents read_matrix_file(const std::filesystem::path& path) {
    file_reader f(path);
    file_header h{};
    if (f.size() < sizeof(h.magic)) f.fail(fmt::format("{} bytes, too short to be a matrix file", f.size()));
    f.read(h.magic, sizeof(h.magic));
    if (std::memcmp(h.magic, MATRIX_FILE_MAGIC, sizeof(h.magic)) != 0)
        f.fail("not an R1CS matrix file (its first 8 bytes are not \"CUZKR1CS\")");
    if (f.size() < sizeof(h))
        f.fail(fmt::format("{} bytes, shorter than the {}-byte header (truncated)", f.size(), sizeof(h)));
    f.read(reinterpret_cast<char*>(&h) + sizeof(h.magic), sizeof(h) - sizeof(h.magic));
    if (h.version != MATRIX_FILE_VERSION)
        f.fail(fmt::format("format version {}; this build reads version {} (record the matrices again)", h.version,
                           MATRIX_FILE_VERSION));
    if (h.label_bytes > MATRIX_FILE_MAX_LABEL)
        f.fail(fmt::format("a circuit name of {} bytes, more than {}", h.label_bytes, MATRIX_FILE_MAX_LABEL));
    const matrix_sizes s = sizes_of(h);
    const unsigned __int128 need = file_bytes(s, h.label_bytes);
    if (need != f.size())
        f.fail(fmt::format("its header's counts ({} rows, {} + {} + {} terms, {} coefficients, {} inputs, {} aux) "
                           "make {} bytes, the file has {} ({})",
                           s.circuit_rows, s.a_terms, s.b_terms, s.c_terms, s.coefficients, s.num_inputs,
                           s.num_aux,
                           need > std::numeric_limits<std::uint64_t>::max() ? std::string("more than 2^64")
                                                                             : std::to_string(std::uint64_t(need)),
                           f.size(), need > f.size() ? "truncated, or a corrupt header" : "bytes trail its arrays"));
    if (s.num_inputs == 0 || s.coefficients < 2 || s.coefficients > 65536 || s.num_inputs + s.num_aux > (std::uint64_t(1) << 32))
        f.fail(fmt::format("its header's counts are not a circuit's: {} inputs, {} aux, {} coefficients",
                           s.num_inputs, s.num_aux, s.coefficients));

    matrix_file_contents out;
    out.circuit.resize(h.label_bytes);
    f.read(out.circuit.data(), out.circuit.size());
    f.skip_padding(out.circuit.size(), "circuit name");
    if (header_digest(h, out.circuit) != h.header_digest) f.fail("its header does not match its digest (corrupt)");

    // Every count fits the file's length now, so these allocations are bounded by it.
    r1cs_matrices& m = out.matrices;
    m.circuit_rows = s.circuit_rows;
    m.num_inputs = s.num_inputs;
    m.num_aux = s.num_aux;
    m.coefficients.resize(s.coefficients);
    for (auto [rows, terms] : {std::pair{&m.a, s.a_terms}, std::pair{&m.b, s.b_terms}, std::pair{&m.c, s.c_terms}}) {
        rows->row_start.resize(s.circuit_rows + 1);
        rows->column.resize(terms);
        rows->coeff.resize(terms);
    }
    m.a_aux_density.resize(words(s.num_aux));
    m.b_input_density.resize(words(s.num_inputs));
    m.b_aux_density.resize(words(s.num_aux));
    const auto sections = sections_of(m);
    for (std::size_t k = 0; k < SECTIONS; ++k) {
        f.read(sections[k].data(), sections[k].size());
        f.skip_padding(sections[k].size(), SECTION_NAMES[k]);
    }
    std::array<std::span<const std::byte>, SECTIONS> read_only;
    std::copy(sections.begin(), sections.end(), read_only.begin());
    if (payload_digest(read_only) != h.payload_digest) f.fail("its arrays do not match their digest (corrupt)");
    check_structure(m, f);
    return out;
}

r1cs_matrices read_matrix_file(const std::filesystem::path& path, std::string_view circuit) {
    matrix_file_contents c = read_matrix_file(path);
    if (c.circuit != circuit)
        throw input_error(fmt::format("R1CS matrix file {} holds the matrices of {}, not of {}", path.string(),
                                      c.circuit, circuit));
    return std::move(c.matrices);
}

}  // namespace cuzk::r1cs
