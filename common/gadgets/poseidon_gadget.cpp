#include "common/gadgets/poseidon_gadget.hpp"

#include <array>
#include <charconv>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cuzk::gadgets {

using ff::fr_t;
using poseidon::poseidon_constants;

namespace {

// ---- the plan: neptune's legacy circuit over local slots -------------------------------------
//
// Slot 0 is ONE, slots 1..arity the preimage, slot arity+1+k the variable step k allocates. Each
// step allocates one variable and adds one constraint A * B = C in which C is that variable (with
// coefficient 1) plus an optional constant.

struct plan_term {
    uint32_t slot;
    fr_t coeff;
};

struct plan_step {
    uint32_t a_begin, a_len;
    uint32_t b_begin, b_len;
    uint32_t c_begin, c_len;  // C without the new variable: empty or one constant term
    uint32_t round;           // for namespaces: 0 .. R_F+R_P-1, R_F+R_P for the output
};

struct poseidon_plan {
    size_t arity = 0;
    std::vector<plan_term> terms;
    std::vector<plan_step> steps;

    size_t slots() const { return 1 + arity + steps.size(); }
};

// A linear combination during planning: terms sorted by slot, one per slot. A slot stays once
// named even if its coefficients cancel, as in bellperson's LinearCombination (which merges by
// variable): the set of variables a row names is what density tracking sees.
using sym_lc = std::vector<plan_term>;

sym_lc scaled(const sym_lc& a, const fr_t& k) {
    sym_lc r = a;
    for (auto& t : r) t.coeff *= k;
    return r;
}

sym_lc merged(const sym_lc& a, const sym_lc& b) {
    sym_lc r;
    r.reserve(a.size() + b.size());
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        if (j == b.size() || (i < a.size() && a[i].slot < b[j].slot)) {
            r.push_back(a[i++]);
        } else if (i == a.size() || b[j].slot < a[i].slot) {
            r.push_back(b[j++]);
        } else {
            r.push_back({a[i].slot, a[i].coeff + b[j].coeff});
            ++i, ++j;
        }
    }
    return r;
}

// neptune's Elt: an allocated variable, or a linear combination not yet allocated.
struct elt {
    bool allocated = false;
    uint32_t slot = 0;
    sym_lc lc;

    static elt var(uint32_t s) { return elt{true, s, {}}; }
    static elt num(sym_lc l) { return elt{false, 0, std::move(l)}; }
    sym_lc as_lc() const { return allocated ? sym_lc{{slot, fr_t::one()}} : lc; }
};

class planner {
public:
    explicit planner(const poseidon_constants& c) : c_(c) { plan_.arity = c.arity; }

    poseidon_plan build() {
        const size_t t = c_.width;
        std::vector<elt> e(t);
        e[0] = elt::num({{0, c_.domain_tag}});
        for (size_t i = 1; i < t; ++i) e[i] = elt::var(uint32_t(i));

        const fr_t* k = c_.compressed_round_constants.data();

        // First full round: the constants before the S-boxes are added inside them.
        {
            const fr_t* pre = k;
            const fr_t* post = k + t;
            k += 2 * t;
            fr_t tag = c_.domain_tag + pre[0];
            tag = tag.sqr().sqr() * tag + post[0];
            e[0] = elt::num({{0, tag}});
            for (size_t i = 1; i < t; ++i) e[i] = sbox_pre_add(e[i], pre[i], post[i]);
            next_round(e);
        }
        for (size_t r = 1; r < c_.half_full_rounds; ++r) {
            for (size_t i = 0; i < t; ++i) e[i] = sbox(e[i], &k[i]);
            k += t;
            next_round(e);
        }
        for (size_t p = 0; p < c_.partial_rounds; ++p) {
            e[0] = sbox(e[0], k++);
            next_round(e);
        }
        for (size_t r = 1; r < c_.half_full_rounds; ++r) {
            for (size_t i = 0; i < t; ++i) e[i] = sbox(e[i], &k[i]);
            k += t;
            next_round(e);
        }
        for (size_t i = 0; i < t; ++i) e[i] = sbox(e[i], nullptr);
        next_round(e);
        if (k != c_.compressed_round_constants.data() + c_.compressed_round_constants.size())
            throw std::logic_error("poseidon gadget: compressed constants not consumed exactly");

        ensure_allocated(e[1]);  // in "round" R_F + R_P: the output
        return std::move(plan_);
    }

private:
    uint32_t next_slot() const { return uint32_t(1 + plan_.arity + plan_.steps.size()); }

