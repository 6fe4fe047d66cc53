// The TOML configuration reader (daemon/config.cpp, load_config: toml++'s parser, then every key through the
// schema of daemon/config_schema.cpp, then validate), over a file holding the input.
// Invariants: only cuzk::input_error escapes; a configuration that loads passes validate again and holds every
// key of the schema within the range the schema states.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>

#include "common/util/errors.hpp"
#include "daemon/config.hpp"
#include "daemon/config_schema.hpp"
#include "support/invariant.hpp"
#include "support/memory_file.hpp"

namespace {

using namespace cuzk;

template <class... F>
struct overloaded : F... {
    using F::operator()...;
};
// Spelled out for clang before 17, which does not deduce an aggregate's template arguments (C++20's P1816).
template <class... F>
overloaded(F...) -> overloaded<F...>;

void check_in_range(bool in_range, const daemon::config_key& key) {
    fuzz::check(in_range, "a loaded key is outside the schema's range",
                std::string(key.section) + "." + std::string(key.name));
}

void check_ranges(daemon::config& c) {
    for (const daemon::config_key& key : daemon::config_schema()) {
        std::visit(overloaded{
                       [&](const daemon::number_key& k) {
                           const double v = k.field(c);
                           check_in_range(v >= k.lo && v <= k.hi, key);  // false for nan
                       },
                       [&](const daemon::integer_key& k) {
                           std::visit(
                               [&](auto field) {
                                   const auto v = field(c);  // std::cmp_*: a u64 above INT64_MAX is not negative
                                   check_in_range(std::cmp_greater_equal(v, k.lo) && std::cmp_less_equal(v, k.hi), key);
                               },
                               k.field);
                       },
                       [&](const daemon::count_key& k) {
                           const auto v = k.field(c);
                           check_in_range(v >= 1 && std::cmp_less_equal(v, k.hi), key);
                       },
                       [&](const daemon::optional_integer_key& k) {
                           const auto& v = k.field(c);
                           check_in_range(!v || (*v >= k.lo && *v <= k.hi), key);
                       },
                       [](const auto&) {},
                   },
                   key.value);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fuzz::memory_file file;
    file.assign(data, size);
    daemon::config c;
    try {
        c = daemon::load_config(file.path());
    } catch (const input_error&) {
        return 0;
    }
    try {
        daemon::validate(c);
    } catch (const input_error& e) {
        fuzz::invariant_failed("validate refuses a configuration load_config took", e.what());
    }
    check_ranges(c);
    return 0;
}
