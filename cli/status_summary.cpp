#include "cli/status_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "daemon/service_status.hpp"
#include "ipc/endpoints.hpp"
#include "ipc/shm_segment.hpp"

namespace cuzk::cli {

namespace {

using nlohmann::json;
using daemon::status_value;

constexpr int label_width = 14;

std::string line(const std::string& label, const std::string& text) {
    return fmt::format("{:<{}}{}\n", label, label_width, text);
}

std::string duration(std::uint64_t s) {
    if (s < 120) return fmt::format("{} s", s);
    if (s < 7200) return fmt::format("{} min", s / 60);
    if (s < 172800) return fmt::format("{} h {} min", s / 3600, s % 3600 / 60);
    return fmt::format("{} d {} h", s / 86400, s % 86400 / 3600);
}

// "2 synthesizing, 5 queued" from (count, word) pairs; zero counts kept, so a reader sees the field is known.
std::string counts(const std::vector<std::pair<std::uint64_t, std::string>>& parts) {
    std::string out;
    for (const auto& [n, word] : parts) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", n, word);
    return out;
}

std::string down(const std::string& where) { return fmt::format("down  (no answer on {})", where); }

// A stage whose socket this user may not connect to (the service user's alone): not asked, so not known to be down.
bool not_reachable(const json& status, const std::string& socket) {
    const auto it = status.find("not_reachable");
    return it != status.end() && it->is_array() && std::find(it->begin(), it->end(), socket) != it->end();
}
std::string unknown(const std::string& socket) {
    return fmt::format("?     (its socket {} is the service user's alone: `sudo -u <service user> cuzk status`)", socket);
}

std::string assemblerd_line(const json& a, const daemon::config& c) {
    if (!a.is_object()) return line("assemblerd", down(c.socket_path(ipc::socket_names::api).string()));
    std::string text = fmt::format("up    pid {}", status_value<long long>(a, "pid", 0));
    if (a.contains("uptime_s")) text += ", uptime " + duration(status_value<std::uint64_t>(a, "uptime_s", 0));
    if (a.contains("pending_jobs"))
        text += fmt::format(", {} of max {} jobs pending", status_value<std::uint64_t>(a, "pending_jobs", 0),
                            status_value<std::uint64_t>(a, "max_pending_jobs", 0));
    return line("assemblerd", text);
}

std::string synthd_line(const json& s, const daemon::config& c) {
    if (!s.is_object()) return line("synthd", down(c.socket_path(ipc::socket_names::synthd).string()));
    const auto threads = status_value<std::uint64_t>(s, "threads", 0);
    return line("synthd", fmt::format("up    pid {}, {} thread{}: {}; {} synthesized",
                                      status_value<long long>(s, "pid", 0), threads, threads == 1 ? "" : "s",
                                      counts({{status_value<std::uint64_t>(s, "in_progress", 0), "synthesizing"},
                                              {status_value<std::uint64_t>(s, "queued", 0), "queued"},
                                              {status_value<std::uint64_t>(s, "waiting_for_slot", 0),
                                               "waiting for a slot"}}),
                                      status_value<std::uint64_t>(s, "synthesized", 0)));
}

std::string gpud_line(const json& g) {
    std::size_t busy = 0;
    std::uint64_t proved = 0;
    const json workers = g.value("workers", json::array());
    for (const auto& w : workers) {
        busy += status_value<std::string>(w, "phase", "idle") != "idle";
        proved += status_value<std::uint64_t>(w, "proved", 0);
    }
    return line(fmt::format("gpud GPU {}", status_value<int>(g, "gpu", 0)),
                fmt::format("up    pid {}, backend {}, {} worker{} ({} busy), {} proved",
                            status_value<long long>(g, "pid", 0), status_value<std::string>(g, "backend", "?"),
                            workers.size(), workers.size() == 1 ? "" : "s", busy, proved));
}

std::string jobs_line(const json& a) {
    if (!a.is_object()) return line("jobs", "unknown (assemblerd does not answer)");
    // Lifecycle order; a state this version does not know is counted under its own name after them.
    const std::vector<std::string> order{"queued", "running", "done", "failed", "cancelled"};
    std::map<std::string, std::uint64_t> by_state;
    for (const auto& j : a.value("jobs", json::array())) ++by_state[status_value<std::string>(j, "state", "unknown")];
    std::vector<std::pair<std::uint64_t, std::string>> parts;
    for (const auto& s : order)
        if (auto it = by_state.find(s); it != by_state.end()) parts.emplace_back(it->second, s), by_state.erase(it);
    for (const auto& [s, n] : by_state) parts.emplace_back(n, s);
    if (const auto n = status_value<std::uint64_t>(a, "checking_submissions", 0))
        parts.emplace_back(n, "being checked");
    if (const auto n = status_value<std::uint64_t>(a, "verifying_jobs", 0)) parts.emplace_back(n, "verifying");
    return line("jobs", parts.empty() ? "none" : counts(parts));
}

// The slot states come from a gpud (it snapshots the ring); the geometry from synthd too.
std::string ring_line(const json& synthd, const json& gpuds, const daemon::config& c) {
    const json ring = synthd.is_object() ? synthd.value("ring", json::object()) : json::object();
    const auto name = status_value<std::string>(ring, "name", c.ring.name);
    const auto slot_bytes = status_value<std::uint64_t>(ring, "slot_bytes", c.ring.slot_bytes);
    const json* slots = nullptr;
    for (const auto& g : gpuds)
        if (g.contains("slots")) slots = &g["slots"];
    if (!slots) {
        const auto total = status_value<std::uint64_t>(ring, "slots", c.ring.slots);
        return line("ring", fmt::format("{}: {} slots of {} (which are in use: no gpud answers)", name, total,
                                        ipc::format_bytes(slot_bytes)));
    }
    std::map<std::string, std::uint64_t> in_use;
    std::uint64_t used = 0;
    for (const auto& s : *slots) {
        const auto state = status_value<std::string>(s, "state", "FREE");
        if (state == "FREE") continue;
        ++used;
        ++in_use[state];
    }
    std::string states;
    for (const auto& [state, n] : in_use) states += fmt::format("{}{} {}", states.empty() ? " (" : ", ", n, state);
    if (!states.empty()) states += ")";
    return line("ring", fmt::format("{}: {} of {} slots in use{}, {} each", name, used, slots->size(), states,
                                    ipc::format_bytes(slot_bytes)));
}

std::string gpu_line(const json& g) {
    const json device = g.value("device", json());
    std::string text = device.is_object()
                           ? fmt::format("{}, {} free of {}", status_value<std::string>(device, "name", "?"),
                                         ipc::format_bytes(status_value<std::uint64_t>(device, "free_bytes", 0)),
                                         ipc::format_bytes(status_value<std::uint64_t>(device, "total_bytes", 0)))
                           : fmt::format("no GPU device ({} backend)", status_value<std::string>(g, "backend", "?"));
    if (const json lock = g.value("cuda_lock", json()); lock.is_object()) {
        const auto waiting = status_value<std::uint64_t>(lock, "waiting", 0);
        text += fmt::format("; CUDA lock {} {}{}, {} acquisitions", status_value<std::string>(lock, "name", "?"),
                            status_value<bool>(lock, "held", false) ? "held" : "free",
                            waiting ? fmt::format(", {} waiting", waiting) : "",
                            status_value<std::uint64_t>(lock, "acquisitions", 0));
    }
    // What an operator must act on, said where they look: a side lane turned off stays off until gpud restarts.
    const json counters = g.value("backend_counters", json::object());
    if (status_value<std::uint64_t>(counters, "side_lane_off", 0))
        text += "; side lane OFF (a run beside the lock failed): WinningPoSts wait for the CUDA lock until gpud "
                "restarts";
    if (const auto replans = status_value<std::uint64_t>(counters, "out_of_memory_replans", 0))
        text += fmt::format("; {} out-of-memory replan{}", replans, replans == 1 ? "" : "s");
    return line(fmt::format("GPU {}", status_value<int>(g, "gpu", 0)), text);
}

// The parameter sets a gpud holds (each with its points' size), those it is loading (after a start with [gpud]
// preload, minutes at 32 GiB), and the host bytes of their points it gave back once they were on the device
// ([gpud] release_host_points), where its backend counts them.
std::string params_line(const json& g) {
    std::string text;
    for (const auto& p : g.value("params", json::array()))
        text += fmt::format("{}{} {}{}", text.empty() ? "" : ", ", status_value<std::string>(p, "circuit", "?"),
                            ipc::format_bytes(status_value<std::uint64_t>(p, "bytes", 0)),
                            status_value<bool>(p, "synthetic", false) ? " (SYNTHETIC: proofs not valid)" : "");
    if (text.empty()) text = "none loaded";
    std::string loading;
    for (const auto& circuit : g.value("params_loading", json::array()))
        if (circuit.is_string()) loading += (loading.empty() ? "" : ", ") + circuit.get<std::string>();
    if (!loading.empty()) text += "; loading " + loading;
    const json counters = g.value("backend_counters", json::object());
    if (const auto released = status_value<std::uint64_t>(counters, "host_points_released_bytes", 0))
        text += fmt::format("; their host copy given back: {}", ipc::format_bytes(released));
    return line(fmt::format("params GPU {}", status_value<int>(g, "gpu", 0)), text);
}

}  // namespace

std::string status_summary(const json& status, const daemon::config& c) {
    const json none;
    const json& a = status.contains("assemblerd") ? status["assemblerd"] : none;
    const json& s = status.contains("synthd") ? status["synthd"] : none;
    const json gpuds = status.value("gpuds", json::array());
    const auto synthd_socket = c.socket_path(ipc::socket_names::synthd).string();
    std::string out = assemblerd_line(a, c);
    out += not_reachable(status, synthd_socket) ? line("synthd", unknown(synthd_socket)) : synthd_line(s, c);
    if (const auto it = status.find("not_reachable"); it != status.end() && it->is_array()) {
        for (const auto& socket : *it)
            if (socket.get<std::string>() != synthd_socket) out += line("gpud", unknown(socket.get<std::string>()));
    }
    const bool gpud_unknown = status.contains("not_reachable") && status["not_reachable"].size() > (
        not_reachable(status, synthd_socket) ? 1u : 0u);
    if (gpuds.empty() && !gpud_unknown)
        out += line("gpud", down(c.socket_path(ipc::gpud_socket_name(c.gpud.gpu)).string()));
    for (const auto& g : gpuds) out += gpud_line(g);
    out += jobs_line(a);
    out += ring_line(s, gpuds, c);
    for (const auto& g : gpuds) out += gpu_line(g) + params_line(g);
    return out;
}

}  // namespace cuzk::cli
