// C1 JSON parsing with simdjson's On-Demand API: one forward pass over the text, no DOM, so a 200 MB
// C1 costs its text plus the decoded proofs (about a third of it). The reader keeps the JSON path of
// the value it is on; any failure throws an input_error naming the source, that path and the byte
// offset. Fields serde would ignore (unknown keys, "_h") are skipped; missing fields are errors.
#include "common/c1/seal_commit_phase1.hpp"

#include <simdjson.h>

#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>

#include "common/util/base64.hpp"
#include "common/util/errors.hpp"

namespace cuzk::c1 {

namespace od = simdjson::ondemand;

namespace {

class json_reader {
public:
    json_reader(std::string_view source, const char* base, od::document& doc)
        : source_(source), base_(base), doc_(doc) {
        path_ = "$";
    }

    [[noreturn]] void fail(std::string_view what) {
        std::string where;
        auto loc = doc_.current_location();
        if (!loc.error()) where = fmt::format(" (byte {})", loc.value_unsafe() - base_);
        throw input_error(fmt::format("{}: {}: {}{}", source_, path_, what, where));
    }

    template <class T>
    T need(simdjson::simdjson_result<T>&& r, std::string_view expected) {
        if (r.error()) {
            fail(fmt::format("expected {} ({})", expected, simdjson::error_message(r.error())));
        }
        return std::move(r).value_unsafe();
    }

    // Path bookkeeping: push before descending, pop after success. A failure throws with the path
    // as it stands, so no pop is needed on the way out.
    size_t push_key(std::string_view key) {
        size_t mark = path_.size();
        path_ += '.';
        path_ += key;
        return mark;
    }
    size_t push_index(size_t i) {
        size_t mark = path_.size();
        path_ += fmt::format("[{}]", i);
        return mark;
    }
    void pop(size_t mark) { path_.resize(mark); }

    // Calls on_field(key, value) for each member of the object at |v|; on_field returns false for a
    // key it does not know, which is skipped.
    template <class OnField>
    void for_each_field(od::value v, OnField&& on_field) {
        od::object obj = need(v.get_object(), "an object");
        for (auto member : obj) {
            od::field f = need(std::move(member), "an object member");
            std::string_view key = need(f.unescaped_key(), "a key");
            size_t mark = push_key(key);
            on_field(key, f.value());
            pop(mark);
        }
    }

    template <class OnElement>
    size_t for_each_element(od::value v, OnElement&& on_element) {
        od::array arr = need(v.get_array(), "an array");
        size_t i = 0;
        for (auto element : arr) {
            od::value e = need(std::move(element), "an array element");
            size_t mark = push_index(i);
            on_element(i, e);
            pop(mark);
            ++i;
        }
        return i;
    }

    // The hot loop of a C1 (nine of every ten values are hash bytes): no path bookkeeping unless a
    // byte is bad.
    domain_t domain(od::value v) {
        domain_t d{};
        od::array arr = need(v.get_array(), "an array of 32 bytes");
        size_t i = 0;
        for (auto element : arr) {
            uint64_t b = 0;
            auto err = element.get_uint64().get(b);
            if (err || b > 255 || i >= d.size()) {
                push_index(i);
                if (i >= d.size()) fail("expected exactly 32 bytes, got more");
                if (err) fail(fmt::format("expected a byte (0..255) ({})", simdjson::error_message(err)));
                fail(fmt::format("byte value {} is out of range 0..255", b));
            }
            d[i++] = uint8_t(b);
        }
        if (i != d.size()) fail(fmt::format("expected exactly 32 bytes, got {}", i));
        return d;
    }

    std::vector<domain_t> domains(od::value v) {
        std::vector<domain_t> out;
        for_each_element(v, [&](size_t, od::value e) { out.push_back(domain(e)); });
        return out;
    }

    uint64_t u64(od::value v) { return need(v.get_uint64(), "an unsigned integer"); }

    uint32_t u32(od::value v) {
        uint64_t x = u64(v);
        if (x > UINT32_MAX) fail(fmt::format("{} does not fit 32 bits", x));
        return uint32_t(x);
    }

    std::string string(od::value v) { return std::string(need(v.get_string(), "a string")); }

