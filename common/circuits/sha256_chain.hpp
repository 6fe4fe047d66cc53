// "sha256:<blocks>[@seed]": a chain of SHA256 compressions from the IV over <blocks> private
// 512-bit message blocks, the final 256-bit state packed into 2 public inputs (multipack). No
// padding: block k's output is block k+1's chaining value. A synthetic but faithful PoRep stand-in:
// the same gadgets, all-bit witnesses, sizes from 2^15 to 2^22 constraints.
//
// Size: every block allocates 512 input bits (512 constraints); the first compression starts from
// the constant IV and costs 25,840, the later ones start from allocated words and cost 26,192;
// packing adds 2. So 26,354 constraints for 1 block, about 2^20.7 for 64, 2^22 near 157.
//
// Message blocks are derived from the seed with splitmix64 (seeded by the 64-bit FNV-1a hash of
// "cuzk-sha256-chain:" + seed), 8 outputs per block written little-endian.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "common/circuits/circuit.hpp"

namespace cuzk::circuits {

class sha256_chain final : public circuit {
public:
    // One compression whose chaining value is allocated words rather than the constant IV: the
    // first rounds' ch/maj/sigma are no longer free, and the final additions no longer fold in
    // constants. Checked by tests against counting_cs.
    static constexpr uint64_t CHAINED_COMPRESSION_CONSTRAINTS = 26192;
    static constexpr uint64_t constraints_for(size_t blocks) {
        if (blocks == 0) return 0;
        return 512 * uint64_t(blocks) + 25840 + CHAINED_COMPRESSION_CONSTRAINTS * (uint64_t(blocks) - 1) + 2;
    }

    explicit sha256_chain(size_t blocks, std::string seed = std::string());

    std::string name() const override;
    void synthesize(cs::constraint_system& cs) const override;
    std::vector<ff::fr_t> public_inputs() const override;

    size_t blocks() const { return blocks_.size(); }
    const std::array<uint8_t, 64>& block(size_t i) const { return blocks_.at(i); }
    // SHA256 state after all blocks, as 32 big-endian bytes (computed natively).
    std::array<uint8_t, 32> native_digest() const;

private:
    std::string seed_;
    std::vector<std::array<uint8_t, 64>> blocks_;
};

}  // namespace cuzk::circuits
