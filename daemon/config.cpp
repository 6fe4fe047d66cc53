#include "daemon/config.hpp"
#include "daemon/listen_address.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <set>
#include <variant>

#include "common/post/registered_post_proof.hpp"
#include "common/util/errors.hpp"
#include "daemon/circuit_ids.hpp"
#include "daemon/comma_list.hpp"
#include "daemon/config_schema.hpp"
#include "ipc/cuda_lock.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::daemon {

namespace {

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
// Spelled out for clang before 17, which does not deduce an aggregate's template arguments (C++20's P1816).
template <class... F>
overloaded(F...) -> overloaded<F...>;

// Reads one section's keys (config_schema()) into the config; every other key is reported as unknown.
class section_reader {
public:
    section_reader(const std::string& file, const std::string& name, const toml::table& table)
        : file_(file), name_(name), table_(table) {}

    // Called after the section's keys were read.
    void reject_unknown_keys() const {
        for (auto&& [key, node] : table_) {
            if (!known_.count(std::string(key.str()))) {
                throw input_error(fmt::format("{}:{}:{}: unknown key '{}' in [{}] (see systemd/cuzk.example.toml)", file_,
                                              node.source().begin.line, node.source().begin.column, key.str(), name_));
            }
        }
    }

    // Reads |key| into |c| when the section has it; throws input_error naming the file, line, column and key
    // for a wrong type or a value out of range.
    void read(const config_key& key, config& c) {
        const std::string name(key.name);
        std::visit(overloaded{
                       [&](const text_key& k) { text(name.c_str(), k.field(c)); },
                       [&](const path_key& k) { path(name.c_str(), k.field(c)); },
                       [&](const boolean_key& k) { boolean(name.c_str(), k.field(c)); },
                       [&](const number_key& k) { number(name.c_str(), k.field(c), k.lo, k.hi); },
                       [&](const integer_key& k) {
                           std::visit([&](auto field) { integer(name.c_str(), field(c), k.lo, k.hi); }, k.field);
                       },
                       [&](const count_key& k) { count(name.c_str(), k.field(c), k.hi, k.why); },
                       [&](const optional_integer_key& k) { optional_integer(name.c_str(), k.field(c), k.lo, k.hi); },
                   },
                   key.value);
    }

private:
    void text(const char* key, std::string& out) {
        if (auto* node = find(key)) {
            auto v = node->value<std::string>();
            if (!v || !node->is_string()) bad(*node, key, "a string");
            out = *v;
        }
    }
    void path(const char* key, std::filesystem::path& out) {
        std::string s;
        text(key, s);
        if (find(key)) out = s;
    }
    void boolean(const char* key, bool& out) {
        if (auto* node = find(key)) {
            if (!node->is_boolean()) bad(*node, key, "true or false");
            out = *node->value<bool>();
        }
    }
    void number(const char* key, double& out, double lo, double hi) {
        if (auto* node = find(key)) {
            if (!node->is_number()) bad(*node, key, "a number");
            out = *node->value<double>();
            // Written so that TOML's nan, which compares false with everything, is refused too.
            if (!(out >= lo && out <= hi)) bad(*node, key, fmt::format("a number in {}..{}", lo, hi));
        }
    }
    template <class T>
    void integer(const char* key, T& out, std::int64_t lo, std::int64_t hi) {
        if (auto* node = find(key)) {
            if (!node->is_integer()) bad(*node, key, fmt::format("an integer in {}..{}", lo, hi));
            const auto v = *node->value<std::int64_t>();
            if (v < lo || v > hi) bad(*node, key, fmt::format("an integer in {}..{}", lo, hi));
            out = static_cast<T>(v);
        }
    }
    // An integer in 1..|hi| for a number of tries, where 0 would mean nothing: |why| says what is counted.
    template <class T>
    void count(const char* key, T& out, std::int64_t hi, std::string_view why) {
        if (auto* node = find(key)) {
            if (node->is_integer() && *node->value<std::int64_t>() == 0)
                bad(*node, key, fmt::format("at least 1, not 0 ({})", why));
            integer(key, out, 1, hi);
        }
    }
    void optional_integer(const char* key, std::optional<int>& out, int lo, int hi) {
        if (find(key)) {
            int v = 0;
            integer(key, v, lo, hi);
            out = v;
        }
    }

    const toml::node* find(const char* key) {
        known_.insert(key);
        return table_.get(key);
    }
    [[noreturn]] void bad(const toml::node& node, const char* key, const std::string& expected) const {
        throw input_error(fmt::format("{}:{}:{}: [{}] {} must be {}", file_, node.source().begin.line,
                                      node.source().begin.column, name_, key, expected));
    }

    const std::string& file_;
    std::string name_;
    const toml::table& table_;
    std::set<std::string> known_;
};

}  // namespace

void config::resolve_defaults() {
    if (runtime.dir.empty()) runtime.dir = ipc::default_runtime_dir();
    if (runtime.spool_dir.empty()) runtime.spool_dir = runtime.dir / "spool";
    if (gpud.params_dir.empty()) gpud.params_dir = runtime.spool_dir / "params";
    // One lock per GPU unless a fixed name is configured (then every gpud reading the file shares it): the
    // default name, or the configured one with {gpu} replaced, as `cuzk up --gpus` starts one gpud per GPU
    // from one file.
    static constexpr std::string_view gpu_field = "{gpu}";
    if (gpud.lock_name.empty()) {
        gpud.lock_name = ipc::cuda_lock::segment_name(gpud.gpu);
        gpud.lock_per_gpu = true;
    } else if (const auto at = gpud.lock_name.find(gpu_field); at != std::string::npos) {
        const std::string index = std::to_string(gpud.gpu);
        for (auto pos = at; pos != std::string::npos; pos = gpud.lock_name.find(gpu_field, pos + index.size()))
            gpud.lock_name.replace(pos, gpu_field.size(), index);
        gpud.lock_per_gpu = true;
    }
}

