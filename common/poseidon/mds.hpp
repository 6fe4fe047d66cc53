// The MDS matrix of neptune's Poseidon and the matrices derived from it for the optimized
// permutation (Poseidon paper, appendix B).
//
// M is the Cauchy matrix M[i][j] = 1 / (x_i + y_j) with x = 0..t-1 and y = t..2t-1, so
// M[i][j] = 1 / (i + j + t): symmetric, which is why neptune may multiply state * M (row vector
// times matrix) where the paper writes M * state. The derived matrices are not symmetric, and the
// row-vector convention is kept for them: a layer maps state s to s * A, i.e. s'[j] = sum_i s[i] A[i][j].
//
// Sparse factorization: M = M' * M'' with M' = diag(1, M^) (M^ = M without row and column 0) and
// M'' sparse: first row (M[0][0], v), first column (M[0][0], w^), identity elsewhere, where
// v = M[0][1..] and w^ = M^^-1 * M[1..][0]. Because M' leaves element 0 alone, it commutes with a
// partial round's S-box and can be pushed into the previous round's matrix; repeating this from
// the last partial round backwards leaves one dense "pre-sparse" matrix before the partial rounds
// and one sparse matrix per partial round, each applied in O(t) instead of O(t^2).
#pragma once

#include <cstddef>
#include <vector>

#include "common/ff/bls12_381.hpp"

namespace cuzk::poseidon {

// Dense square matrix over Fr, row-major.
class square_matrix {
public:
    square_matrix() = default;
    explicit square_matrix(size_t n) : n_(n), a_(n * n) {}

    static square_matrix identity(size_t n);

    size_t size() const { return n_; }
    ff::fr_t& operator()(size_t i, size_t j) { return a_[i * n_ + j]; }
    const ff::fr_t& operator()(size_t i, size_t j) const { return a_[i * n_ + j]; }
    const ff::fr_t* data() const { return a_.data(); }

    friend bool operator==(const square_matrix&, const square_matrix&) = default;

private:
    size_t n_ = 0;
    std::vector<ff::fr_t> a_;
};

square_matrix operator*(const square_matrix& a, const square_matrix& b);
// The column vector a * v.
std::vector<ff::fr_t> apply(const square_matrix& a, const std::vector<ff::fr_t>& v);
// The row vector v * a.
std::vector<ff::fr_t> apply_left(const std::vector<ff::fr_t>& v, const square_matrix& a);
square_matrix transpose(const square_matrix& a);
// a without row i and column j.
square_matrix minor(const square_matrix& a, size_t i, size_t j);
// Inverse by Gauss-Jordan elimination; throws std::domain_error when |a| is singular.
square_matrix invert(const square_matrix& a);
bool is_identity(const square_matrix& a);

// The t x t Cauchy MDS matrix above.
square_matrix cauchy_mds(size_t t);

// M'' in compact form: |w_hat| is its first column (w_hat[0] = M[0][0]), |v_rest| its first row
// without element 0. The layer s -> s * M'' is
//   s'[0] = sum_i s[i] * w_hat[i],   s'[j] = s[j] + s[0] * v_rest[j-1]   (j >= 1).
struct sparse_matrix {
    std::vector<ff::fr_t> w_hat;   // t entries
    std::vector<ff::fr_t> v_rest;  // t - 1 entries

    square_matrix to_dense() const;
};

// M' = diag(1, M^) of |m|.
square_matrix prime_factor(const square_matrix& m);
// M'' of |m| as above (dense), so that prime_factor(m) * double_prime_factor(m) == m.
square_matrix double_prime_factor(const square_matrix& m);

struct sparse_factorization {
    square_matrix pre_sparse;            // replaces M in the last full round before the partial rounds
    std::vector<sparse_matrix> sparse;   // one per partial round, in round order
};

// Factors |rounds| consecutive partial-round layers of |mds| as above.
sparse_factorization factor_to_sparse(const square_matrix& mds, size_t rounds);

// ---- the linear layers of the permutation, in place on a state of t elements ----------------
// W is t when known at compile time (loops unroll), 0 otherwise. t <= MAX_LAYER_WIDTH.
inline constexpr size_t MAX_LAYER_WIDTH = 37;

// s <- s * A: t^2 multiplications.
template <size_t W = 0>
inline void mix_dense(ff::fr_t* s, const square_matrix& a, size_t t) {
    if constexpr (W != 0) t = W;
    ff::fr_t out[W != 0 ? W : MAX_LAYER_WIDTH];
    const ff::fr_t* m = a.data();
    for (size_t j = 0; j < t; ++j) out[j] = s[0] * m[j];
    for (size_t i = 1; i < t; ++i) {
        const ff::fr_t si = s[i];
        const ff::fr_t* row = m + i * t;
        for (size_t j = 0; j < t; ++j) out[j] += si * row[j];
    }
    for (size_t j = 0; j < t; ++j) s[j] = out[j];
}

// Element |j| of s * A alone: t multiplications (the permutation's output needs only one).
template <size_t W = 0>
inline ff::fr_t mix_dense_element(const ff::fr_t* s, const square_matrix& a, size_t t, size_t j) {
    if constexpr (W != 0) t = W;
    const ff::fr_t* m = a.data();
    ff::fr_t acc = s[0] * m[j];
    for (size_t i = 1; i < t; ++i) acc += s[i] * m[i * t + j];
    return acc;
}

// s <- s * M'': 2t - 1 multiplications.
template <size_t W = 0>
inline void mix_sparse(ff::fr_t* s, const sparse_matrix& sm, size_t t) {
    if constexpr (W != 0) t = W;
    const ff::fr_t s0 = s[0];
    ff::fr_t acc = s0 * sm.w_hat[0];
    for (size_t i = 1; i < t; ++i) acc += s[i] * sm.w_hat[i];
    for (size_t j = 1; j < t; ++j) s[j] += s0 * sm.v_rest[j - 1];
    s[0] = acc;
}

}  // namespace cuzk::poseidon