    // Fails naming the first required field that was not seen. |names| and |seen| run in parallel.
    void require(std::initializer_list<std::string_view> names, std::initializer_list<bool> seen) {
        auto s = seen.begin();
        for (std::string_view n : names) {
            if (!*s++) fail(fmt::format("missing field \"{}\"", n));
        }
    }

    std::vector<path_element> inclusion_path(od::value v) {
        std::vector<path_element> out;
        bool have_path = false;
        for_each_field(v, [&](std::string_view key, od::value fv) {
            if (key != "path") return false;
            have_path = true;
            for_each_element(fv, [&](size_t, od::value ev) {
                path_element pe;
                bool have_hashes = false, have_index = false;
                for_each_field(ev, [&](std::string_view k, od::value x) {
                    if (k == "hashes") {
                        pe.hashes = domains(x);
                        have_hashes = true;
                    } else if (k == "index") {
                        pe.index = u64(x);
                        have_index = true;
                    } else {
                        return false;
                    }
                    return true;
                });
                require({"hashes", "index"}, {have_hashes, have_index});
                out.push_back(std::move(pe));
            });
            return true;
        });
        require({"path"}, {have_path});
        return out;
    }

    merkle_proof merkle(od::value v) {
        merkle_proof p;
        bool have_data = false;
        for_each_field(v, [&](std::string_view key, od::value dv) {
            if (key != "data") return false;
            have_data = true;
            size_t variants = 0;
            for_each_field(dv, [&](std::string_view kind, od::value body) {
                if (kind == "Single") {
                    p.kind = merkle_proof_kind::single;
                } else if (kind == "Sub") {
                    p.kind = merkle_proof_kind::sub;
                } else if (kind == "Top") {
                    p.kind = merkle_proof_kind::top;
                } else {
                    fail(fmt::format("unknown proof variant \"{}\" (expected Single, Sub or Top)", kind));
                }
                if (++variants > 1) fail("more than one proof variant");
                bool root = false, leaf = false, path = false, base = false, sub = false, top = false;
                for_each_field(body, [&](std::string_view k, od::value x) {
                    if (k == "root") {
                        p.root = domain(x), root = true;
                    } else if (k == "leaf") {
                        p.leaf = domain(x), leaf = true;
                    } else if (k == "path" && p.kind == merkle_proof_kind::single) {
                        p.base_path = inclusion_path(x), path = true;
                    } else if (k == "base_proof" && p.kind != merkle_proof_kind::single) {
                        p.base_path = inclusion_path(x), base = true;
                    } else if (k == "sub_proof" && p.kind != merkle_proof_kind::single) {
                        p.sub_path = inclusion_path(x), sub = true;
                    } else if (k == "top_proof" && p.kind == merkle_proof_kind::top) {
                        p.top_path = inclusion_path(x), top = true;
                    } else {
                        return false;
                    }
                    return true;
                });
                switch (p.kind) {
                    case merkle_proof_kind::single: require({"root", "leaf", "path"}, {root, leaf, path}); break;
                    case merkle_proof_kind::sub:
                        require({"root", "leaf", "base_proof", "sub_proof"}, {root, leaf, base, sub});
                        break;
                    case merkle_proof_kind::top:
                        require({"root", "leaf", "base_proof", "sub_proof", "top_proof"},
                                {root, leaf, base, sub, top});
                        break;
                }
                return true;
            });
            if (variants == 0) fail("empty proof data (expected Single, Sub or Top)");
            return true;
        });
        require({"data"}, {have_data});
        return p;
    }

    column_proof column_proof_of(od::value v) {
        column_proof cp;
        bool have_column = false, have_inclusion = false;
        for_each_field(v, [&](std::string_view key, od::value x) {
            if (key == "column") {
                have_column = true;
                bool index = false, rows = false;
                for_each_field(x, [&](std::string_view k, od::value y) {
                    if (k == "index") {
                        cp.col.index = u32(y), index = true;
                    } else if (k == "rows") {
                        cp.col.rows = domains(y), rows = true;
                    } else {
                        return false;  // "_h": serde's PhantomData, always null
                    }
                    return true;
                });
                require({"index", "rows"}, {index, rows});
            } else if (key == "inclusion_proof") {
                cp.inclusion = merkle(x), have_inclusion = true;
            } else {
                return false;
            }
            return true;
        });
        require({"column", "inclusion_proof"}, {have_column, have_inclusion});
        return cp;
    }

