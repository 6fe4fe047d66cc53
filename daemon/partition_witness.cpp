#include "daemon/partition_witness.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "ipc/shm_header.hpp"
#include "ipc/shm_segment.hpp"

namespace cuzk::daemon {

namespace {

using ff::fr_t;
static_assert(std::is_trivially_copyable_v<fr_t> && sizeof(fr_t) == 32);

constexpr std::uint64_t magic = ipc::make_magic("CZWITNES");
constexpr std::size_t arrays_offset = 320;

struct header {
    std::uint64_t magic;
    std::uint32_t version;
    std::uint32_t spec_bytes;
    std::uint64_t rows, inputs, aux;
    char spec[witness_spec_limit];
};
static_assert(sizeof(header) <= arrays_offset);

std::uint64_t words_for(std::uint64_t bits) { return (bits + 63) / 64; }

std::uint64_t total_bytes(std::uint64_t rows, std::uint64_t inputs, std::uint64_t aux) {
    return arrays_offset + 32 * (3 * rows + inputs + aux) + 8 * (2 * words_for(aux) + words_for(inputs));
}

std::byte* put(std::byte* at, const void* src, std::size_t bytes) {
    if (bytes) std::memcpy(at, src, bytes);
    return at + bytes;
}

}  // namespace

std::uint64_t witness_bytes(const groth16::proving_assignment& pa) {
    return total_bytes(pa.num_constraints(), pa.num_inputs(), pa.num_aux());
}

std::uint64_t write_witness(std::span<std::byte> out, const groth16::proving_assignment& pa, std::string_view spec) {
    if (spec.size() > witness_spec_limit)
        throw std::invalid_argument(fmt::format("circuit spec '{}' is longer than {} bytes", spec, witness_spec_limit));
    const std::uint64_t need = witness_bytes(pa);
    if (need > out.size()) {
        throw std::length_error(fmt::format("partition witness of {} needs {}, a ring slot holds {}: raise [ring] "
                                            "slot_bytes to at least {}",
                                            spec, ipc::format_bytes(need), ipc::format_bytes(out.size()), need));
    }
    header h{};
    h.magic = magic;
    h.version = witness_layout_version;
    h.spec_bytes = static_cast<std::uint32_t>(spec.size());
    h.rows = pa.num_constraints();
    h.inputs = pa.num_inputs();
    h.aux = pa.num_aux();
    std::memcpy(h.spec, spec.data(), spec.size());
    std::memset(out.data(), 0, arrays_offset);
    std::memcpy(out.data(), &h, sizeof h);
    std::byte* at = out.data() + arrays_offset;
    for (const auto* v : {&pa.a(), &pa.b(), &pa.c(), &pa.inputs(), &pa.aux()}) at = put(at, v->data(), v->size() * 32);
    for (const auto* d : {&pa.a_aux_density(), &pa.b_input_density(), &pa.b_aux_density()})
        at = put(at, d->words().data(), d->words().size() * 8);
    return static_cast<std::uint64_t>(at - out.data());
}

witness_in_slot read_witness(std::span<const std::byte> payload) {
    header h{};
    if (payload.size() < arrays_offset)
        throw std::runtime_error(fmt::format("witness payload of {} bytes is shorter than its header", payload.size()));
    std::memcpy(&h, payload.data(), sizeof h);
    if (h.magic != magic) throw std::runtime_error("slot payload is not a partition witness (magic)");
    if (h.version != witness_layout_version)
        throw std::runtime_error(fmt::format("witness layout version {}, this build reads {}: run the same build on "
                                             "every stage",
                                             h.version, witness_layout_version));
    if (h.spec_bytes > witness_spec_limit) throw std::runtime_error("witness circuit spec length out of range");
    const std::uint64_t limit = payload.size() / 32;
    if (h.rows > limit || h.inputs > limit || h.aux > limit || total_bytes(h.rows, h.inputs, h.aux) != payload.size())
        throw std::runtime_error(fmt::format("witness sizes (rows {}, inputs {}, aux {}) disagree with the payload "
                                             "of {} bytes",
                                             h.rows, h.inputs, h.aux, payload.size()));
    witness_in_slot w;
    w.circuit_spec.assign(h.spec, h.spec_bytes);
    const std::byte* at = payload.data() + arrays_offset;
    auto take_fr = [&](std::uint64_t n) {
        std::span<const fr_t> s(reinterpret_cast<const fr_t*>(at), n);
        at += n * 32;
        return s;
    };
    auto take_words = [&](std::uint64_t bits) {
        std::span<const std::uint64_t> s(reinterpret_cast<const std::uint64_t*>(at), words_for(bits));
        at += words_for(bits) * 8;
        return groth16::density_view{s, bits};
    };
    w.view.a = take_fr(h.rows);
    w.view.b = take_fr(h.rows);
    w.view.c = take_fr(h.rows);
    w.view.inputs = take_fr(h.inputs);
    w.view.aux = take_fr(h.aux);
    w.view.a_aux_density = take_words(h.aux);
    w.view.b_input_density = take_words(h.inputs);
    w.view.b_aux_density = take_words(h.aux);
    return w;
}

}  // namespace cuzk::daemon