    uint32_t push_terms(const sym_lc& lc) {
        uint32_t begin = uint32_t(plan_.terms.size());
        plan_.terms.insert(plan_.terms.end(), lc.begin(), lc.end());
        return begin;
    }

    // One step: a new variable v with A * B = v + c_rest.
    uint32_t step(const sym_lc& a, const sym_lc& b, const sym_lc& c_rest) {
        const uint32_t v = next_slot();
        plan_step s{};
        s.a_begin = push_terms(a);
        s.a_len = uint32_t(a.size());
        s.b_begin = push_terms(b);
        s.b_len = uint32_t(b.size());
        s.c_begin = push_terms(c_rest);
        s.c_len = uint32_t(c_rest.size());
        s.round = uint32_t(round_);
        plan_.steps.push_back(s);
        return v;
    }

    static sym_lc one_var(uint32_t s) { return {{s, fr_t::one()}}; }
    static sym_lc var_plus_const(uint32_t s, const fr_t& k) { return {{0, k}, {s, fr_t::one()}}; }

    // Elt::ensure_allocated(enforce = true): lc * ONE = v.
    uint32_t ensure_allocated(const elt& x) {
        if (x.allocated) return x.slot;
        return step(x.lc, one_var(0), {});
    }
    // AllocatedNum::square: x * x = v.
    uint32_t square(uint32_t x) { return step(one_var(x), one_var(x), {}); }
    // square_sum: (x + k) * (x + k) = v.
    uint32_t square_sum(uint32_t x, const fr_t& k) { return step(var_plus_const(x, k), var_plus_const(x, k), {}); }
    // mul_sum(a, b, pre, post): (b + pre) * a = v - post.
    uint32_t mul_sum(uint32_t a, uint32_t b, const fr_t* pre, const fr_t* post) {
        sym_lc lhs = pre ? var_plus_const(b, *pre) : one_var(b);
        sym_lc rest;
        if (post) rest.push_back({0, -*post});
        return step(lhs, one_var(a), rest);
    }

    // quintic_s_box: allocate the input, x^2, x^4, x^4 * x (+ the round constant after it).
    elt sbox(const elt& x, const fr_t* post) {
        const uint32_t l = ensure_allocated(x);
        const uint32_t l2 = square(l);
        const uint32_t l4 = square(l2);
        return elt::var(mul_sum(l4, l, nullptr, post));
    }
    // quintic_s_box_pre_add on an allocated input: (x+k)^2, ^4, ^4 * (x+k) + k'.
    elt sbox_pre_add(const elt& x, const fr_t& pre, const fr_t& post) {
        const uint32_t l = ensure_allocated(x);
        const uint32_t l2 = square_sum(l, pre);
        const uint32_t l4 = square(l2);
        return elt::var(mul_sum(l4, l, &pre, &post));
    }

    void next_round(std::vector<elt>& e) {
        mix(e, round_);
        ++round_;
    }

    // The linear layer of round |r|, as neptune's product_mds: M, the pre-sparse matrix in the
    // last full round before the partial rounds, a sparse matrix in each partial round.
    void mix(std::vector<elt>& e, size_t r) {
        const size_t t = c_.width;
        const size_t sparse_offset = c_.half_full_rounds - 1;
        std::vector<elt> out(t);
        if (r > sparse_offset && r < c_.half_full_rounds + c_.partial_rounds) {
            const poseidon::sparse_matrix& s = c_.sparse[r - sparse_offset - 1];
            sym_lc first;
            for (size_t i = 0; i < t; ++i) first = merged(first, scaled(e[i].as_lc(), s.w_hat[i]));
            out[0] = elt::num(std::move(first));
            const sym_lc e0 = e[0].as_lc();
            for (size_t j = 1; j < t; ++j) {
                if (e[j].allocated) throw std::logic_error("poseidon gadget: sparse layer on an allocated element");
                out[j] = elt::num(merged(e[j].lc, scaled(e0, s.v_rest[j - 1])));
            }
        } else {
            const poseidon::square_matrix& m = r == sparse_offset ? c_.pre_sparse : c_.mds;
            for (size_t j = 0; j < t; ++j) {
                sym_lc col;
                for (size_t i = 0; i < t; ++i) col = merged(col, scaled(e[i].as_lc(), m(i, j)));
                out[j] = elt::num(std::move(col));
            }
        }
        e = std::move(out);
    }