std::filesystem::path config::socket_path(std::string_view socket_name) const {
    return runtime.dir / fmt::format("{}.sock", socket_name);
}

std::string config::endpoint(std::string_view socket_name) const { return ipc::ipc_endpoint(runtime.dir, socket_name); }

std::string config::api_listen() const {
    return api.listen.empty() ? "unix://" + (runtime.dir / "cuzk.sock").string() : api.listen;
}

std::uint32_t config::effective_dispatch_window() const {
    return assemblerd.dispatch_window != 0 ? assemblerd.dispatch_window : synthd.threads + synthd.lookahead;
}

config load_config(const std::filesystem::path& path) {
    const std::string file = path.string();
    toml::table root;
    try {
        root = toml::parse_file(file);
    } catch (const toml::parse_error& e) {
        throw input_error(fmt::format("{}:{}:{}: {}", file, e.source().begin.line, e.source().begin.column,
                                      e.description()));
    }
    config c;
    const auto sections = config_sections();
    for (auto&& [key, node] : root) {
        const std::string name(key.str());
        const auto it = std::find_if(sections.begin(), sections.end(),
                                     [&](const config_section& s) { return s.name == name; });
        if (it == sections.end() || !node.is_table()) {
            std::string names;
            for (const auto& s : sections) names += fmt::format("{}{}", names.empty() ? "" : ", ", s.name);
            throw input_error(fmt::format("{}:{}:{}: unknown {} '{}' (sections: {})", file, node.source().begin.line,
                                          node.source().begin.column, node.is_table() ? "section" : "top-level key",
                                          name, names));
        }
        section_reader reader(file, name, *node.as_table());
        for (const auto& k : config_schema())
            if (k.section == name) reader.read(k, c);
        reader.reject_unknown_keys();
    }
    try {
        validate(c);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", file, e.what()));
    }
    return c;
}

config load_config_or_defaults(const std::optional<std::filesystem::path>& path) {
    return path ? load_config(*path) : config{};
}

void validate(const config& c) {
    static const std::set<std::string> levels{"trace", "debug", "info", "warn", "error", "critical", "off"};
    if (!levels.count(c.runtime.log_level))
        throw input_error(fmt::format("[runtime] log_level '{}' is not one of trace, debug, info, warn, error",
                                      c.runtime.log_level));
    if (c.gpud.backend != "auto" && c.gpud.backend != "cpu" && c.gpud.backend != "cuda")
        throw input_error(fmt::format("[gpud] backend '{}' is not 'auto', 'cpu' or 'cuda'", c.gpud.backend));
    if (c.gpud.params_memory != "auto" && c.gpud.params_memory != "device" && c.gpud.params_memory != "host")
        throw input_error(fmt::format("[gpud] params_memory '{}' is not 'auto', 'device' or 'host'",
                                      c.gpud.params_memory));
    if (c.ring.name.empty()) throw input_error("[ring] name must not be empty");
    if (!c.api.listen.empty()) {
        const auto api = parse_listen_address(c.api.listen, "[api] listen");
        const auto allowed = network_list::parse(c.api.allow_from, "[api] allow_from");
        if (!api.loopback() && allowed.empty())
            throw input_error(fmt::format("[api] listen = \"{}\" is reachable from other hosts: set [api] allow_from to "
                                          "the client networks allowed (CIDR, e.g. \"10.0.0.0/8\"), or listen on "
                                          "loopback or a Unix socket",
                                          c.api.listen));
    } else {
        (void)network_list::parse(c.api.allow_from, "[api] allow_from");
    }
    if (c.api.tls_cert.empty() != c.api.tls_key.empty())
        throw input_error("[api] tls_cert and tls_key go together: set both for TLS, or neither for plaintext");
    if (!c.api.tls_client_ca.empty() && c.api.tls_cert.empty())
        throw input_error("[api] tls_client_ca needs TLS: set tls_cert and tls_key too");
    if (!c.metrics.listen.empty()) (void)parse_listen_address(c.metrics.listen, "[metrics] listen", false);
    (void)gpud_preload_specs(c);
}

std::vector<std::string> gpud_preload_specs(const config& c) {
    std::vector<std::string> specs;
    for (const auto item : comma_list(c.gpud.preload)) {
        std::string spec;
        try {
            spec = circuit_spec_of(std::string(item));
        } catch (const input_error& e) {
            throw input_error(fmt::format("[gpud] preload: {}", e.what()));
        }
        if (std::find(specs.begin(), specs.end(), spec) == specs.end()) specs.push_back(std::move(spec));
    }
    // Every spec here is a circuit's (circuit_spec_of): "post:" names a registered PoSt proof.
    std::stable_partition(specs.begin(), specs.end(), [](const std::string& spec) {
        const auto* post = spec.starts_with("post:") ? post::find_registered_post_proof(spec.substr(5)) : nullptr;
        return post && post->kind == post::post_kind::winning;
    });
    return specs;
}

}  // namespace cuzk::daemon
