// BLS12-381 base field Fp and scalar field Fr (the field of Groth16 witnesses and MSM scalars).
#pragma once

#include "common/ff/mont_field.hpp"

namespace cuzk::ff {

struct fp_params {
    static constexpr size_t N = 6;
    static constexpr limbs<6> MODULUS = parse_hex<6>(
        "0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
};

struct fr_params {
    static constexpr size_t N = 4;
    static constexpr limbs<4> MODULUS =
        parse_hex<4>("0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001");
};

using fp_t = mont_field<fp_params>;
using fr_t = mont_field<fr_params>;

// r - 1 = 2^32 * t: the 2-adicity that bounds NTT domains (2^27 is the largest PoRep needs).
inline constexpr unsigned FR_TWO_ADICITY = 32;
// Multiplicative generator of Fr^*; also the coset shift used by the prover's NTTs.
inline constexpr uint64_t FR_GENERATOR = 7;
// Curve parameter |x| with x negative: x = -0xd201000000010000.
inline constexpr uint64_t BLS_X = 0xd201000000010000ULL;
inline constexpr bool BLS_X_IS_NEGATIVE = true;

}  // namespace cuzk::ff