    const poseidon_constants& c_;
    poseidon_plan plan_;
    size_t round_ = 0;
};

const poseidon_plan& plan_for(const poseidon_constants& c, std::unique_ptr<poseidon_plan>& uncached) {
    constexpr size_t SLOTS = 2 * (poseidon::MAX_ARITY + 1);
    static std::array<std::once_flag, SLOTS> once;
    static std::array<std::unique_ptr<const poseidon_plan>, SLOTS> plans;
    // Plans are shared only for the shared constant sets; other sets (tests, experiments) get one
    // of their own per call.
    if (&c == &poseidon::constants_for(c.arity, c.level)) {
        const size_t slot = (c.level == poseidon::strength::standard ? 0 : poseidon::MAX_ARITY + 1) + c.arity;
        std::call_once(once[slot], [&] { plans[slot] = std::make_unique<const poseidon_plan>(planner(c).build()); });
        return *plans[slot];
    }
    uncached = std::make_unique<poseidon_plan>(planner(c).build());
    return *uncached;
}

// ---- the witness: the native optimized permutation, recording what the plan allocates --------
//
// Same walk as planner::build, on values: per S-box on a combination [input, ^2, ^4, ^5 + k], per
// first-round S-box [(x+k)^2, ^4, ^4 * (x+k) + k'], then the output. Costs one native hash.

inline fr_t* sbox_trace(fr_t& x, const fr_t* post, fr_t* out) {
    const fr_t x2 = x.sqr();
    const fr_t x4 = x2.sqr();
    *out++ = x;
    *out++ = x2;
    *out++ = x4;
    x = x4 * x;
    if (post) x += *post;
    *out++ = x;
    return out;
}

template <size_t W>
void trace_witness(const poseidon_constants& c, std::span<const fr_t> preimage, fr_t* out) {
    const size_t t = W != 0 ? W : c.width;
    fr_t s[W != 0 ? W : poseidon::MAX_LAYER_WIDTH];
    const fr_t* k = c.compressed_round_constants.data();
    size_t round = 0;
    auto mix = [&] {
        const size_t sparse_offset = c.half_full_rounds - 1;
        if (round > sparse_offset && round < c.half_full_rounds + c.partial_rounds)
            poseidon::mix_sparse<W>(s, c.sparse[round - sparse_offset - 1], t);
        else
            poseidon::mix_dense<W>(s, round == sparse_offset ? c.pre_sparse : c.mds, t);
        ++round;
    };
    {
        const fr_t* pre = k;
        const fr_t* post = k + t;
        k += 2 * t;
        fr_t tag = c.domain_tag + pre[0];
        s[0] = tag.sqr().sqr() * tag + post[0];
        for (size_t i = 1; i < t; ++i) {
            const fr_t y = preimage[i - 1] + pre[i];
            const fr_t y2 = y.sqr();
            const fr_t y4 = y2.sqr();
            s[i] = y4 * y + post[i];
            *out++ = y2;
            *out++ = y4;
            *out++ = s[i];
        }
        mix();
    }
    for (size_t r = 1; r < c.half_full_rounds; ++r) {
        for (size_t i = 0; i < t; ++i) out = sbox_trace(s[i], &k[i], out);
        k += t;
        mix();
    }
    for (size_t p = 0; p < c.partial_rounds; ++p) {
        out = sbox_trace(s[0], k++, out);
        mix();
    }
    for (size_t r = 1; r < c.half_full_rounds; ++r) {
        for (size_t i = 0; i < t; ++i) out = sbox_trace(s[i], &k[i], out);
        k += t;
        mix();
    }
    for (size_t i = 0; i < t; ++i) out = sbox_trace(s[i], nullptr, out);
    *out = poseidon::mix_dense_element<W>(s, c.mds, t, 1);
}

