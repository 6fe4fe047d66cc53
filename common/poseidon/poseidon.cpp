#include "common/poseidon/poseidon.hpp"

#include <stdexcept>
#include <string>

namespace cuzk::poseidon {

using ff::fr_t;

namespace {

constexpr size_t MAX_WIDTH = MAX_ARITY + 1;
static_assert(MAX_WIDTH <= MAX_LAYER_WIDTH);

inline fr_t quintic(const fr_t& x) {
    fr_t x2 = x.sqr();
    fr_t x4 = x2.sqr();
    return x4 * x;
}

// neptune's "OptimizedStatic" mode. W is the width when known at compile time (the loops then
// unroll), 0 for any width. With OUTPUT_ONLY only s[1] is meaningful afterwards (the last linear
// layer computes that element alone).
template <size_t W, bool OUTPUT_ONLY = false>
void permute_static(const poseidon_constants& c, fr_t* s) {
    const size_t t = W != 0 ? W : c.width;
    const fr_t* k = c.compressed_round_constants.data();
    for (size_t i = 0; i < t; ++i) s[i] += k[i];
    k += t;
    for (size_t r = 0; r < c.half_full_rounds; ++r) {
        for (size_t i = 0; i < t; ++i) s[i] = quintic(s[i]) + k[i];
        k += t;
        mix_dense<W>(s, r + 1 == c.half_full_rounds ? c.pre_sparse : c.mds, t);
    }
    for (size_t p = 0; p < c.partial_rounds; ++p) {
        s[0] = quintic(s[0]) + *k++;
        mix_sparse<W>(s, c.sparse[p], t);
    }
    for (size_t r = 1; r < c.half_full_rounds; ++r) {
        for (size_t i = 0; i < t; ++i) s[i] = quintic(s[i]) + k[i];
        k += t;
        mix_dense<W>(s, c.mds, t);
    }
    for (size_t i = 0; i < t; ++i) s[i] = quintic(s[i]);
    if constexpr (OUTPUT_ONLY)
        s[1] = mix_dense_element<W>(s, c.mds, t, 1);
    else
        mix_dense<W>(s, c.mds, t);
}

using permute_fn = void (*)(const poseidon_constants&, fr_t*);

// Widths Filecoin hashes with get unrolled code; the rest share the generic loop.
template <bool OUTPUT_ONLY>
permute_fn pick(size_t width) {
    switch (width) {
        case 3: return &permute_static<3, OUTPUT_ONLY>;
        case 5: return &permute_static<5, OUTPUT_ONLY>;
        case 9: return &permute_static<9, OUTPUT_ONLY>;
        case 12: return &permute_static<12, OUTPUT_ONLY>;
        default: return &permute_static<0, OUTPUT_ONLY>;
    }
}

void check_preimage(const poseidon_constants& c, size_t n) {
    if (n != c.arity)
        throw std::invalid_argument("poseidon: preimage of " + std::to_string(n) + " elements for arity " +
                                    std::to_string(c.arity));
}

}  // namespace

void permute(const poseidon_constants& c, fr_t* state) { pick<false>(c.width)(c, state); }

void permute_textbook(const poseidon_constants& c, fr_t* s) {
    const size_t t = c.width;
    const size_t rounds = c.full_rounds + c.partial_rounds;
    for (size_t r = 0; r < rounds; ++r) {
        const fr_t* k = c.round_constants.data() + r * t;
        for (size_t i = 0; i < t; ++i) s[i] += k[i];
        const bool full = r < c.half_full_rounds || r >= c.half_full_rounds + c.partial_rounds;
        if (full) {
            for (size_t i = 0; i < t; ++i) s[i] = quintic(s[i]);
        } else {
            s[0] = quintic(s[0]);
        }
        // M * s; M is symmetric, so this equals neptune's s * M.
        fr_t out[MAX_WIDTH];
        for (size_t i = 0; i < t; ++i) {
            fr_t acc;
            for (size_t j = 0; j < t; ++j) acc += c.mds(i, j) * s[j];
            out[i] = acc;
        }
        for (size_t i = 0; i < t; ++i) s[i] = out[i];
    }
}

fr_t hash(const poseidon_constants& c, std::span<const fr_t> preimage) {
    check_preimage(c, preimage.size());
    fr_t state[MAX_WIDTH];
    state[0] = c.domain_tag;
    for (size_t i = 0; i < c.arity; ++i) state[i + 1] = preimage[i];
    pick<true>(c.width)(c, state);
    return state[1];
}

fr_t hash_textbook(const poseidon_constants& c, std::span<const fr_t> preimage) {
    check_preimage(c, preimage.size());
    fr_t state[MAX_WIDTH];
    state[0] = c.domain_tag;
    for (size_t i = 0; i < c.arity; ++i) state[i + 1] = preimage[i];
    permute_textbook(c, state);
    return state[1];
}

fr_t hash(std::span<const fr_t> preimage, strength s) { return hash(constants_for(preimage.size(), s), preimage); }

fr_t hash2(const fr_t& a, const fr_t& b) {
    static const poseidon_constants& c = constants_for(2);
    fr_t state[3] = {c.domain_tag, a, b};
    permute_static<3, true>(c, state);
    return state[1];
}

void hash_many(const poseidon_constants& c, std::span<const fr_t> preimages, std::span<fr_t> out) {
    if (preimages.size() != out.size() * c.arity)
        throw std::invalid_argument("poseidon: hash_many needs arity * outputs preimage elements");
    const permute_fn f = pick<true>(c.width);
    fr_t state[MAX_WIDTH];
    for (size_t k = 0; k < out.size(); ++k) {
        state[0] = c.domain_tag;
        for (size_t i = 0; i < c.arity; ++i) state[i + 1] = preimages[k * c.arity + i];
        f(c, state);
        out[k] = state[1];
    }
}

}  // namespace cuzk::poseidon
