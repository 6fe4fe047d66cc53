// A configuration value that lists items separated by commas ("10.0.0.0/8, 192.168.1.7/32", "winning-32g,
// wpost-32g"): the items in order, each without the spaces and tabs around it, empty ones left out.
#pragma once

#include <string_view>
#include <vector>

namespace cuzk::daemon {

inline std::vector<std::string_view> comma_list(std::string_view text) {
    auto trim = [](std::string_view s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
        while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
        return s;
    };
    std::vector<std::string_view> items;
    while (!text.empty()) {
        const auto comma = text.find(',');
        if (const auto item = trim(text.substr(0, comma)); !item.empty()) items.push_back(item);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return items;
}

}  // namespace cuzk::daemon
