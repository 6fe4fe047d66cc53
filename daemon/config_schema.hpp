// The configuration's keys, written once: load_config reads every key through this table (and refuses any
// key not in it), and config_reference() (config_reference.hpp) documents it (`cuzk config-reference`, committed as
// docs/configuration.md), so the parser and the reference cannot disagree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "daemon/config.hpp"

namespace cuzk::daemon {

// The field of a config that a key sets.
template <class T>
using config_field = T& (*)(config&);

// How a key's TOML value is read: its type and the values accepted.
struct text_key {
    config_field<std::string> field;
};
struct path_key {
    config_field<std::filesystem::path> field;
};
struct boolean_key {
    config_field<bool> field;
};
struct number_key {
    config_field<double> field;
    double lo, hi;
};
struct integer_key {
    std::variant<config_field<std::uint32_t>, config_field<std::uint64_t>, config_field<int>> field;
    std::int64_t lo, hi;
};
// An integer in 1..|hi| counting tries, where 0 would mean nothing: |why| is told to whoever writes 0.
struct count_key {
    config_field<std::uint32_t> field;
    std::int64_t hi;
    std::string_view why;
};
// Unset unless given (e.g. no NUMA node).
struct optional_integer_key {
    config_field<std::optional<int>> field;
    int lo, hi;
};
using key_value =
    std::variant<text_key, path_key, boolean_key, number_key, integer_key, count_key, optional_integer_key>;

struct config_key {
    std::string_view section;
    std::string_view name;
    key_value value;
    std::string_view meaning;  // markdown, one line (a table cell)
};

struct config_section {
    std::string_view name;
    std::string_view meaning;  // markdown
};

// Every section, in the order the reference lists them.
std::span<const config_section> config_sections();
// Every key, by section in config_sections()' order; within a section, in the order the parser checks them.
std::span<const config_key> config_schema();

// "an integer in 1..65536", "a string", ...: what a key's value must be.
std::string expected_value(const key_value& value);
// The default of |key| as TOML would write it ("info" quoted, 600, true), or "unset".
std::string default_value(const config_key& key);

}  // namespace cuzk::daemon
