#include "common/groth16/density_gather.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::groth16 {

namespace {
// Bitmap words per block: 64 Ki elements (2 MiB of scalars), enough to amortise a task, small enough that
// a PoRep partition's ~2,000 blocks spread over every thread.
constexpr std::size_t block_words = 1024;
}  // namespace

void check_density(const density_view& density, std::size_t n, const char* what) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument(std::string(what) + " density: " + why);
    };
    if (density.bits != n) fail(std::to_string(density.bits) + " bits for " + std::to_string(n) + " variables");
    const std::size_t words = (n + 63) / 64;
    if (density.words.size() < words)
        fail(std::to_string(density.words.size()) + " words for " + std::to_string(n) + " bits");
    const unsigned tail = n % 64;
    bool stray = tail != 0 && (density.words[words - 1] >> tail) != 0;
    for (std::size_t w = words; w < density.words.size(); ++w) stray = stray || density.words[w] != 0;
    if (stray) fail("bits set beyond its " + std::to_string(n) + " variables");
}

std::size_t gather_dense(std::span<const ff::fr_t> x, const density_view& density, ff::fr_t* out) {
    check_density(density, x.size(), "gather_dense:");
    const std::size_t words = (x.size() + 63) / 64;
    const std::size_t blocks = (words + block_words - 1) / block_words;
    // at[b]: elements selected before block b.
    std::vector<std::size_t> at(blocks + 1, 0);
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
        std::size_t n = 0;
        for (std::size_t w = b * block_words, end = std::min(words, w + block_words); w < end; ++w)
            n += static_cast<std::size_t>(std::popcount(density.words[w]));
        at[b + 1] = n;
    });
    for (std::size_t b = 0; b < blocks; ++b) at[b + 1] += at[b];
    tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
        ff::fr_t* o = out + at[b];
        for (std::size_t w = b * block_words, end = std::min(words, w + block_words); w < end; ++w) {
            const std::uint64_t bits = density.words[w];
            const ff::fr_t* from = x.data() + w * 64;
            if (bits == ~std::uint64_t(0)) {  // all 64 selected (so all 64 are inside x: no stray bits)
                o = std::uninitialized_copy_n(from, 64, o);
                continue;
            }
            for (std::uint64_t m = bits; m != 0; m &= m - 1)
                ::new (static_cast<void*>(o++)) ff::fr_t(from[std::countr_zero(m)]);
        }
    });
    return at[blocks];
}

}  // namespace cuzk::groth16