    labeling_proof labeling(od::value v) {
        labeling_proof lp;
        bool parents = false, layer = false, node = false;
        for_each_field(v, [&](std::string_view k, od::value x) {
            if (k == "parents") {
                lp.parents = domains(x), parents = true;
            } else if (k == "layer_index") {
                lp.layer_index = u32(x), layer = true;
            } else if (k == "node") {
                lp.node = u64(x), node = true;
            } else {
                return false;
            }
            return true;
        });
        require({"parents", "layer_index", "node"}, {parents, layer, node});
        return lp;
    }

    challenge_proof challenge(od::value v) {
        challenge_proof cp;
        bool d = false, r = false, cols = false, lab = false, enc = false;
        for_each_field(v, [&](std::string_view key, od::value x) {
            if (key == "comm_d_proofs") {
                cp.comm_d_proof = merkle(x), d = true;
            } else if (key == "comm_r_last_proof") {
                cp.comm_r_last_proof = merkle(x), r = true;
            } else if (key == "replica_column_proofs") {
                cols = true;
                bool cx = false, drg = false, exp = false;
                for_each_field(x, [&](std::string_view k, od::value y) {
                    if (k == "c_x") {
                        cp.replica_columns.c_x = column_proof_of(y), cx = true;
                    } else if (k == "drg_parents") {
                        for_each_element(y, [&](size_t, od::value e) {
                            cp.replica_columns.drg_parents.push_back(column_proof_of(e));
                        });
                        drg = true;
                    } else if (k == "exp_parents") {
                        for_each_element(y, [&](size_t, od::value e) {
                            cp.replica_columns.exp_parents.push_back(column_proof_of(e));
                        });
                        exp = true;
                    } else {
                        return false;
                    }
                    return true;
                });
                require({"c_x", "drg_parents", "exp_parents"}, {cx, drg, exp});
            } else if (key == "labeling_proofs") {
                for_each_element(x, [&](size_t, od::value e) { cp.labeling_proofs.push_back(labeling(e)); });
                lab = true;
            } else if (key == "encoding_proof") {
                cp.encoding_proof = labeling(x), enc = true;
            } else {
                return false;
            }
            return true;
        });
        require({"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs",
                 "encoding_proof"},
                {d, r, cols, lab, enc});
        return cp;
    }

    // The top level: a SealCommitPhase1Output, or a c2in.json wrapper whose Phase1Out holds one.
    // Returns the decoded Phase1Out text when the input was a wrapper.
    std::optional<std::string> top(od::value v, seal_commit_phase1_output& out,
                                   std::optional<uint64_t>& wrapper_sector_size) {
        bool reg = false, van = false, comm_r = false, comm_d = false, rid = false, seed = false, ticket = false;
        std::optional<std::string> phase1;
        for_each_field(v, [&](std::string_view key, od::value x) {
            if (key == "Phase1Out") {
                std::string text = string(x);
                auto decoded = util::base64_decode(text);
                if (!decoded) fail("not valid base64");
                phase1 = std::string(decoded->begin(), decoded->end());
            } else if (key == "SectorSize") {
                wrapper_sector_size = u64(x);
            } else if (key == "registered_proof") {
                out.registered_proof = string(x), reg = true;
            } else if (key == "vanilla_proofs") {
                van = true;
                size_t variants = 0;
                for_each_field(x, [&](std::string_view variant, od::value parts) {
                    if (++variants > 1) fail("more than one vanilla proof variant");
                    out.vanilla_variant = std::string(variant);
                    for_each_element(parts, [&](size_t, od::value part) {
                        std::vector<challenge_proof> proofs;
                        for_each_element(part, [&](size_t, od::value c) { proofs.push_back(challenge(c)); });
                        out.partitions.push_back(std::move(proofs));
                    });
                    return true;
                });
                if (variants == 0) fail("no vanilla proof variant (expected e.g. \"StackedDrg32GiBV1\")");
            } else if (key == "comm_r") {
                out.comm_r = domain(x), comm_r = true;
            } else if (key == "comm_d") {
                out.comm_d = domain(x), comm_d = true;
            } else if (key == "replica_id") {
                out.replica_id = domain(x), rid = true;
            } else if (key == "seed") {
                out.seed = domain(x), seed = true;
            } else if (key == "ticket") {
                out.ticket = domain(x), ticket = true;
            } else {
                return false;
            }
            return true;
        });
        if (phase1) return phase1;
        require({"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"},
                {reg, van, comm_r, comm_d, rid, seed, ticket});
        return std::nullopt;
    }

