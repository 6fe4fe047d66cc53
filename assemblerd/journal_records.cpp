#include "assemblerd/journal_records.hpp"

#include <fmt/format.h>

#include <cstring>
#include <limits>
#include <stdexcept>

namespace cuzk::assemblerd::journal_records {

namespace {

// An empty string field is written "-": fields are separated by spaces, so none may be empty.
std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }
std::string from_dash(const std::string& s) { return s == "-" ? "" : s; }

std::uint64_t number(const std::string& s) { return static_cast<std::uint64_t>(std::stoull(s)); }

const char* finished_type(ipc::job_state s) {
    switch (s) {
        case ipc::job_state::done: return "DONE";
        case ipc::job_state::cancelled: return "CANCELLED";
        case ipc::job_state::failed: return "FAILED";
        default: throw std::logic_error(fmt::format("job state {} is not an end", ipc::to_string(s)));
    }
}

}  // namespace

journal_record encode(const record& r) {
    struct encoder {
        journal_record operator()(const next_job_id& n) const { return {"NEXT", std::to_string(n.id)}; }
        journal_record operator()(const submitted& s) const {
            return {"SUBMIT", std::to_string(s.job), std::to_string(s.priority), std::to_string(static_cast<int>(s.kind)),
                    std::to_string(s.partitions), std::to_string(s.created_ms), or_dash(hex(s.request_id)), s.input,
                    or_dash(hex(s.request_digest)), s.owner_uid ? std::to_string(*s.owner_uid) : "-"};
        }
        journal_record operator()(const partition_proved& p) const {
            return {"PROOF", std::to_string(p.job), std::to_string(p.partition),
                    hex(std::string_view(reinterpret_cast<const char*>(p.proof.data()), p.proof.size()))};
        }
        journal_record operator()(const finished& f) const {
            journal_record out{finished_type(f.state), std::to_string(f.job), std::to_string(f.at_ms)};
            if (f.state == ipc::job_state::failed) out.push_back(or_dash(hex(f.error)));
            return out;
        }
        journal_record operator()(const fetched& f) const {
            return {"FETCHED", std::to_string(f.job), std::to_string(f.at_ms)};
        }
        journal_record operator()(const expired& e) const { return {"EXPIRED", std::to_string(e.job)}; }
    };
    return std::visit(encoder{}, r);
}

record decode(const journal_record& r) {
    auto need = [&](std::size_t n) {
        if (r.size() != n) throw std::runtime_error(fmt::format("{} fields, expected {}", r.size(), n));
    };
    const auto& type = r.at(0);
    if (type == "NEXT") {
        need(2);
        return next_job_id{number(r[1])};
    }
    if (type == "SUBMIT") {
        // 8 fields before request digests were recorded, 9 before owners were.
        if (r.size() != 8 && r.size() != 9) need(10);
        std::optional<std::uint32_t> owner;
        if (r.size() == 10 && r[9] != "-") {
            const auto uid = number(r[9]);
            if (uid > std::numeric_limits<std::uint32_t>::max()) throw std::runtime_error("owner uid out of range");
            owner = static_cast<std::uint32_t>(uid);
        }
        return submitted{number(r[1]),           std::stoi(r[2]),
                         static_cast<ipc::proof_kind>(std::stoi(r[3])),
                         std::stoul(r[4]),         number(r[5]),
                         unhex(from_dash(r[6])),   r[7],
                         r.size() >= 9 ? unhex(from_dash(r[8])) : std::string(), owner};
    }
    if (type == "PROOF") {
        need(4);
        partition_proved p{number(r[1]), std::stoul(r[2]), {}};
        const auto bytes = unhex(r[3]);
        if (bytes.size() != p.proof.size()) throw std::runtime_error("partition or proof size out of range");
        std::memcpy(p.proof.data(), bytes.data(), p.proof.size());
        return p;
    }
    if (type == "DONE" || type == "CANCELLED") {
        need(3);
        return finished{number(r[1]), type == "DONE" ? ipc::job_state::done : ipc::job_state::cancelled, number(r[2]), {}};
    }
    if (type == "FAILED") {
        need(4);
        return finished{number(r[1]), ipc::job_state::failed, number(r[2]), unhex(from_dash(r[3]))};
    }
    if (type == "FETCHED") {
        need(3);
        return fetched{number(r[1]), number(r[2])};
    }
    if (type == "EXPIRED") {
        need(2);
        return expired{number(r[1])};
    }
    throw std::runtime_error("unknown record type");
}

std::string hex(std::string_view bytes) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char c : bytes) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

std::string unhex(std::string_view hex) {
    if (hex.size() % 2) throw std::invalid_argument("odd-length hex field");
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        throw std::invalid_argument(fmt::format("'{}' is not a hex digit", c));
    };
    std::string out(hex.size() / 2, '\0');
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
    return out;
}

}  // namespace cuzk::assemblerd::journal_records
