// The abstract rank-1 constraint system that circuits and gadgets synthesize into:
// allocate variables, enforce <a,w> * <b,w> = <c,w>. One synthesis routine serves every purpose;
// the implementation decides what is kept:
//   counting_cs    - numbers only (circuit sizes, tests of gadget costs);
//   test_cs        - everything, with namespace paths, to check satisfaction in tests;
//   prover / setup - (groth16) per-constraint evaluations and density, or matrix columns.
//
// Synthesis must be deterministic: the same circuit makes the same sequence of alloc, alloc_input
// and enforce calls in every mode, with or without a witness, so that variable and constraint
// indices agree between setup and proving.
#pragma once

#include <charconv>
#include <cstddef>
#include <string_view>

#include "common/cs/linear_combination.hpp"
#include "common/cs/variable.hpp"

namespace cuzk::cs {

class constraint_system {
public:
    virtual ~constraint_system() = default;

    // A new private variable. |value| is its witness value, ignored when !has_witness().
    virtual variable alloc(const ff::fr_t& value) = 0;
    // A new public input (index >= 1; input 0 is ONE). |value| ignored when !has_witness().
    virtual variable alloc_input(const ff::fr_t& value) = 0;
    // Adds the constraint <a,w> * <b,w> = <c,w>. The combinations are only borrowed for the call.
    virtual void enforce(const linear_combination& a, const linear_combination& b,
                         const linear_combination& c) = 0;
    // False in counting and setup modes: values passed to alloc are meaningless there, and
    // gadgets may skip work that only serves the witness.
    virtual bool has_witness() const = 0;

    // Namespaces only label constraints for diagnostics (test_cs); the default ignores them.
    virtual void push_namespace(std::string_view /*name*/) {}
    virtual void pop_namespace() {}

    static constexpr variable one() { return variable::one(); }
};

// RAII namespace: pushes on construction, pops on destruction. The indexed form renders
// "<name> <index>" in a stack buffer, so labelling rounds costs no heap allocation.
class namespace_scope {
public:
    namespace_scope(constraint_system& cs, std::string_view name) : cs_(cs) { cs_.push_namespace(name); }
    namespace_scope(constraint_system& cs, std::string_view name, size_t index) : cs_(cs) {
        char buf[96];
        size_t n = name.size() < 72 ? name.size() : 72;
        for (size_t i = 0; i < n; ++i) buf[i] = name[i];
        buf[n++] = ' ';
        auto r = std::to_chars(buf + n, buf + sizeof(buf), index);
        cs_.push_namespace(std::string_view(buf, size_t(r.ptr - buf)));
    }
    ~namespace_scope() { cs_.pop_namespace(); }
    namespace_scope(const namespace_scope&) = delete;
    namespace_scope& operator=(const namespace_scope&) = delete;

private:
    constraint_system& cs_;
};

}  // namespace cuzk::cs
