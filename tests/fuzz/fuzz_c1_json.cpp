// The PoRep C1 JSON parser (common/c1/c1_json.cpp: filecoin-ffi's SealCommitPhase1Output, or lotus-bench's
// c2in.json wrapper around it), then what assemblerd and synthd check of a parsed C1 (daemon/porep_job_input.cpp):
// check_consistency, the registered proof and the public inputs, and of a C1 that passes those, every
// partition's witness as synthd takes it out (porep::witness_of).
// Invariants: only cuzk::input_error escapes; a C1 that parses is written back by write_c1_json (the form the
// test sealer writes) to JSON that parses to the same C1.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/util/errors.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    c1::seal_commit_phase1_output c1;
    try {
        c1 = c1::parse_c1_json(text, "fuzz input");
    } catch (const input_error&) {
        return 0;
    }

    const std::string rewritten = c1::write_c1_json(c1);
    try {
        fuzz::check(c1::parse_c1_json(rewritten, "rewritten") == c1, "write_c1_json then parse_c1_json differs");
    } catch (const input_error& e) {
        fuzz::invariant_failed("parse_c1_json refuses what write_c1_json wrote", e.what());
    }

    try {
        c1::check_consistency(c1, "fuzz input");
        const porep::registered_proof& proof = porep::registered_proof_of(c1);
        (void)porep::public_inputs_of(c1);
        for (unsigned k = 0; k < proof.partitions; ++k) (void)porep::witness_of(c1, proof, k);
    } catch (const input_error&) {
    }
    return 0;
}
