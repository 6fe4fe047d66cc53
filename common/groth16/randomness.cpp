#include "common/groth16/randomness.hpp"

#include <openssl/rand.h>

#include <stdexcept>

namespace cuzk::groth16 {

rng_fn system_rng() {
    return [] {
        uint64_t v = 0;
        if (RAND_bytes(reinterpret_cast<unsigned char*>(&v), sizeof(v)) != 1)
            throw std::runtime_error("RAND_bytes failed: the system CSPRNG is unavailable");
        return v;
    };
}

ff::fr_t random_nonzero_fr(rng_fn& rng) {
    for (;;) {
        ff::fr_t x = ff::fr_t::random(rng);
        if (!x.is_zero()) return x;
    }
}

}  // namespace cuzk::groth16
