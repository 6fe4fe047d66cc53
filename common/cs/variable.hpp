// A variable of a rank-1 constraint system: an index into either the public inputs or the private
// auxiliary (witness) assignment. The two kinds are numbered separately, as in bellperson; input 0
// is the constant ONE, present in every system.
#pragma once

#include <cstdint>

namespace cuzk::cs {

struct variable {
    enum class kind : uint8_t { aux = 0, input = 1 };

    uint32_t index = 0;  // position in the input or in the aux assignment
    kind type = kind::aux;

    static constexpr variable input(uint32_t i) { return variable{i, kind::input}; }
    static constexpr variable aux(uint32_t i) { return variable{i, kind::aux}; }
    static constexpr variable one() { return input(0); }

    constexpr bool is_input() const { return type == kind::input; }
    constexpr bool is_aux() const { return type == kind::aux; }
    constexpr bool is_one() const { return is_input() && index == 0; }

    friend constexpr bool operator==(const variable&, const variable&) = default;
};

static_assert(sizeof(variable) == 8, "a term is a variable and a coefficient: keep the variable small");

}  // namespace cuzk::cs
