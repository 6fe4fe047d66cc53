// The CLI's public-inputs file: a JSON array of decimal strings, the ONE input excluded.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::groth16 {

// Throws cuzk::input_error naming the file and the element at fault.
std::vector<ff::fr_t> read_public_inputs(const std::string& path);
std::vector<ff::fr_t> parse_public_inputs(const std::string& text, const std::string& where);
void write_public_inputs(const std::string& path, std::span<const ff::fr_t> inputs);

}  // namespace cuzk::groth16
