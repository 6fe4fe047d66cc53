#include "daemon/porep_job_input.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "common/porep/c1_witness.hpp"
#include "common/util/errors.hpp"

namespace cuzk::daemon {

std::string porep_job_input::circuit() const { return "porep:" + std::string(proof->name); }

std::vector<ff::fr_t> porep_job_input::partition_inputs(std::uint32_t partition) const {
    return porep::generate_public_inputs(*proof, *graph, public_inputs, partition);
}

porep::partition_witness porep_job_input::partition_witness(std::uint32_t partition) const {
    if (!c1) throw std::logic_error("porep_job_input: the C1 was not kept");
    return porep::witness_of(*c1, *proof, partition);
}

porep_job_input read_porep_job_input(const std::filesystem::path& path, const std::string& source, bool keep_c1) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw input_error(fmt::format("{}: cannot read the C1 file", source));
    std::ostringstream text;
    text << f.rdbuf();
    if (!f.good() && !f.eof()) throw input_error(fmt::format("{}: read error", source));
    auto c1 = std::make_shared<c1::seal_commit_phase1_output>(c1::parse_c1_json(text.str(), source));
    c1::check_consistency(*c1, source);
    porep_job_input in;
    try {
        in.proof = &porep::registered_proof_of(*c1);
        in.public_inputs = porep::public_inputs_of(*c1);
    } catch (const input_error& e) {
        throw input_error(fmt::format("{}: {}", source, e.what()));
    }
    in.graph = std::make_shared<const graph::stacked_graph>(porep::graph_of(*in.proof));
    if (keep_c1) in.c1 = std::move(c1);
    return in;
}

}  // namespace cuzk::daemon
