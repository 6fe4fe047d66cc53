#include "daemon/porep_public_inputs_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "common/util/errors.hpp"

namespace cuzk::daemon {

namespace {

constexpr const char* magic = "cuzk-porep-public-inputs";
constexpr int version = 1;

std::string hex_of(const std::uint8_t* bytes, std::size_t n) {
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
    return out;
}

std::optional<porep::bytes32> bytes_of(const std::string& hex) {
    if (hex.size() != 64) return std::nullopt;
    porep::bytes32 out{};
    for (std::size_t i = 0; i < 32; ++i) {
        unsigned v = 0;
        for (int k = 0; k < 2; ++k) {
            const char c = hex[2 * i + k];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0) return std::nullopt;
            v = v * 16 + unsigned(d);
        }
        out[i] = std::uint8_t(v);
    }
    return out;
}

std::string fr_hex(const ff::fr_t& v) {
    std::uint8_t b[32];
    v.to_bytes_le(b);
    return hex_of(b, 32);
}

std::optional<ff::fr_t> fr_of(const std::string& hex) {
    const auto b = bytes_of(hex);
    ff::fr_t v;
    if (!b || !ff::fr_t::from_bytes_le(b->data(), v)) return std::nullopt;
    return v;
}

}  // namespace

void write_porep_public_inputs(const std::filesystem::path& path, const porep_job_input& in) {
    std::ostringstream text;
    text << magic << ' ' << version << '\n'
         << "registered_proof " << in.proof->name << '\n'
         << "replica_id " << fr_hex(in.public_inputs.replica_id) << '\n'
         << "comm_d " << fr_hex(in.public_inputs.comm_d) << '\n'
         << "comm_r " << fr_hex(in.public_inputs.comm_r) << '\n'
         << "seed " << hex_of(in.public_inputs.seed.data(), 32) << '\n';
    auto tmp = path;
    tmp += ".tmp";
    {
        std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
        f << text.str();
        f.flush();
        if (!f) {
            const int error = errno;
            std::filesystem::remove(tmp);
            throw std::runtime_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(error)));
        }
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) {
        std::filesystem::remove(tmp);
        throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), ec.message()));
    }
}

std::optional<porep_job_input> read_porep_public_inputs(const std::filesystem::path& path) {
    std::ifstream f(path);
    if (!f) return std::nullopt;
    std::map<std::string, std::string> kv;
    std::string key, value;
    while (f >> key >> value) kv[key] = value;
    if (kv[magic] != std::to_string(version)) return std::nullopt;
    porep_job_input in;
    try {
        in.proof = &porep::registered_proof_by_name(kv["registered_proof"]);
    } catch (const input_error&) {
        return std::nullopt;
    }
    const auto replica_id = fr_of(kv["replica_id"]), comm_d = fr_of(kv["comm_d"]), comm_r = fr_of(kv["comm_r"]);
    const auto seed = bytes_of(kv["seed"]);
    if (!replica_id || !comm_d || !comm_r || !seed) return std::nullopt;
    in.public_inputs = {*replica_id, *comm_d, *comm_r, *seed};
    in.graph = std::make_shared<const graph::stacked_graph>(porep::graph_of(*in.proof));
    return in;
}

}  // namespace cuzk::daemon
