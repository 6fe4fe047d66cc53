// Round numbers of the Poseidon permutation as neptune (Filecoin's Poseidon) chooses them for a
// 256-bit prime field at 128-bit security: the pair (R_F, R_P) with the fewest S-boxes
// (t * R_F + R_P) that satisfies the security inequalities of the Poseidon paper (statistical,
// interpolation and two Groebner-basis bounds), then a security margin of R_F + 2 and
// R_P * 1.075 rounded up. Standard strength gives R_F = 8 for every width and R_P = 55, 56, 57, 57
// for t = 3, 5, 9, 12; Strengthened adds 25% to R_P, rounded up.
#pragma once

#include <cstddef>

namespace cuzk::poseidon {

enum class strength { standard, strengthened };

struct round_numbers {
    size_t full;     // R_F, even: half before the partial rounds, half after
    size_t partial;  // R_P
};

// The search over (R_F, R_P) for width |t|, with or without neptune's security margin. The
// inequalities are evaluated in single precision, as neptune does, so that boundary cases round
// the same way.
round_numbers calc_round_numbers(size_t t, bool security_margin);

// neptune's round numbers for |arity| inputs (width arity + 1).
round_numbers neptune_round_numbers(size_t arity, strength s = strength::standard);

}  // namespace cuzk::poseidon
