// serde_json's compact form of a SealCommitPhase1Output: struct fields in declaration order, enums
// externally tagged ({"Single": {...}}), byte arrays as arrays of numbers, PhantomData as null.
#include <fmt/format.h>

#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::c1 {

namespace {

class json_writer {
public:
    std::string take() { return std::move(out_); }

    void domain(const domain_t& d) {
        out_ += '[';
        for (size_t i = 0; i < d.size(); ++i) {
            if (i) out_ += ',';
            fmt::format_to(std::back_inserter(out_), "{}", d[i]);
        }
        out_ += ']';
    }

    template <class T, class F>
    void list(const std::vector<T>& items, F&& write_item) {
        out_ += '[';
        for (size_t i = 0; i < items.size(); ++i) {
            if (i) out_ += ',';
            write_item(items[i]);
        }
        out_ += ']';
    }

    // A JSON string; names here are ASCII, but a quote or backslash must not break the document.
    void string(std::string_view s) {
        out_ += '"';
        for (char ch : s) {
            if (ch == '"' || ch == '\\') out_ += '\\';
            if (static_cast<unsigned char>(ch) < 0x20) {
                fmt::format_to(std::back_inserter(out_), "\\u{:04x}", unsigned(ch));
                continue;
            }
            out_ += ch;
        }
        out_ += '"';
    }

    void key(std::string_view k, bool first = false) {
        if (!first) out_ += ',';
        fmt::format_to(std::back_inserter(out_), "\"{}\":", k);
    }

    void path(const std::vector<path_element>& p) {
        out_ += "{\"path\":";
        list(p, [&](const path_element& e) {
            out_ += "{\"hashes\":";
            list(e.hashes, [&](const domain_t& d) { domain(d); });
            fmt::format_to(std::back_inserter(out_), ",\"index\":{}}}", e.index);
        });
        out_ += '}';
    }

    void merkle(const merkle_proof& p) {
        out_ += "{\"data\":{";
        switch (p.kind) {
            case merkle_proof_kind::single:
                out_ += "\"Single\":{";
                key("root", true), domain(p.root);
                key("leaf"), domain(p.leaf);
                key("path"), path(p.base_path);
                break;
            case merkle_proof_kind::sub:
                out_ += "\"Sub\":{";
                key("base_proof", true), path(p.base_path);
                key("sub_proof"), path(p.sub_path);
                key("root"), domain(p.root);
                key("leaf"), domain(p.leaf);
                break;
            case merkle_proof_kind::top:
                out_ += "\"Top\":{";
                key("base_proof", true), path(p.base_path);
                key("sub_proof"), path(p.sub_path);
                key("top_proof"), path(p.top_path);
                key("root"), domain(p.root);
                key("leaf"), domain(p.leaf);
                break;
        }
        out_ += "}}}";
    }

    void column_proof_of(const column_proof& c) {
        out_ += '{';
        key("column", true);
        fmt::format_to(std::back_inserter(out_), "{{\"index\":{},\"rows\":", c.col.index);
        list(c.col.rows, [&](const domain_t& d) { domain(d); });
        out_ += ",\"_h\":null}";
        key("inclusion_proof"), merkle(c.inclusion);
        out_ += '}';
    }

    void labeling(const labeling_proof& l) {
        out_ += '{';
        key("parents", true), list(l.parents, [&](const domain_t& d) { domain(d); });
        fmt::format_to(std::back_inserter(out_), ",\"layer_index\":{},\"node\":{}}}", l.layer_index, l.node);
    }

    void challenge(const challenge_proof& c) {
        out_ += '{';
        key("comm_d_proofs", true), merkle(c.comm_d_proof);
        key("comm_r_last_proof"), merkle(c.comm_r_last_proof);
        key("replica_column_proofs");
        out_ += '{';
        key("c_x", true), column_proof_of(c.replica_columns.c_x);
        key("drg_parents"), list(c.replica_columns.drg_parents, [&](const column_proof& x) { column_proof_of(x); });
        key("exp_parents"), list(c.replica_columns.exp_parents, [&](const column_proof& x) { column_proof_of(x); });
        out_ += '}';
        key("labeling_proofs"), list(c.labeling_proofs, [&](const labeling_proof& l) { labeling(l); });
        key("encoding_proof"), labeling(c.encoding_proof);
        out_ += '}';
    }

    void c1(const seal_commit_phase1_output& c) {
        out_ += '{';
        key("registered_proof", true);
        string(c.registered_proof);
        key("vanilla_proofs");
        out_ += '{';
        string(c.vanilla_variant);
        out_ += ':';
        list(c.partitions, [&](const std::vector<challenge_proof>& part) {
            list(part, [&](const challenge_proof& p) { challenge(p); });
        });
        out_ += '}';
        key("comm_r"), domain(c.comm_r);
        key("comm_d"), domain(c.comm_d);
        key("replica_id"), domain(c.replica_id);
        key("seed"), domain(c.seed);
        key("ticket"), domain(c.ticket);
        out_ += '}';
    }

private:
    std::string out_;
};

}  // namespace

std::string write_c1_json(const seal_commit_phase1_output& c1) {
    json_writer w;
    w.c1(c1);
    return w.take();
}

}  // namespace cuzk::c1
