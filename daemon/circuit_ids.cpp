#include "daemon/circuit_ids.hpp"

#include <fmt/format.h>

#include <array>
#include <string_view>
#include <utility>

#include "common/circuits/registry.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

namespace {

constexpr std::array<std::pair<std::string_view, std::string_view>, 5> porep_ids{{
    {"porep-2k", "2KiB"}, {"porep-8m", "8MiB"}, {"porep-512m", "512MiB"}, {"porep-32g", "32GiB"}, {"porep-64g", "64GiB"}}};

// Curio's PoSt ids name the 32 GiB sets only (there is no wpost-64g / winning-64g); Window's V1 and V1_1 share one.
// Curio's PoSt and SnapDeals ids (snap-32g, snap-64g: the only sizes its cuzk names).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> post_ids{
    {{"wpost-32g", "post:StackedDrgWindow32GiBV1_1"},
     {"winning-32g", "post:StackedDrgWinning32GiBV1"},
     {"snap-32g", "update:StackedDrgUpdate32GiBV1"},
     {"snap-64g", "update:StackedDrgUpdate64GiBV1"}}};

std::string known_ids() {
    std::string out;
    for (const auto& [id, size] : porep_ids) out += std::string(out.empty() ? "" : ", ") + std::string(id);
    for (const auto& [id, spec] : post_ids) out += ", " + std::string(id);
    return out;
}

}  // namespace

std::string circuit_spec_of(const std::string& id) {
    for (const auto& [name, size] : porep_ids)
        if (id == name) return fmt::format("porep:StackedDrg{}V1_1", size);
    for (const auto& [name, spec] : post_ids)
        if (id == name) return std::string(spec);
    // A PoRep, PoSt or SnapDeals spec is taken as it is once its registered proof is known.
    try {
        if (id.starts_with("porep:")) {
            (void)porep::registered_proof_by_name(id.substr(6));
            return id;
        }
        if (id.starts_with("post:")) {
            (void)post::registered_post_proof_by_name(id.substr(5));
            return id;
        }
        if (id.starts_with("update:")) {
            (void)update::registered_update_proof_by_name(id.substr(7));
            return id;
        }
    } catch (const std::exception& e) {
        throw input_error(fmt::format("circuit_id '{}': {}", id, e.what()));
    }
    if (!id.empty() && id.find('@') == std::string::npos) {
        try {
            (void)circuits::make_circuit(id);
            return id;
        } catch (const std::exception&) {
            // not a test circuit either: the error below names the ids
        }
    }
    throw input_error(fmt::format("circuit_id '{}' is not a parameter set this service knows ({}; or a circuit spec "
                                  "such as porep:StackedDrg2KiBV1 or the test circuit mul:64)",
                                  id, known_ids()));
}

std::string circuit_id_of(const std::string& spec) {
    for (const auto& [name, size] : porep_ids)
        for (const auto* version : {"V1", "V1_1"})
            if (spec == fmt::format("porep:StackedDrg{}{}", size, version)) return std::string(name);
    if (spec == "post:StackedDrgWindow32GiBV1" || spec == "post:StackedDrgWindow32GiBV1_1") return "wpost-32g";
    if (spec == "post:StackedDrgWinning32GiBV1") return "winning-32g";
    if (spec == "update:StackedDrgUpdate32GiBV1") return "snap-32g";
    if (spec == "update:StackedDrgUpdate64GiBV1") return "snap-64g";
    return spec;
}

std::string proof_kind_of(const std::string& spec) {
    if (spec.starts_with("porep:")) return "porep-c2";
    if (spec.starts_with("post:StackedDrgWindow")) return "window-post";
    if (spec.starts_with("post:StackedDrgWinning")) return "winning-post";
    if (spec.starts_with("update:")) return "snap-update";
    return "test-circuit";
}

}  // namespace cuzk::daemon
