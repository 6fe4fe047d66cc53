// Points of G1 (over Fp) and G2 (over Fp2) in affine coordinates, and the curve constants.
#pragma once

#include "common/ff/bls12_381.hpp"
#include "common/ff/fp2.hpp"

namespace cuzk::ec {

using ff::fp2_t;
using ff::fp_t;
using ff::fr_t;

// An affine point; the point at infinity is flagged, its coordinates are zero.
template <class F>
struct affine_t {
    F x, y;
    bool infinity = true;

    static constexpr affine_t identity() { return affine_t(); }
    static CUZK_HD affine_t from_xy(const F& x, const F& y) {
        affine_t p;
        p.x = x;
        p.y = y;
        p.infinity = false;
        return p;
    }
    CUZK_HD bool is_identity() const { return infinity; }
    CUZK_HD affine_t operator-() const {
        affine_t p = *this;
        if (!infinity) p.y = -y;
        return p;
    }
    CUZK_HD friend bool operator==(const affine_t& a, const affine_t& b) {
        if (a.infinity || b.infinity) return a.infinity == b.infinity;
        return a.x == b.x && a.y == b.y;
    }
    CUZK_HD friend bool operator!=(const affine_t& a, const affine_t& b) { return !(a == b); }
};

using g1_affine_t = affine_t<fp_t>;
using g2_affine_t = affine_t<fp2_t>;

// Curve coefficient b of y^2 = x^3 + b: 4 on G1, 4(1 + u) on the G2 twist.
template <class F>
CUZK_HD F curve_b();
template <>
CUZK_HD inline fp_t curve_b<fp_t>() {
    return fp_t::from_u64(4);
}
template <>
CUZK_HD inline fp2_t curve_b<fp2_t>() {
    return fp2_t(fp_t::from_u64(4), fp_t::from_u64(4));
}

template <class F>
CUZK_HD bool is_on_curve(const affine_t<F>& p) {
    if (p.infinity) return true;
    return p.y.sqr() == p.x.sqr() * p.x + curve_b<F>();
}

g1_affine_t g1_generator();
g2_affine_t g2_generator();

}  // namespace cuzk::ec
