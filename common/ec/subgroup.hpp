// Membership in the prime-order subgroups G1 and G2 (order r) for points already on the curve.
//
// A decoded point can lie on the curve yet outside the subgroup (the curves have cofactors
// h1 ~ 2^126 and h2 ~ 2^509); such a point breaks the pairing equation's soundness, so untrusted
// encodings must be checked. Multiplying by r costs ~255 doublings; the endomorphism tests below
// cost one multiplication by |x| (64 bits, Hamming weight 6) on G2 and two on G1:
//   G1: phi(x, y) = (beta x, y), beta a cube root of unity in Fp, acts on G1 as [-x^2];
//       P is in G1 iff phi(P) == [-x^2]P (Scott, "A note on group membership tests", 2021/1130).
//   G2: psi = untwist o Frobenius o twist acts on G2 as [x]; P is in G2 iff psi(P) == [x]P (same note).
// Both are checked against [r]P == O on random points in and out of the subgroups (test_common_curve).
#pragma once

#include "common/ec/jacobian.hpp"

namespace cuzk::ec {

namespace detail {

// a / d for a small divisor d (the remainder is dropped).
template <size_t N>
constexpr ff::limbs<N> div_small(ff::limbs<N> a, uint64_t d) {
    ff::u128 rem = 0;
    for (size_t i = N; i-- > 0;) {
        ff::u128 cur = (rem << 64) | a[i];
        a[i] = uint64_t(cur / d);
        rem = cur % d;
    }
    return a;
}

// The cube root of unity beta for which phi acts on G1 as [-x^2] (not as [x^2 - 1], the other
// eigenvalue; beta^2 would give that one). beta^3 == 1 is asserted by the tests.
inline const fp_t& g1_endo_beta() {
    static const fp_t beta = fp_t::from_hex(
        "0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe");
    return beta;
}

// psi(x, y) = (conj(x) * c_x, conj(y) * c_y) with c_x = xi^-((p-1)/3), c_y = xi^-((p-1)/2),
// xi = 1 + u the twist's non-residue (M-type twist: the untwist divides by w^2, w^3, w^6 = xi).
struct g2_psi_coefficients {
    fp2_t cx, cy;
};
inline const g2_psi_coefficients& g2_psi_coeffs() {
    static const g2_psi_coefficients c = [] {
        const fp2_t xi(fp_t::one(), fp_t::one());
        const ff::limbs<6> pm1 = fp_t::minus_one_repr();
        g2_psi_coefficients k;
        k.cx = xi.pow(div_small(pm1, 3)).inverse();
        k.cy = xi.pow(div_small(pm1, 2)).inverse();
        return k;
    }();
    return c;
}

}  // namespace detail

// The GLV endomorphism of E(Fp); it maps the curve to itself and fixes the identity.
inline g1_affine_t g1_phi(const g1_affine_t& p) {
    if (p.infinity) return p;
    return g1_affine_t::from_xy(p.x * detail::g1_endo_beta(), p.y);
}

// The untwist-Frobenius-twist endomorphism of the G2 twist E'(Fp2).
inline g2_affine_t g2_psi(const g2_affine_t& p) {
    if (p.infinity) return p;
    const auto& c = detail::g2_psi_coeffs();
    return g2_affine_t::from_xy(p.x.conjugate() * c.cx, p.y.conjugate() * c.cy);
}

// [r]P == O: the definition, ~255 doublings. The reference for the fast tests below.
template <class F>
bool is_r_torsion(const affine_t<F>& p) {
    return jacobian_t<F>::from_affine(p).mul(fr_t::MODULUS).is_identity();
}

// Precondition: p is on the curve (the decoders check that first). The identity is in G1.
inline bool g1_in_subgroup(const g1_affine_t& p) {
    if (p.infinity) return true;
    const ff::limbs<1> abs_x{ff::BLS_X};
    g1_jacobian_t x2p = g1_jacobian_t::from_affine(p).mul(abs_x).mul(abs_x);  // [x^2]P
    return g1_jacobian_t::from_affine(g1_phi(p)) == -x2p;
}

// Precondition: p is on the twist. x is negative, so [x]P = -[|x|]P.
inline bool g2_in_subgroup(const g2_affine_t& p) {
    if (p.infinity) return true;
    static_assert(ff::BLS_X_IS_NEGATIVE);
    const ff::limbs<1> abs_x{ff::BLS_X};
    g2_jacobian_t xp = g2_jacobian_t::from_affine(p).mul(abs_x);
    return g2_jacobian_t::from_affine(g2_psi(p)) == -xp;
}

}  // namespace cuzk::ec
