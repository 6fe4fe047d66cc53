#include "common/poseidon/mds.hpp"

#include <stdexcept>
#include <utility>

namespace cuzk::poseidon {

using ff::fr_t;

square_matrix square_matrix::identity(size_t n) {
    square_matrix m(n);
    for (size_t i = 0; i < n; ++i) m(i, i) = fr_t::one();
    return m;
}

square_matrix operator*(const square_matrix& a, const square_matrix& b) {
    if (a.size() != b.size()) throw std::invalid_argument("square_matrix: size mismatch");
    const size_t n = a.size();
    square_matrix r(n);
    for (size_t i = 0; i < n; ++i)
        for (size_t k = 0; k < n; ++k)
            for (size_t j = 0; j < n; ++j) r(i, j) += a(i, k) * b(k, j);
    return r;
}

std::vector<fr_t> apply(const square_matrix& a, const std::vector<fr_t>& v) {
    std::vector<fr_t> r(a.size());
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < a.size(); ++j) r[i] += a(i, j) * v[j];
    return r;
}

std::vector<fr_t> apply_left(const std::vector<fr_t>& v, const square_matrix& a) {
    std::vector<fr_t> r(a.size());
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < a.size(); ++j) r[j] += v[i] * a(i, j);
    return r;
}

square_matrix transpose(const square_matrix& a) {
    square_matrix r(a.size());
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < a.size(); ++j) r(j, i) = a(i, j);
    return r;
}

square_matrix minor(const square_matrix& a, size_t i, size_t j) {
    const size_t n = a.size();
    square_matrix r(n - 1);
    for (size_t ii = 0, ri = 0; ii < n; ++ii) {
        if (ii == i) continue;
        for (size_t jj = 0, rj = 0; jj < n; ++jj) {
            if (jj == j) continue;
            r(ri, rj++) = a(ii, jj);
        }
        ++ri;
    }
    return r;
}

square_matrix invert(const square_matrix& a) {
    const size_t n = a.size();
    square_matrix m = a;
    square_matrix inv = square_matrix::identity(n);
    for (size_t col = 0; col < n; ++col) {
        size_t pivot = col;
        while (pivot < n && m(pivot, col).is_zero()) ++pivot;
        if (pivot == n) throw std::domain_error("square_matrix: singular");
        if (pivot != col) {
            for (size_t j = 0; j < n; ++j) {
                std::swap(m(pivot, j), m(col, j));
                std::swap(inv(pivot, j), inv(col, j));
            }
        }
        const fr_t scale = m(col, col).inverse();
        for (size_t j = 0; j < n; ++j) {
            m(col, j) *= scale;
            inv(col, j) *= scale;
        }
        for (size_t i = 0; i < n; ++i) {
            if (i == col || m(i, col).is_zero()) continue;
            const fr_t f = m(i, col);
            for (size_t j = 0; j < n; ++j) {
                m(i, j) -= f * m(col, j);
                inv(i, j) -= f * inv(col, j);
            }
        }
    }
    return inv;
}

bool is_identity(const square_matrix& a) {
    for (size_t i = 0; i < a.size(); ++i)
        for (size_t j = 0; j < a.size(); ++j)
            if (a(i, j) != (i == j ? fr_t::one() : fr_t::zero())) return false;
    return true;
}

square_matrix cauchy_mds(size_t t) {
    square_matrix m(t);
    for (size_t i = 0; i < t; ++i)
        for (size_t j = 0; j < t; ++j) m(i, j) = fr_t::from_u64(i + j + t).inverse();
    return m;
}

square_matrix sparse_matrix::to_dense() const {
    const size_t n = w_hat.size();
    square_matrix m = square_matrix::identity(n);
    for (size_t i = 0; i < n; ++i) m(i, 0) = w_hat[i];
    for (size_t j = 1; j < n; ++j) m(0, j) = v_rest[j - 1];
    return m;
}

square_matrix prime_factor(const square_matrix& m) {
    const size_t n = m.size();
    square_matrix r(n);
    r(0, 0) = fr_t::one();
    for (size_t i = 1; i < n; ++i)
        for (size_t j = 1; j < n; ++j) r(i, j) = m(i, j);
    return r;
}

square_matrix double_prime_factor(const square_matrix& m) {
    const size_t n = m.size();
    std::vector<fr_t> w(n - 1);
    for (size_t i = 1; i < n; ++i) w[i - 1] = m(i, 0);
    const std::vector<fr_t> w_hat = apply(invert(minor(m, 0, 0)), w);
    square_matrix r(n);
    r(0, 0) = m(0, 0);
    for (size_t j = 1; j < n; ++j) r(0, j) = m(0, j);
    for (size_t i = 1; i < n; ++i) {
        r(i, 0) = w_hat[i - 1];
        r(i, i) = fr_t::one();
    }
    return r;
}

sparse_factorization factor_to_sparse(const square_matrix& mds, size_t rounds) {
    // Walk from the last partial round backwards: factor the current layer into M' * M'', keep
    // M'' for this round and hand M' to the round before, whose layer becomes mds * M'.
    sparse_factorization out;
    out.sparse.resize(rounds);
    square_matrix current = mds;
    for (size_t k = rounds; k-- > 0;) {
        const square_matrix dp = double_prime_factor(current);
        sparse_matrix& s = out.sparse[k];
        const size_t n = dp.size();
        s.w_hat.resize(n);
        s.v_rest.resize(n - 1);
        for (size_t i = 0; i < n; ++i) s.w_hat[i] = dp(i, 0);
        for (size_t j = 1; j < n; ++j) s.v_rest[j - 1] = dp(0, j);
        current = mds * prime_factor(current);
    }
    out.pre_sparse = std::move(current);
    return out;
}

}  // namespace cuzk::poseidon
