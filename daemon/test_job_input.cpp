#include "daemon/test_job_input.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "common/circuits/registry.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

std::string test_job_input::partition_spec(std::uint32_t partition) const {
    return fmt::format("{}@{}", circuit, seed + partition);
}

std::string test_job_input::to_json() const {
    return nlohmann::json{{"circuit", circuit}, {"partitions", partitions}, {"seed", seed}}.dump();
}

test_job_input parse_test_job_input(const std::string& text, const std::string& where) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for a number too large
        throw input_error(fmt::format("{}: not a test-circuit job (JSON): {}", where, e.what()));
    }
    if (!j.is_object()) throw input_error(fmt::format("{}: a test-circuit job is a JSON object", where));
    for (auto it = j.begin(); it != j.end(); ++it) {
        if (it.key() != "circuit" && it.key() != "partitions" && it.key() != "seed")
            throw input_error(fmt::format("{}: unknown field '{}' (fields: circuit, partitions, seed)", where, it.key()));
    }
    test_job_input in;
    if (!j.contains("circuit") || !j["circuit"].is_string())
        throw input_error(fmt::format("{}: field 'circuit' (a string like \"mul:64\") is missing", where));
    in.circuit = j["circuit"].get<std::string>();
    if (in.circuit.find('@') != std::string::npos)
        throw input_error(fmt::format("{}: field 'circuit' is '{}': give the seed in the field 'seed', not after '@'",
                                      where, in.circuit));
    try {
        circuits::check_circuit_spec(in.circuit);  // not make_circuit: it seals the small PoRep sizes' sectors
    } catch (const std::invalid_argument& e) {
        throw input_error(fmt::format("{}: field 'circuit': {}", where, e.what()));
    } catch (const input_error& e) {  // an unknown registered proof in porep:<name> or post:<name>
        throw input_error(fmt::format("{}: field 'circuit': {}", where, e.what()));
    }
    if (j.contains("partitions")) {
        const auto& p = j["partitions"];
        if (!p.is_number_unsigned() || p.get<std::uint64_t>() < 1 || p.get<std::uint64_t>() > max_test_partitions)
            throw input_error(fmt::format("{}: field 'partitions' must be an integer in 1..{}", where, max_test_partitions));
        in.partitions = p.get<std::uint32_t>();
    }
    if (j.contains("seed")) {
        if (!j["seed"].is_number_unsigned()) throw input_error(fmt::format("{}: field 'seed' must be an unsigned integer", where));
        in.seed = j["seed"].get<std::uint64_t>();
    }
    return in;
}

test_job_input read_test_job_input(const std::filesystem::path& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw input_error(fmt::format("{}: cannot read the job input", path.string()));
    std::ostringstream s;
    s << f.rdbuf();
    return parse_test_job_input(s.str(), path.string());
}

}  // namespace cuzk::daemon
