// The input of a proof_kind::test_circuit job (the built-in circuits split into partitions, until the PoRep
// circuit exists): a small JSON file in place of a C1 file,
//   {"circuit": "mul:64", "partitions": 3, "seed": 1}
// Partition p is the circuit "<circuit>@<seed + p>": one shape (one parameter file) but its own witness and
// public inputs, so each partition has a proof of its own, as PoRep partitions do.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace cuzk::daemon {

struct test_job_input {
    std::string circuit;  // a make_circuit spec without "@seed"
    std::uint32_t partitions = 1;
    std::uint64_t seed = 1;

    std::string partition_spec(std::uint32_t partition) const;
    std::string to_json() const;
};

inline constexpr std::uint32_t max_test_partitions = 1024;

// Throws input_error naming |path| and the field (missing, wrong type, unknown circuit, partitions out of
// 1..max_test_partitions, a seed inside "circuit").
test_job_input read_test_job_input(const std::filesystem::path& path);
test_job_input parse_test_job_input(const std::string& text, const std::string& where);

}  // namespace cuzk::daemon
