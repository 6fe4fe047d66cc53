#include "common/cs/counting_cs.hpp"

#include <limits>
#include <string>
#include <stdexcept>

namespace cuzk::cs {

namespace {
// Variable indices are 32-bit; a PoRep partition uses about 2^27, so running past 2^32 means a bug.
uint32_t next_index(uint64_t& counter, const char* what) {
    if (counter > std::numeric_limits<uint32_t>::max())
        throw std::length_error(std::string("counting_cs: too many ") + what + " variables for 32-bit indices");
    return uint32_t(counter++);
}
}  // namespace

variable counting_cs::alloc(const ff::fr_t&) { return variable::aux(next_index(aux_, "aux")); }

variable counting_cs::alloc_input(const ff::fr_t&) { return variable::input(next_index(inputs_, "input")); }

void counting_cs::enforce(const linear_combination& a, const linear_combination& b,
                          const linear_combination& c) {
    ++constraints_;
    terms_ += a.size() + b.size() + c.size();
}

}  // namespace cuzk::cs
