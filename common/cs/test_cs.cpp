#include "common/cs/test_cs.hpp"

#include <stdexcept>

namespace cuzk::cs {

test_cs::test_cs() {
    nodes_.push_back(ns_node{0, 0, std::string()});
    inputs_.push_back(FR_ONE);
    input_ns_.push_back(0);
}

variable test_cs::alloc(const ff::fr_t& value) {
    aux_.push_back(value);
    aux_ns_.push_back(current_ns_);
    return variable::aux(uint32_t(aux_.size() - 1));
}

variable test_cs::alloc_input(const ff::fr_t& value) {
    inputs_.push_back(value);
    input_ns_.push_back(current_ns_);
    return variable::input(uint32_t(inputs_.size() - 1));
}

void test_cs::store(const linear_combination& lc) {
    for (const term& t : lc) {
        size_t limit = t.var.is_input() ? inputs_.size() : aux_.size();
        if (t.var.index >= limit)
            throw std::out_of_range("test_cs: constraint names a variable that was never allocated (" +
                                    variable_label(t.var) + ") at " + current_path());
        terms_.push_back(t);
    }
}

void test_cs::enforce(const linear_combination& a, const linear_combination& b,
                      const linear_combination& c) {
    stored_constraint s{terms_.size(), uint32_t(a.size()), uint32_t(b.size()), uint32_t(c.size()),
                        current_ns_, nodes_[current_ns_].constraints++};
    store(a);
    store(b);
    store(c);
    constraints_.push_back(s);
}

void test_cs::push_namespace(std::string_view name) {
    nodes_.push_back(ns_node{current_ns_, 0, std::string(name)});
    current_ns_ = uint32_t(nodes_.size() - 1);
}

void test_cs::pop_namespace() {
    if (current_ns_ == 0) throw std::logic_error("test_cs: pop_namespace at the root");
    current_ns_ = nodes_[current_ns_].parent;
}

const ff::fr_t& test_cs::value(variable v) const {
    return v.is_input() ? inputs_.at(v.index) : aux_.at(v.index);
}

void test_cs::set_value(variable v, const ff::fr_t& value) {
    if (v.is_one()) throw std::invalid_argument("test_cs: ONE cannot be reassigned");
    (v.is_input() ? inputs_.at(v.index) : aux_.at(v.index)) = value;
}

test_cs::constraint_view test_cs::constraint(size_t i) const {
    const stored_constraint& s = constraints_.at(i);
    const term* p = terms_.data() + s.offset;
    return {{p, s.a_len}, {p + s.a_len, s.b_len}, {p + s.a_len + s.b_len, s.c_len}};
}

namespace {
ff::fr_t eval(std::span<const term> lc, std::span<const ff::fr_t> in, std::span<const ff::fr_t> aux) {
    ff::fr_t acc;
    for (const term& t : lc) acc += t.coeff * (t.var.is_input() ? in[t.var.index] : aux[t.var.index]);
    return acc;
}
}  // namespace

bool test_cs::is_satisfied(size_t i) const {
    constraint_view c = constraint(i);
    return eval(c.a, inputs_, aux_) * eval(c.b, inputs_, aux_) == eval(c.c, inputs_, aux_);
}

std::optional<size_t> test_cs::first_unsatisfied() const {
    if (inputs_.empty() || inputs_[0] != FR_ONE) return 0;
    for (size_t i = 0; i < constraints_.size(); ++i)
        if (!is_satisfied(i)) return i;
    return std::nullopt;
}

std::optional<std::string> test_cs::which_is_unsatisfied() const {
    auto i = first_unsatisfied();
    if (!i) return std::nullopt;
    return constraint_label(*i);
}

std::string test_cs::path_of(uint32_t ns) const {
    std::vector<uint32_t> chain;
    for (uint32_t n = ns; n != 0; n = nodes_[n].parent) chain.push_back(n);
    std::string path;
    for (size_t k = chain.size(); k-- > 0;) {
        path += nodes_[chain[k]].name;
        path += '/';
    }
    return path;
}

std::string test_cs::constraint_label(size_t i) const {
    const stored_constraint& s = constraints_.at(i);
    return path_of(s.ns) + "constraint " + std::to_string(s.local);
}

std::string test_cs::variable_label(variable v) const {
    const auto& owners = v.is_input() ? input_ns_ : aux_ns_;
    std::string path = v.index < owners.size() ? path_of(owners[v.index]) : std::string("?/");
    return path + (v.is_input() ? "input " : "aux ") + std::to_string(v.index);
}

bool test_cs::verify_inputs(std::span<const ff::fr_t> expected) const {
    if (expected.size() + 1 != inputs_.size()) return false;
    for (size_t i = 0; i < expected.size(); ++i)
        if (inputs_[i + 1] != expected[i]) return false;
    return true;
}

}  // namespace cuzk::cs
