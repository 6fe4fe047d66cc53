// Optimal ate pairing on BLS12-381 (see pairing.hpp for the conventions).
#include "common/ec/pairing.hpp"

namespace cuzk::ec {

using ff::fp12_t;
using ff::fp2_t;

namespace {

using ff::fp2_mul;
using ff::fp2_sqr;

constexpr uint64_t ATE_LOOP = ff::BLS_X;  // |x|; bit 63 is the leading one
constexpr int ATE_TOP_BIT = 63;

// A point of the twist in homogeneous projective coordinates: (X/Z, Y/Z).
struct g2_homogeneous {
    fp2_t x, y, z;
};

// 3 b' t with b' = 4(1 + u): 12 xi t by additions.
fp2_t mul_by_3b(const fp2_t& t) {
    fp2_t s = t.mul_by_nonresidue();
    s = s.dbl() + s;
    return s.dbl().dbl();
}

// Tangent at R, and R <- 2R. With B = Y^2, C = Z^2, E = 3b'C, H = 2YZ the tangent, scaled by
// -2YZ^2 and reduced with the curve equation, is (E - B) + 3X^2 xP v - H yP v w.
// The point is scaled by 4 to avoid halving: X3 = 2XY(B - 3E), Y3 = (B + 3E)^2 - 12E^2, Z3 = 4BH.
// 3 M2 + 6 S2 plus additions.
[[gnu::noinline]] line_coeffs double_step(g2_homogeneous& r) {
    fp2_t b = fp2_sqr(r.y);
    fp2_t c = fp2_sqr(r.z);
    fp2_t e = mul_by_3b(c);
    fp2_t f = e.dbl() + e;
    fp2_t h = fp2_sqr(r.y + r.z) - b - c;
    fp2_t xx = fp2_sqr(r.x);
    line_coeffs l{e - b, xx.dbl() + xx, -h};
    fp2_t e2 = fp2_sqr(e);
    r.x = fp2_mul(fp2_mul(r.x, r.y), b - f).dbl();
    r.y = fp2_sqr(b + f) - (e2.dbl() + e2).dbl().dbl();
    r.z = fp2_mul(b, h).dbl().dbl();
    return l;
}

// Chord through R and the affine Q, and R <- R + Q. With theta = Y - yQ Z and lambda = X - xQ Z the
// chord scaled by lambda is (theta xQ - lambda yQ) - theta xP v + lambda yP v w.
// R must differ from +-Q, which holds for Q of order r since the loop's multiples stay below r.
// 11 M2 + 2 S2.
[[gnu::noinline]] line_coeffs add_step(g2_homogeneous& r, const g2_affine_t& q) {
    fp2_t theta = r.y - fp2_mul(q.y, r.z);
    fp2_t lambda = r.x - fp2_mul(q.x, r.z);
    line_coeffs l{fp2_mul(theta, q.x) - fp2_mul(lambda, q.y), -theta, lambda};
    fp2_t c = fp2_sqr(theta);
    fp2_t d = fp2_sqr(lambda);
    fp2_t e = fp2_mul(d, lambda);
    fp2_t f = fp2_mul(r.z, c);
    fp2_t g = fp2_mul(r.x, d);
    fp2_t h = e + f - g.dbl();
    r.x = fp2_mul(lambda, h);
    r.y = fp2_mul(theta, g - h) - fp2_mul(e, r.y);
    r.z = fp2_mul(r.z, e);
    return l;
}

// f * line(P): 13 M2 for the sparse product, 4 Fp multiplications for the evaluation.
fp12_t apply_line(const fp12_t& f, const line_coeffs& l, const g1_affine_t& p) {
    return f.mul_by_014(l.c0, l.c1 * p.x, l.c2 * p.y);
}

}  // namespace

g2_prepared prepare_g2(const g2_affine_t& q) {
    g2_prepared out;
    out.infinity = q.infinity;
    if (q.infinity) return out;
    out.coeffs.reserve(68);
    g2_homogeneous r{q.x, q.y, fp2_t::one()};
    for (int i = ATE_TOP_BIT - 1; i >= 0; --i) {
        out.coeffs.push_back(double_step(r));
        if ((ATE_LOOP >> i) & 1) out.coeffs.push_back(add_step(r, q));
    }
    return out;
}

fp12_t multi_miller_loop(std::span<const std::pair<g1_affine_t, const g2_prepared*>> terms) {
    struct active_term {
        const g1_affine_t* p;
        const line_coeffs* next;
    };
    std::vector<active_term> active;
    active.reserve(terms.size());
    for (const auto& [p, q] : terms) {
        if (p.infinity || q == nullptr || q->infinity) continue;
        active.push_back({&p, q->coeffs.data()});
    }
    fp12_t f = fp12_t::one();
    if (active.empty()) return f;
    for (int i = ATE_TOP_BIT - 1; i >= 0; --i) {
        if (i != ATE_TOP_BIT - 1) f = f.sqr();  // f is still one on the first step
        for (auto& t : active) f = apply_line(f, *t.next++, *t.p);
        if ((ATE_LOOP >> i) & 1) {
            for (auto& t : active) f = apply_line(f, *t.next++, *t.p);
        }
    }
    return ff::BLS_X_IS_NEGATIVE ? f.conjugate() : f;
}

fp12_t miller_loop(const g1_affine_t& p, const g2_prepared& q) {
    std::pair<g1_affine_t, const g2_prepared*> term{p, &q};
    return multi_miller_loop(std::span(&term, 1));
}

namespace {

// g^x for g in the cyclotomic subgroup, where x < 0 and g^-1 = conj g.
fp12_t cyclotomic_pow_x(const fp12_t& g) {
    fp12_t t = g.cyclotomic_pow(ff::BLS_X);
    return ff::BLS_X_IS_NEGATIVE ? t.conjugate() : t;
}

}  // namespace

// Easy part: m = f^((p^6 - 1)(p^2 + 1)), after which m lies in the cyclotomic subgroup.
// Hard part: 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3, evaluated from the inside
// out with five cyclotomic powers by x and Frobenius maps (which are nearly free).
fp12_t final_exponentiation(const fp12_t& f) {
    fp12_t m = f.conjugate() * f.inverse();
    m = m.frobenius_map(2) * m;

    fp12_t a = cyclotomic_pow_x(m) * m.conjugate();  // m^(x - 1)
    a = cyclotomic_pow_x(a) * a.conjugate();         // m^((x - 1)^2)
    fp12_t b = cyclotomic_pow_x(a) * a.frobenius_map(1);  // a^(x + p)
    fp12_t c = cyclotomic_pow_x(cyclotomic_pow_x(b)) * b.frobenius_map(2) * b.conjugate();  // b^(x^2 + p^2 - 1)
    return c * m.cyclotomic_sqr() * m;  // * m^3
}

fp12_t pairing(const g1_affine_t& p, const g2_affine_t& q) {
    if (p.infinity || q.infinity) return fp12_t::one();
    return final_exponentiation(miller_loop(p, prepare_g2(q)));
}

bool pairing_product_is_one(std::span<const std::pair<g1_affine_t, const g2_prepared*>> terms) {
    return final_exponentiation(multi_miller_loop(terms)).is_one();
}

}  // namespace cuzk::ec
