#include "daemon/partition_witness.hpp"

#include <fmt/format.h>

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "common/witness/compact_vector_serialization.hpp"
#include "ipc/shm_header.hpp"
#include "ipc/shm_segment.hpp"

namespace cuzk::daemon {

namespace {

using ff::fr_t;
static_assert(std::is_trivially_copyable_v<fr_t> && sizeof(fr_t) == 32);

constexpr std::uint64_t magic = ipc::make_magic("CZWITNES");
constexpr std::size_t inputs_offset = 320;

struct header {
    std::uint64_t magic;
    std::uint32_t version;
    std::uint32_t spec_bytes;
    std::uint64_t rows, inputs, aux;
    char spec[witness_spec_limit];
};
static_assert(sizeof(header) <= inputs_offset);

}  // namespace

std::uint64_t witness_bytes(const witness::witness_assignment& w) {
    return inputs_offset + 32 * w.num_inputs() + witness::serialized_bytes(w.aux());
}

std::uint64_t witness_bytes_floor(std::uint64_t num_inputs, std::uint64_t num_aux) {
    return inputs_offset + 32 * num_inputs + witness::serialized_bytes(num_aux, 0);
}

std::uint64_t write_witness(std::span<std::byte> out, const witness::witness_assignment& w, std::string_view spec) {
    if (spec.size() > witness_spec_limit)
        throw std::invalid_argument(fmt::format("circuit spec '{}' is longer than {} bytes", spec, witness_spec_limit));
    const std::uint64_t need = witness_bytes(w);
    if (need > out.size()) {
        throw std::length_error(fmt::format("partition witness of {} needs {}, a ring slot holds {}: raise [ring] "
                                            "slot_bytes to at least {}",
                                            spec, ipc::format_bytes(need), ipc::format_bytes(out.size()), need));
    }
    header h{};
    h.magic = magic;
    h.version = witness_layout_version;
    h.spec_bytes = static_cast<std::uint32_t>(spec.size());
    h.rows = w.num_circuit_constraints();
    h.inputs = w.num_inputs();
    h.aux = w.num_aux();
    std::memcpy(h.spec, spec.data(), spec.size());
    std::memset(out.data(), 0, inputs_offset);
    std::memcpy(out.data(), &h, sizeof h);
    const auto inputs = w.inputs();
    std::memcpy(out.data() + inputs_offset, inputs.data(), inputs.size_bytes());
    const std::size_t aux_at = inputs_offset + inputs.size_bytes();
    return aux_at + witness::write(out.subspan(aux_at), w.aux());
}

witness_in_slot read_witness(std::span<const std::byte> payload) {
    header h{};
    if (payload.size() < inputs_offset)
        throw std::runtime_error(fmt::format("witness payload of {} bytes is shorter than its header", payload.size()));
    std::memcpy(&h, payload.data(), sizeof h);
    if (h.magic != magic) throw std::runtime_error("slot payload is not a partition witness (magic)");
    if (h.version != witness_layout_version)
        throw std::runtime_error(fmt::format("witness layout version {}, this build reads {}: run the same build on "
                                             "every stage",
                                             h.version, witness_layout_version));
    if (h.spec_bytes > witness_spec_limit) throw std::runtime_error("witness circuit spec length out of range");
    if (h.inputs == 0 || h.inputs > (payload.size() - inputs_offset) / 32)
        throw std::runtime_error(fmt::format("witness input count {} does not fit the payload of {} bytes", h.inputs,
                                             payload.size()));
    witness_in_slot w;
    w.circuit_spec.assign(h.spec, h.spec_bytes);
    w.circuit_rows = h.rows;
    w.inputs = std::span<const fr_t>(reinterpret_cast<const fr_t*>(payload.data() + inputs_offset), h.inputs);
    const std::size_t aux_at = inputs_offset + 32 * h.inputs;
    try {
        w.aux = witness::read(payload.subspan(aux_at));
    } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("witness aux values of {}: {}", w.circuit_spec, e.what()));
    }
    if (w.aux.size != h.aux)
        throw std::runtime_error(fmt::format("witness header says {} aux values, its compact vector holds {}", h.aux,
                                             w.aux.size));
    return w;
}

}  // namespace cuzk::daemon
