#include "common/groth16/keypair_assembly.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cuzk::groth16 {

namespace {

void push_zero(qap_columns& q) {
    q.at.emplace_back();
    q.bt.emplace_back();
    q.ct.emplace_back();
}

}  // namespace

keypair_assembly::keypair_assembly(std::span<const ff::fr_t> lagrange) : lagrange_(lagrange) {
    push_zero(inputs_);  // ONE
}

cs::variable keypair_assembly::alloc(const ff::fr_t&) {
    if (finished_) throw std::logic_error("keypair_assembly: alloc after finish()");
    push_zero(aux_);
    return cs::variable::aux(uint32_t(aux_.size() - 1));
}

cs::variable keypair_assembly::alloc_input(const ff::fr_t&) {
    if (finished_) throw std::logic_error("keypair_assembly: alloc_input after finish()");
    push_zero(inputs_);
    return cs::variable::input(uint32_t(inputs_.size() - 1));
}

void keypair_assembly::add_row(const cs::linear_combination& lc, std::vector<ff::fr_t> qap_columns::*col,
                               const ff::fr_t& l) {
    for (const cs::term& t : lc) {
        qap_columns& q = t.var.is_input() ? inputs_ : aux_;
        ff::fr_t& acc = (q.*col)[t.var.index];
        acc += t.coeff == cs::FR_ONE ? l : t.coeff * l;
    }
}

void keypair_assembly::enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                               const cs::linear_combination& c) {
    if (finished_) throw std::logic_error("keypair_assembly: enforce after finish()");
    if (rows_ >= lagrange_.size())
        throw std::length_error(fmt::format(
            "keypair_assembly: row {} is beyond the {} rows of the domain (was synthesis not deterministic?)", rows_,
            lagrange_.size()));
    const ff::fr_t& l = lagrange_[rows_];
    add_row(a, &qap_columns::at, l);
    add_row(b, &qap_columns::bt, l);
    add_row(c, &qap_columns::ct, l);
    ++rows_;
}

void keypair_assembly::finish() {
    if (finished_) throw std::logic_error("keypair_assembly: finish() called twice");
    if (rows_ + inputs_.size() > lagrange_.size())
        throw std::length_error(fmt::format("keypair_assembly: {} rows and {} input rows exceed the {} of the domain",
                                            rows_, inputs_.size(), lagrange_.size()));
    for (size_t i = 0; i < inputs_.size(); ++i) inputs_.at[i] += lagrange_[rows_ + i];
    rows_ += inputs_.size();
    finished_ = true;
}

}  // namespace cuzk::groth16
