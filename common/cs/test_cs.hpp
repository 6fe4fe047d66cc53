// A constraint system for tests: keeps the full assignment and every constraint (terms in one flat
// arena), labels each constraint and variable with the namespace path open when it was made, and
// checks satisfaction. Memory grows with the circuit (about 40 bytes per term), so it is meant for
// gadgets and small circuits, not for a PoRep partition.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/cs/constraint_system.hpp"

namespace cuzk::cs {

class test_cs final : public constraint_system {
public:
    test_cs();

    variable alloc(const ff::fr_t& value) override;
    variable alloc_input(const ff::fr_t& value) override;
    void enforce(const linear_combination& a, const linear_combination& b,
                 const linear_combination& c) override;
    bool has_witness() const override { return true; }
    void push_namespace(std::string_view name) override;
    void pop_namespace() override;

    size_t num_constraints() const { return constraints_.size(); }
    size_t num_inputs() const { return inputs_.size(); }  // including ONE
    size_t num_aux() const { return aux_.size(); }

    // The assignment; inputs()[0] is ONE.
    std::span<const ff::fr_t> inputs() const { return inputs_; }
    std::span<const ff::fr_t> aux() const { return aux_; }
    const ff::fr_t& value(variable v) const;
    // Overwrites a value, e.g. to check that a tampered witness is rejected.
    void set_value(variable v, const ff::fr_t& value);

    struct constraint_view {
        std::span<const term> a, b, c;
    };
    constraint_view constraint(size_t i) const;

    // <a,w> * <b,w> == <c,w> for constraint i.
    bool is_satisfied(size_t i) const;
    bool is_satisfied() const { return !first_unsatisfied().has_value(); }
    std::optional<size_t> first_unsatisfied() const;
    // Label of the first failing constraint: "<namespace path>/constraint <k>", k counting the
    // constraints made directly in that namespace; nullopt when all hold.
    std::optional<std::string> which_is_unsatisfied() const;

    std::string constraint_label(size_t i) const;
    // "<namespace path>/aux <index>" or "<namespace path>/input <index>".
    std::string variable_label(variable v) const;
    // Current namespace path ("" at the root).
    std::string current_path() const { return path_of(current_ns_); }

    // True when the public inputs other than ONE equal |expected|.
    bool verify_inputs(std::span<const ff::fr_t> expected) const;

private:
    struct ns_node {
        uint32_t parent;
        uint32_t constraints = 0;  // made directly in this namespace so far
        std::string name;
    };
    struct stored_constraint {
        uint64_t offset;  // first term of a in terms_; b and c follow
        uint32_t a_len, b_len, c_len;
        uint32_t ns;
        uint32_t local;  // index within ns
    };

    std::string path_of(uint32_t ns) const;
    void store(const linear_combination& lc);

    std::vector<ff::fr_t> inputs_;
    std::vector<ff::fr_t> aux_;
    std::vector<uint32_t> input_ns_, aux_ns_;
    std::vector<term> terms_;
    std::vector<stored_constraint> constraints_;
    std::vector<ns_node> nodes_;
    uint32_t current_ns_ = 0;
};

}  // namespace cuzk::cs
