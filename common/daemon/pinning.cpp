#include "common/daemon/pinning.hpp"

#include <numa.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/util/errors.hpp"

namespace cuzk::daemon {

namespace {

// CPU_SETSIZE of glibc's static cpu_set_t; larger machines would need CPU_ALLOC.
constexpr int max_cpu = CPU_SETSIZE - 1;

int parse_cpu_number(std::string_view item, std::string_view text) {
    int value = -1;
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || value < 0) {
        throw input_error("cpu list \"" + std::string(text) + "\": \"" + std::string(item) +
                          "\" is not a CPU number (expected a list like \"0-7,16\")");
    }
    if (value > max_cpu) {
        throw input_error("cpu list \"" + std::string(text) + "\": CPU " + std::to_string(value) +
                          " is above the largest supported CPU number " + std::to_string(max_cpu));
    }
    return value;
}

void apply_numa_node(int node) {
    if (node < 0) {
        throw input_error("numa_node " + std::to_string(node) + ": a NUMA node is a number from 0");
    }
    if (numa_available() < 0) {
        spdlog::info("pinning: no NUMA support on this machine; numa_node {} skipped", node);
        return;
    }
    int max_node = numa_max_node();
    if (max_node == 0) {
        spdlog::info("pinning: one NUMA node on this machine; numa_node {} skipped", node);
        return;
    }
    if (node > max_node) {
        throw input_error("numa_node " + std::to_string(node) + ": this machine has NUMA nodes 0-" +
                          std::to_string(max_node));
    }
    if (numa_run_on_node(node) != 0) {
        throw input_error("numa_node " + std::to_string(node) + ": cannot run on it: " +
                          std::strerror(errno));
    }
    numa_set_preferred(node);
    spdlog::info("pinning: running on NUMA node {}, memory preferred from it", node);
}

void apply_cpu_list(const std::string& text, std::optional<int> node) {
    std::vector<int> cpus = parse_cpu_list(text);
    long configured = ::sysconf(_SC_NPROCESSORS_CONF);
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : cpus) {
        if (configured > 0 && cpu >= configured) {
            throw input_error("cpu list \"" + text + "\": CPU " + std::to_string(cpu) +
                              " does not exist; this machine has CPUs 0-" + std::to_string(configured - 1));
        }
        CPU_SET(cpu, &set);
        if (node && numa_available() >= 0 && numa_max_node() > 0 && numa_node_of_cpu(cpu) != *node) {
            spdlog::warn("pinning: CPU {} of cpu list \"{}\" is not on NUMA node {}", cpu, text, *node);
        }
    }
    if (::sched_setaffinity(0, sizeof set, &set) != 0) {
        // EINVAL: none of the CPUs is in this process's cpuset (a container or a cgroup limit).
        throw input_error("cpu list \"" + text + "\": cannot run on these CPUs: " + std::strerror(errno));
    }
    spdlog::info("pinning: running on CPUs {}", text);
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
    std::vector<int> cpus;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t comma = text.find(',', pos);
        if (comma == std::string_view::npos) comma = text.size();
        std::string_view item = text.substr(pos, comma - pos);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        if (item.empty()) {
            throw input_error("cpu list \"" + std::string(text) + "\": empty item (expected a list like \"0-7,16\")");
        }
        std::size_t dash = item.find('-');
        if (dash == std::string_view::npos) {
            cpus.push_back(parse_cpu_number(item, text));
        } else {
            int first = parse_cpu_number(item.substr(0, dash), text);
            int last = parse_cpu_number(item.substr(dash + 1), text);
            if (last < first) {
                throw input_error("cpu list \"" + std::string(text) + "\": range \"" + std::string(item) +
                                  "\" runs backwards");
            }
            for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
        }
        pos = comma + 1;
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

void apply_pinning(const pinning& p) {
    // The CPU list is checked before anything changes, so bad input leaves the process unpinned.
    if (!p.cpu_list.empty()) parse_cpu_list(p.cpu_list);
    if (p.numa_node) apply_numa_node(*p.numa_node);
    // After the node: sched_setaffinity replaces the node's CPU mask with the narrower list.
    if (!p.cpu_list.empty()) apply_cpu_list(p.cpu_list, p.numa_node);
    if (!p.numa_node && p.cpu_list.empty()) spdlog::debug("pinning: none configured");
}

}  // namespace cuzk::daemon
