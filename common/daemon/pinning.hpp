// NUMA node and CPU pinning of a daemon, from its config or flags: the same placement the systemd units
// give with NUMAPolicy/NUMAMask/CPUAffinity, for runs outside systemd (docs/DESIGN.md section 7).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuzk::daemon {

struct pinning {
    std::optional<int> numa_node;  // run on this node's CPUs and prefer its memory
    std::string cpu_list;          // like "0-7,16"; empty = none. Narrows the CPUs further than numa_node.
};

// Pins the calling thread, and so every thread it creates afterwards: call it in main() before any
// thread pool starts. Memory policy is "preferred" (the node's memory first, other nodes when it is
// full) rather than "bind", so a full node slows a stage down instead of killing it.
// Throws cuzk::input_error naming the bad value (a malformed cpu list, a CPU or node this machine
// does not have). On a machine with one NUMA node a numa_node has nothing to choose between: it is
// logged and skipped, so a production config also runs on a development box.
void apply_pinning(const pinning& p);

// "0-7,16" -> {0,...,7,16}, sorted, without duplicates. Throws cuzk::input_error quoting |text| for
// an empty item, a reversed range, a non-number or a CPU number above 4095.
std::vector<int> parse_cpu_list(std::string_view text);

}  // namespace cuzk::daemon
