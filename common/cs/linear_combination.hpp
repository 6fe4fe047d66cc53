// Linear combinations sum_i coeff_i * var_i over Fr, the rows of the R1CS matrices A, B and C.
//
// Gadgets build millions of these (three per constraint), so the storage is a small buffer of
// INLINE_TERMS terms inside the object and a heap block only beyond that; clear() keeps the block
// so an accumulator that is reused (MultiEq) allocates once. Terms are kept exactly as added:
// duplicates are not merged and zero coefficients are not dropped. That matches bellperson's
// semantics where it matters: evaluation sums, and a variable is "present" (density, matrix column)
// as soon as any term names it.
#pragma once

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <type_traits>

#include "common/cs/variable.hpp"
#include "common/ff/bls12_381.hpp"

namespace cuzk::cs {

struct term {
    variable var;
    ff::fr_t coeff;
};
static_assert(std::is_trivially_copyable_v<term>);

// Coefficients the gadgets use constantly, in Montgomery form.
inline constexpr ff::fr_t FR_ONE = ff::fr_t::one();
inline constexpr ff::fr_t FR_MINUS_ONE = [] {
    auto m = ff::fr_t::MODULUS;
    ff::sub_borrow(m, ff::fr_t::R);
    return ff::fr_t::from_raw(m);
}();

// 2^k for k < 256 (bit weights for packing and for MultiEq shifts), computed once.
inline const ff::fr_t& fr_pow2(unsigned k) {
    static const std::array<ff::fr_t, 256> table = [] {
        std::array<ff::fr_t, 256> t;
        t[0] = ff::fr_t::one();
        for (size_t i = 1; i < t.size(); ++i) t[i] = t[i - 1].dbl();
        return t;
    }();
    return table[k];
}

class linear_combination {
public:
    static constexpr uint32_t INLINE_TERMS = 4;

    linear_combination() noexcept : data_(inline_data()), size_(0), cap_(INLINE_TERMS) {}
    // 1 * v; implicit so that a bare variable can be passed where a combination is expected.
    linear_combination(variable v) noexcept : linear_combination() { push(v, FR_ONE); }
    linear_combination(variable v, const ff::fr_t& coeff) noexcept : linear_combination() { push(v, coeff); }
    // c * ONE.
    static linear_combination constant(const ff::fr_t& c) { return linear_combination(variable::one(), c); }

    linear_combination(const linear_combination& o) : linear_combination() { assign(o); }
    linear_combination(linear_combination&& o) noexcept : linear_combination() { steal(o); }
    linear_combination& operator=(const linear_combination& o) {
        if (this != &o) {
            size_ = 0;
            assign(o);
        }
        return *this;
    }
    linear_combination& operator=(linear_combination&& o) noexcept {
        if (this != &o) {
            release();
            steal(o);
        }
        return *this;
    }
    ~linear_combination() { release(); }

    // --- building --------------------------------------------------------------------------
    void add_term(variable v, const ff::fr_t& coeff) { push(v, coeff); }
    void add_term(variable v) { push(v, FR_ONE); }
    void sub_term(variable v, const ff::fr_t& coeff) { push(v, -coeff); }
    void sub_term(variable v) { push(v, FR_MINUS_ONE); }
    void add_constant(const ff::fr_t& c) { push(variable::one(), c); }
    // this += k * other
    void add_scaled(const linear_combination& other, const ff::fr_t& k) {
        reserve(size_ + other.size_);
        for (const term& t : other.terms()) data_[size_++] = term{t.var, t.coeff * k};
    }
    void append(const linear_combination& other) {
        reserve(size_ + other.size_);
        std::memcpy(static_cast<void*>(data_ + size_), other.data_, sizeof(term) * other.size_);
        size_ += other.size_;
    }
    void append_negated(const linear_combination& other) {
        reserve(size_ + other.size_);
        for (const term& t : other.terms()) data_[size_++] = term{t.var, -t.coeff};
    }