    // On-Demand stops after the top-level value; anything after it is reported here (at the end of
    // the text current_location() answers OUT_OF_BOUNDS).
    void expect_end() {
        auto loc = doc_.current_location();
        if (!loc.error()) {
            throw input_error(fmt::format("{}: trailing content after the top-level value (byte {})", source_,
                                          loc.value_unsafe() - base_));
        }
    }

private:
    std::string_view source_;
    const char* base_;
    od::document& doc_;
    std::string path_;
};

// The sector size a registered proof name states ("StackedDrg32GiBV1_1" -> 32 GiB), or nullopt.
std::optional<uint64_t> sector_size_of(std::string_view name) {
    constexpr std::string_view prefix = "StackedDrg";
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    name.remove_prefix(prefix.size());
    uint64_t n = 0;
    auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
    if (ec != std::errc() || n == 0) return std::nullopt;
    std::string_view unit(ptr, size_t(name.data() + name.size() - ptr));
    if (unit.substr(0, 3) == "KiB") return n << 10;
    if (unit.substr(0, 3) == "MiB") return n << 20;
    if (unit.substr(0, 3) == "GiB") return n << 30;
    return std::nullopt;
}

seal_commit_phase1_output parse_padded(const simdjson::padded_string& text, std::string_view source, int depth) {
    od::parser parser;
    auto doc_result = parser.iterate(text);
    if (doc_result.error()) {
        throw input_error(fmt::format("{}: not JSON ({})", source, simdjson::error_message(doc_result.error())));
    }
    od::document doc = std::move(doc_result).value_unsafe();
    json_reader reader(source, text.data(), doc);
    seal_commit_phase1_output out;
    std::optional<uint64_t> wrapper_sector_size;
    od::value root = reader.need(doc.get_value(), "a JSON object");
    std::optional<std::string> inner = reader.top(root, out, wrapper_sector_size);
    reader.expect_end();
    if (!inner) return out;
    if (depth > 0) throw input_error(fmt::format("{}: $.Phase1Out: holds another c2in wrapper", source));
    std::string inner_source = fmt::format("{}: Phase1Out (base64 JSON)", source);
    seal_commit_phase1_output c1 = parse_padded(simdjson::padded_string(*inner), inner_source, depth + 1);
    if (wrapper_sector_size) {
        auto stated = sector_size_of(c1.registered_proof);
        if (stated && *stated != *wrapper_sector_size) {
            throw input_error(fmt::format("{}: $.SectorSize: {} does not match the registered proof {} ({} bytes)",
                                          source, *wrapper_sector_size, c1.registered_proof, *stated));
        }
    }
    return c1;
}

}  // namespace

uint64_t merkle_proof::leaf_index() const {
    uint64_t index = 0, scale = 1;
    for (const auto* path : {&base_path, &sub_path, &top_path}) {
        for (const path_element& e : *path) {
            index += e.index * scale;
            scale *= e.hashes.size() + 1;
        }
    }
    return index;
}

std::string to_hex(const domain_t& d) {
    std::string s;
    s.reserve(64);
    for (uint8_t b : d) s += fmt::format("{:02x}", b);
    return s;
}

seal_commit_phase1_output parse_c1_json(std::string_view json, std::string_view source) {
    return parse_padded(simdjson::padded_string(json), source, 0);
}

seal_commit_phase1_output read_c1_file(const std::filesystem::path& path) {
    auto text = simdjson::padded_string::load(path.string());
    if (text.error()) {
        throw input_error(fmt::format("C1 file {}: cannot read it ({})", path.string(),
                                      simdjson::error_message(text.error())));
    }
    return parse_padded(text.value_unsafe(), fmt::format("C1 file {}", path.string()), 0);
}

}  // namespace cuzk::c1
