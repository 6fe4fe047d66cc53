#include "common/groth16/proving_assignment.hpp"

#include <bit>
#include <stdexcept>

namespace cuzk::groth16 {

namespace {

// <lc, w>, setting the density bit of every input (aux) variable named when |inputs_density|
// (|aux_density|) is given. Witness bits dominate PoRep: zeros cost a test, unit coefficients
// skip the multiplication.
ff::fr_t eval(const cs::linear_combination& lc, const std::vector<ff::fr_t>& inputs,
              const std::vector<ff::fr_t>& aux, density_bitmap* input_density, density_bitmap* aux_density) {
    ff::fr_t acc;
    for (const cs::term& t : lc) {
        const ff::fr_t* w;
        if (t.var.is_input()) {
            if (input_density) input_density->set(t.var.index);
            w = &inputs[t.var.index];
        } else {
            if (aux_density) aux_density->set(t.var.index);
            w = &aux[t.var.index];
        }
        if (w->is_zero()) continue;
        if (t.coeff == cs::FR_ONE)
            acc += *w;
        else
            acc += t.coeff * *w;
    }
    return acc;
}

}  // namespace

size_t density_bitmap::count() const {
    size_t n = 0;
    for (uint64_t w : words_) n += size_t(std::popcount(w));
    return n;
}

proving_assignment::proving_assignment() {
    inputs_.push_back(ff::fr_t::one());
    b_input_density_.push_back(false);
}

void proving_assignment::check_open() const {
    if (finished_) throw std::logic_error("proving_assignment: the system was finished; no more variables or rows");
}

cs::variable proving_assignment::alloc(const ff::fr_t& value) {
    check_open();
    aux_.push_back(value);
    a_aux_density_.push_back(false);
    b_aux_density_.push_back(false);
    return cs::variable::aux(uint32_t(aux_.size() - 1));
}

cs::variable proving_assignment::alloc_input(const ff::fr_t& value) {
    check_open();
    inputs_.push_back(value);
    b_input_density_.push_back(false);
    return cs::variable::input(uint32_t(inputs_.size() - 1));
}

void proving_assignment::enforce(const cs::linear_combination& a, const cs::linear_combination& b,
                                 const cs::linear_combination& c) {
    check_open();
    a_.push_back(eval(a, inputs_, aux_, nullptr, &a_aux_density_));
    b_.push_back(eval(b, inputs_, aux_, &b_input_density_, &b_aux_density_));
    c_.push_back(eval(c, inputs_, aux_, nullptr, nullptr));
}

void proving_assignment::finish() {
    check_open();
    circuit_rows_ = a_.size();
    size_t rows = a_.size() + inputs_.size();
    a_.reserve(rows);
    b_.reserve(rows);
    c_.reserve(rows);
    // input_i * 0 = 0: A takes the input's value; B and C are empty.
    for (const ff::fr_t& x : inputs_) {
        a_.push_back(x);
        b_.push_back(ff::fr_t::zero());
        c_.push_back(ff::fr_t::zero());
    }
    finished_ = true;
}

void proving_assignment::release_rows() {
    std::vector<ff::fr_t>().swap(a_);
    std::vector<ff::fr_t>().swap(b_);
    std::vector<ff::fr_t>().swap(c_);
}

}  // namespace cuzk::groth16
