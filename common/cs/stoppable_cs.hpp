// A constraint system that passes every call on to another and gives up once asked to stop: every 2^16
// constraints it looks at a std::stop_token and throws abandoned_error. For syntheses that take minutes and
// that a stopping process should not wait for (recording a 32 GiB PoRep circuit's matrices: ~130 M constraints).
#pragma once

#include <cstdint>
#include <stop_token>
#include <string>
#include <utility>

#include "common/cs/constraint_system.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cs {

class stoppable_cs final : public constraint_system {
public:
    // |what| names the synthesis in the error ("recording the matrices of porep:...").
    stoppable_cs(constraint_system& inner, std::stop_token stop, std::string what)
        : inner_(inner), stop_(std::move(stop)), what_(std::move(what)) {}

    variable alloc(const ff::fr_t& value) override { return inner_.alloc(value); }
    variable alloc_input(const ff::fr_t& value) override { return inner_.alloc_input(value); }
    void enforce(const linear_combination& a, const linear_combination& b, const linear_combination& c) override {
        // One atomic load per 65,536 constraints: nothing beside the constraint's own work.
        if ((++constraints_ & 0xffff) == 0 && stop_.stop_requested())
            throw abandoned_error(what_ + " abandoned after " + std::to_string(constraints_) +
                                  " constraints (asked to stop)");
        inner_.enforce(a, b, c);
    }
    bool has_witness() const override { return inner_.has_witness(); }
    void push_namespace(std::string_view name) override { inner_.push_namespace(name); }
    void pop_namespace() override { inner_.pop_namespace(); }

private:
    constraint_system& inner_;
    std::stop_token stop_;
    std::string what_;
    std::uint64_t constraints_ = 0;
};

}  // namespace cuzk::cs