void trace(const poseidon_constants& c, std::span<const fr_t> preimage, fr_t* out) {
    switch (c.width) {
        case 3: return trace_witness<3>(c, preimage, out);
        case 5: return trace_witness<5>(c, preimage, out);
        case 9: return trace_witness<9>(c, preimage, out);
        case 12: return trace_witness<12>(c, preimage, out);
        default: return trace_witness<0>(c, preimage, out);
    }
}

void fill(cs::linear_combination& lc, const plan_term* t, uint32_t n, const std::vector<cs::variable>& vars) {
    lc.clear();
    lc.reserve(n);
    for (uint32_t i = 0; i < n; ++i) lc.add_term(vars[t[i].slot], t[i].coeff);
}

void push_round_namespace(cs::constraint_system& cs, uint32_t round, size_t rounds) {
    if (round >= rounds) {
        cs.push_namespace("poseidon hash result");
        return;
    }
    char buf[32] = "poseidon round ";
    auto r = std::to_chars(buf + 15, buf + sizeof(buf), round);
    cs.push_namespace(std::string_view(buf, size_t(r.ptr - buf)));
}

}  // namespace

size_t poseidon_constraints(const poseidon_constants& c) {
    std::unique_ptr<poseidon_plan> own;
    return plan_for(c, own).steps.size();
}

poseidon_output poseidon_hash(cs::constraint_system& cs, std::span<const cs::variable> preimage,
                              std::span<const fr_t> values, const poseidon_constants& c) {
    if (preimage.size() != c.arity)
        throw std::invalid_argument("poseidon gadget: preimage of " + std::to_string(preimage.size()) +
                                    " variables for arity " + std::to_string(c.arity));
    const bool witness = cs.has_witness();
    if (witness && values.size() != c.arity)
        throw std::invalid_argument("poseidon gadget: " + std::to_string(values.size()) + " witness values for arity " +
                                    std::to_string(c.arity));

    std::unique_ptr<poseidon_plan> own;
    const poseidon_plan& plan = plan_for(c, own);

    std::vector<cs::variable> vars(plan.slots());
    vars[0] = cs::variable::one();
    for (size_t i = 0; i < c.arity; ++i) vars[1 + i] = preimage[i];
    // w[k]: the value of the variable step k allocates.
    std::vector<fr_t> w(witness ? plan.steps.size() : 0);
    if (witness) trace(c, values, w.data());

    cs::linear_combination a, b, cc;
    const plan_term* terms = plan.terms.data();
    const size_t first = 1 + c.arity;
    const size_t rounds = c.full_rounds + c.partial_rounds;
    // One namespace per round, for test_cs diagnostics ("poseidon round 12/constraint 3").
    uint32_t open_round = UINT32_MAX;
    for (size_t k = 0; k < plan.steps.size(); ++k) {
        const plan_step& s = plan.steps[k];
        if (s.round != open_round) {
            if (open_round != UINT32_MAX) cs.pop_namespace();
            push_round_namespace(cs, s.round, rounds);
            open_round = s.round;
        }
        const cs::variable v = cs.alloc(witness ? w[k] : fr_t{});
        vars[first + k] = v;
        fill(a, terms + s.a_begin, s.a_len, vars);
        fill(b, terms + s.b_begin, s.b_len, vars);
        fill(cc, terms + s.c_begin, s.c_len, vars);
        cc.add_term(v);
        cs.enforce(a, b, cc);
    }
    if (open_round != UINT32_MAX) cs.pop_namespace();
    return {vars.back(), witness ? w.back() : fr_t{}};
}

poseidon_output poseidon_hash(cs::constraint_system& cs, std::span<const cs::variable> preimage,
                              std::span<const fr_t> values) {
    return poseidon_hash(cs, preimage, values, poseidon::constants_for(preimage.size()));
}

}  // namespace cuzk::gadgets
