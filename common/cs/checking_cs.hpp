// A constraint system that checks each constraint against the witness as it is enforced and then
// forgets it: it keeps only the assignment (32 bytes per variable), so a whole PoRep partition can be
// checked for satisfaction in a few hundred MB where test_cs would need tens of GB. It remembers the
// first failing constraint with the namespace path open when it was enforced.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::cs {

class checking_cs final : public constraint_system {
public:
    checking_cs();

    variable alloc(const ff::fr_t& value) override;
    variable alloc_input(const ff::fr_t& value) override;
    void enforce(const linear_combination& a, const linear_combination& b, const linear_combination& c) override;
    bool has_witness() const override { return true; }
    void push_namespace(std::string_view name) override;
    void pop_namespace() override;

    uint64_t num_constraints() const { return constraints_; }
    size_t num_inputs() const { return inputs_.size(); }  // including ONE
    size_t num_aux() const { return aux_.size(); }
    std::span<const ff::fr_t> inputs() const { return inputs_; }
    std::span<const ff::fr_t> aux() const { return aux_; }

    bool is_satisfied() const { return !first_failure_.has_value(); }
    // "<namespace path> (constraint <global index>)" of the first failure.
    std::optional<std::string> first_failure() const { return first_failure_; }
    uint64_t failures() const { return failures_; }

private:
    std::vector<ff::fr_t> inputs_;
    std::vector<ff::fr_t> aux_;
    std::vector<std::string> path_;
    uint64_t constraints_ = 0;
    uint64_t failures_ = 0;
    std::optional<std::string> first_failure_;
};

}  // namespace cuzk::cs