    linear_combination& operator+=(variable v) { return add_term(v), *this; }
    linear_combination& operator-=(variable v) { return sub_term(v), *this; }
    linear_combination& operator+=(const term& t) { return push(t.var, t.coeff), *this; }
    linear_combination& operator-=(const term& t) { return push(t.var, -t.coeff), *this; }
    linear_combination& operator+=(const linear_combination& o) { return append(o), *this; }
    linear_combination& operator-=(const linear_combination& o) { return append_negated(o), *this; }
    linear_combination& operator*=(const ff::fr_t& k) {
        for (uint32_t i = 0; i < size_; ++i) data_[i].coeff *= k;
        return *this;
    }

    friend linear_combination operator+(linear_combination a, variable v) { return a += v; }
    friend linear_combination operator-(linear_combination a, variable v) { return a -= v; }
    friend linear_combination operator+(linear_combination a, const term& t) { return a += t; }
    friend linear_combination operator-(linear_combination a, const term& t) { return a -= t; }
    friend linear_combination operator+(linear_combination a, const linear_combination& b) { return a += b; }
    friend linear_combination operator-(linear_combination a, const linear_combination& b) { return a -= b; }
    friend linear_combination operator*(linear_combination a, const ff::fr_t& k) { return a *= k; }
    friend linear_combination operator*(const ff::fr_t& k, linear_combination a) { return a *= k; }

    // --- reading ---------------------------------------------------------------------------
    std::span<const term> terms() const { return {data_, size_}; }
    const term* begin() const { return data_; }
    const term* end() const { return data_ + size_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const term& operator[](size_t i) const { return data_[i]; }

    // Drops the terms, keeps the storage.
    void clear() { size_ = 0; }
    void reserve(size_t n) {
        if (n > cap_) grow(n);
    }

    // <lc, w> where w = (inputs, aux); inputs[0] must be 1. Most witness values in SHA256-heavy
    // circuits are bits and most coefficients are +-2^k, so a term costs a multiplication only
    // when neither its value nor its coefficient is 0 or 1.
    ff::fr_t evaluate(std::span<const ff::fr_t> inputs, std::span<const ff::fr_t> aux) const {
        ff::fr_t acc;
        for (const term& t : terms()) {
            const ff::fr_t& w = t.var.is_input() ? inputs[t.var.index] : aux[t.var.index];
            if (w.is_zero()) continue;
            if (w == FR_ONE)
                acc += t.coeff;
            else if (t.coeff == FR_ONE)
                acc += w;
            else
                acc += t.coeff * w;
        }
        return acc;
    }

private:
    term* inline_data() { return reinterpret_cast<term*>(inline_); }
    const term* inline_data() const { return reinterpret_cast<const term*>(inline_); }
    bool on_heap() const { return data_ != inline_data(); }

    void push(variable v, const ff::fr_t& c) {
        if (size_ == cap_) grow(size_t(cap_) * 2);
        data_[size_++] = term{v, c};
    }
    void grow(size_t n) {
        auto* block = static_cast<term*>(std::malloc(n * sizeof(term)));
        if (!block) throw std::bad_alloc();
        std::memcpy(static_cast<void*>(block), data_, size_ * sizeof(term));
        if (on_heap()) std::free(data_);
        data_ = block;
        cap_ = uint32_t(n);
    }
    void release() {
        if (on_heap()) std::free(data_);
        data_ = inline_data();
        size_ = 0;
        cap_ = INLINE_TERMS;
    }
    void assign(const linear_combination& o) {
        reserve(o.size_);
        std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(term));
        size_ = o.size_;
    }
    // Takes o's heap block when it has one; o is left empty on its inline buffer.
    void steal(linear_combination& o) {
        if (o.on_heap()) {
            data_ = o.data_;
            size_ = o.size_;
            cap_ = o.cap_;
            o.data_ = o.inline_data();
            o.cap_ = INLINE_TERMS;
        } else {
            std::memcpy(static_cast<void*>(data_), o.data_, o.size_ * sizeof(term));
            size_ = o.size_;
        }
        o.size_ = 0;
    }

    term* data_;
    uint32_t size_;
    uint32_t cap_;
    alignas(term) unsigned char inline_[INLINE_TERMS * sizeof(term)];
};

}  // namespace cuzk::cs
