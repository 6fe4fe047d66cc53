// Synthetic PoRep challenges (rust-fil-proofs stacked/vanilla/challenges.rs, module synthetic), for
// the *_Feat_SyntheticPoRep registered proofs: min(nodes, 2^18) synthetic challenges are drawn from
// ChaCha20 (IETF, nonce "synth-porep\0") keyed with BLAKE2b-256(key "filecoin.io|PoRep|1|Synthetic|1|
// Generation", replica_id || comm_r), two per 64-byte keystream block (each 32 bytes LE, mod nodes - 1,
// + 1); the PoRep challenges of partition k are the synthetic challenges at indices drawn from a
// second ChaCha20 keyed with BLAKE2b-256(key "...|Selection", replica_id || seed), 16 u32 LE per
// block, each mod the synthetic count. ChaCha20 and keyed BLAKE2b are OpenSSL's.
#pragma once

#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/porep/public_inputs.hpp"

namespace cuzk::porep {

class synthetic_challenges {
public:
    static constexpr uint64_t DEFAULT_COUNT = uint64_t(1) << 18;

    // |count| synthetic challenges; the registered proofs use min(nodes, DEFAULT_COUNT).
    synthetic_challenges(uint64_t nodes, const ff::fr_t& replica_id, const ff::fr_t& comm_r, uint64_t count);
    static synthetic_challenges standard(uint64_t nodes, const ff::fr_t& replica_id, const ff::fr_t& comm_r);

    uint64_t count() const { return count_; }
    // Synthetic challenge i (0 <= i < count).
    uint64_t challenge(uint64_t i) const;
    // The synthetic indices of partition k's |per_partition| PoRep challenges.
    std::vector<uint64_t> partition_indexes(unsigned per_partition, const bytes32& seed, unsigned k) const;
    std::vector<uint64_t> partition_challenges(unsigned per_partition, const bytes32& seed, unsigned k) const;

private:
    uint64_t nodes_;
    uint64_t count_;
    bytes32 replica_id_{};
    bytes32 generation_key_{};
};

}  // namespace cuzk::porep
