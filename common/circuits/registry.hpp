// Built-in circuits by spec string, for the CLI (`cuzk circuits`, `cuzk bench --circuit ...`),
// the setup tool and tests:
//   sha256:<blocks>[@seed]   chain of SHA256 compressions (sha256_chain.hpp), 1 <= blocks <= 1024
//   mul:<n>[@seed]           n multiplication constraints, one public input (mul_chain.hpp)
//   porep:<registered proof>[@seed], post:<registered PoSt proof>[@seed]   a PoRep or PoSt partition
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/circuits/circuit.hpp"

namespace cuzk::circuits {

struct circuit_info {
    std::string pattern;      // e.g. "sha256:<blocks>[@seed]"
    std::string description;  // one line
};

// Throws std::invalid_argument naming the spec and the accepted forms.
std::unique_ptr<circuit> make_circuit(std::string_view spec);
// What make_circuit would refuse, refused the same way, without building anything: make_circuit seals a sample
// sector (or a PoSt partition's sectors) for the PoRep and PoSt sizes up to 8 MiB, seconds of work that a
// request's check must not do. An unknown registered proof throws cuzk::input_error, as in make_circuit.
void check_circuit_spec(std::string_view spec);
std::vector<circuit_info> list_circuits();

}  // namespace cuzk::circuits
