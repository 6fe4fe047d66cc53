#include "common/util/resources.hpp"

#include <sys/resource.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <string>

namespace cuzk {

double peak_rss_mib() {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

std::optional<uint64_t> parse_mem_available(std::string_view meminfo) {
    constexpr std::string_view key = "MemAvailable:";
    for (size_t at = 0; at < meminfo.size();) {
        const size_t end = std::min(meminfo.find('\n', at), meminfo.size());
        std::string_view line = meminfo.substr(at, end - at);
        at = end + 1;
        if (!line.starts_with(key)) continue;
        line.remove_prefix(key.size());
        while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        uint64_t kib = 0;
        const auto [rest, ec] = std::from_chars(line.data(), line.data() + line.size(), kib);
        if (ec != std::errc{} || rest == line.data()) return std::nullopt;
        std::string_view unit(rest, size_t(line.data() + line.size() - rest));
        while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
        if (unit != "kB") return std::nullopt;
        return kib * 1024;
    }
    return std::nullopt;
}

std::optional<uint64_t> host_memory_available_bytes() {
    std::ifstream in("/proc/meminfo");
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return parse_mem_available(text.str());
}

bool host_memory_fits(uint64_t bytes, std::optional<uint64_t> available) {
    if (!available) return true;
    return bytes <= *available && *available - bytes >= HOST_MEMORY_RESERVE;
}

}  // namespace cuzk
