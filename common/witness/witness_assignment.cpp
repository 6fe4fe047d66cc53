#include "common/witness/witness_assignment.hpp"

#include <limits>
#include <stdexcept>

namespace cuzk::witness {

namespace {
// Variable indices are 32-bit (cs::variable); a 32 GiB PoRep partition uses about 2^27.
constexpr std::uint64_t index_limit = std::uint64_t(std::numeric_limits<std::uint32_t>::max()) + 1;
}  // namespace

witness_assignment::witness_assignment() { inputs_.push_back(ff::fr_t::one()); }

cs::variable witness_assignment::alloc(const ff::fr_t& value) {
    const std::uint64_t index = aux_.size();
    if (index == index_limit) throw std::length_error("witness_assignment: too many aux variables for 32-bit indices");
    aux_.push_back(value);
    return cs::variable::aux(std::uint32_t(index));
}

cs::variable witness_assignment::alloc_input(const ff::fr_t& value) {
    if (inputs_.size() == index_limit)
        throw std::length_error("witness_assignment: too many input variables for 32-bit indices");
    inputs_.push_back(value);
    return cs::variable::input(std::uint32_t(inputs_.size() - 1));
}

void witness_assignment::enforce(const cs::linear_combination&, const cs::linear_combination&,
                                 const cs::linear_combination&) {
    ++rows_;
}

void witness_assignment::append(const witness_assignment& part) {
    if (inputs_.size() + part.inputs_.size() - 1 > index_limit || aux_.size() + part.aux_.size() > index_limit)
        throw std::length_error("witness_assignment: too many variables for 32-bit indices");
    inputs_.insert(inputs_.end(), part.inputs_.begin() + 1, part.inputs_.end());
    aux_.append(part.aux_.view());
    rows_ += part.rows_;
}

void witness_assignment::reserve_more(std::uint64_t inputs, std::uint64_t aux, std::uint64_t full_aux) {
    inputs_.reserve(inputs_.size() + inputs);
    aux_.reserve(aux_.size() + aux, aux_.full_count() + full_aux);
}

void witness_assignment::clear() {
    inputs_.resize(1);
    aux_.clear();
    rows_ = 0;
}

}  // namespace cuzk::witness
