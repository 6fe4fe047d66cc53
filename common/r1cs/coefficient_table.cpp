#include "common/r1cs/coefficient_table.hpp"

#include <fmt/format.h>

#include <bit>
#include <stdexcept>

#include "common/cs/linear_combination.hpp"

namespace cuzk::r1cs {

namespace {

constexpr std::size_t INITIAL_SLOTS = 1024;

// Montgomery forms of the coefficients circuits use (small integers, powers of two, hash constants) are
// spread over the field, so one limb and a multiplication spread them over the slots.
std::size_t slot_of(const ff::fr_t& c, std::size_t slots) {
    return std::size_t((c.l[0] * 0x9e3779b97f4a7c15ULL) >> (64 - std::countr_zero(slots)));
}

}  // namespace

coefficient_table::coefficient_table() : slots_(INITIAL_SLOTS, 0) {
    values_.reserve(64);
    values_.push_back(cs::FR_ONE);
    values_.push_back(cs::FR_MINUS_ONE);
    insert(0);
    insert(1);
}

void coefficient_table::insert(std::uint32_t index) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = slot_of(values_[index], slots_.size());
    while (slots_[s] != 0) s = (s + 1) & mask;
    slots_[s] = index + 1;
}

void coefficient_table::grow() {
    slots_.assign(slots_.size() * 2, 0);
    for (std::uint32_t i = 0; i < values_.size(); ++i) insert(i);
}

std::uint16_t coefficient_table::lookup(const ff::fr_t& c) {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t s = slot_of(c, slots_.size());; s = (s + 1) & mask) {
        const std::uint32_t v = slots_[s];
        if (v == 0) break;
        if (values_[v - 1] == c) return std::uint16_t(v - 1);
    }
    if (values_.size() == CAPACITY)
        throw std::length_error(fmt::format(
            "the circuit needs more than {} distinct coefficients, the most a 16-bit coefficient index reaches in "
            "the R1CS matrix format",
            CAPACITY));
    values_.push_back(c);
    if (2 * values_.size() > slots_.size())
        grow();
    else
        insert(std::uint32_t(values_.size() - 1));
    return std::uint16_t(values_.size() - 1);
}

}  // namespace cuzk::r1cs
