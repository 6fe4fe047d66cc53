#include "common/cs/checking_cs.hpp"

namespace cuzk::cs {

checking_cs::checking_cs() { inputs_.push_back(ff::fr_t::one()); }

variable checking_cs::alloc(const ff::fr_t& value) {
    aux_.push_back(value);
    return variable::aux(uint32_t(aux_.size() - 1));
}

variable checking_cs::alloc_input(const ff::fr_t& value) {
    inputs_.push_back(value);
    return variable::input(uint32_t(inputs_.size() - 1));
}

void checking_cs::enforce(const linear_combination& a, const linear_combination& b, const linear_combination& c) {
    ++constraints_;
    if (a.evaluate(inputs_, aux_) * b.evaluate(inputs_, aux_) == c.evaluate(inputs_, aux_)) return;
    if (failures_++ == 0) {
        std::string where;
        for (const std::string& p : path_) where += (where.empty() ? "" : "/") + p;
        first_failure_ = where + " (constraint " + std::to_string(constraints_ - 1) + ")";
    }
}

void checking_cs::push_namespace(std::string_view name) { path_.emplace_back(name); }

void checking_cs::pop_namespace() {
    if (!path_.empty()) path_.pop_back();
}

}  // namespace cuzk::cs
