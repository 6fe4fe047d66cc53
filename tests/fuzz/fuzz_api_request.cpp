// The gRPC API's request checks (api/submission.cpp, check_submission: what SubmitProof and Prove run on
// Curio's request before anything is spooled), on a cuzk.v1.ProveRequest parsed from the input as gRPC parses
// it off the wire; the same bytes read as a PreloadSrsRequest go through the circuit id check of PreloadSRS and
// EvictSRS (api/circuit_ids.cpp, circuit_spec_of).
// Invariants: only api::api_error escapes; a request taken has a kind that follows its proof_kind, the priority
// internal_priority gives, a 64-digit hex digest, and a payload that is the PoRep wrapper as sent, the test job
// JSON as sent, or a PoSt job input whose header names the request's registered proof and proof count.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

// SetLogHandler: protobuf logs every unparsable input it is fed; silenced so the fuzzer's output stays readable.
#include <google/protobuf/stubs/logging.h>

#include "api/api_error.hpp"
#include "api/circuit_ids.hpp"
#include "api/submission.hpp"
#include "common/util/errors.hpp"
#include "cuzk/v1/proving.pb.h"
#include "daemon/post_job_input.hpp"
#include "support/invariant.hpp"

namespace {

using namespace cuzk;

void check_taken(const v1::SubmitProofRequest& r, const api::submission& s) {
    fuzz::check(s.digest.size() == 64 && s.digest.find_first_not_of("0123456789abcdef") == std::string::npos,
                "the digest is not 64 hex digits");
    fuzz::check(s.request_id == r.request_id(), "the request id is not the request's");
    fuzz::check(s.priority == api::internal_priority(r.priority(), r.proof_kind()), "the priority is not the request's");
    switch (static_cast<int>(r.proof_kind())) {
        case v1::POREP_SEAL_COMMIT:
            fuzz::check(s.kind == ipc::proof_kind::porep_c2 && s.payload == r.vanilla_proof(),
                        "a PoRep request is not spooled as sent");
            return;
        case api::test_circuit_kind:
            fuzz::check(s.kind == ipc::proof_kind::test_circuit && s.payload == r.vanilla_proof(),
                        "a test circuit request is not spooled as sent");
            return;
        case v1::WINDOW_POST_PARTITION:
        case v1::WINNING_POST: {
            fuzz::check(s.kind == (r.proof_kind() == v1::WINNING_POST ? ipc::proof_kind::winning_post
                                                                       : ipc::proof_kind::window_post),
                        "a PoSt request has another kind");
            const std::span payload(reinterpret_cast<const std::uint8_t*>(s.payload.data()), s.payload.size());
            try {
                const auto [proof, count] = daemon::parse_post_job_header(payload, "spooled");
                fuzz::check(proof->id == r.registered_proof() &&
                                count == static_cast<std::uint64_t>(r.vanilla_proofs_size()),
                            "the spooled PoSt job input does not name the request's proof and count");
            } catch (const input_error& e) {
                fuzz::invariant_failed("the spooled PoSt job input's header does not parse", e.what());
            }
            return;
        }
        default:
            fuzz::invariant_failed("a request of a kind the service does not take was taken");
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    // A string field that is not UTF-8 fails the parse, as in the server, but would also log a line per input.
    google::protobuf::SetLogHandler(nullptr);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    v1::ProveRequest prove;
    if (prove.ParseFromArray(data, static_cast<int>(size)) && prove.has_submit()) {
        std::optional<api::submission> taken;
        try {
            taken = api::check_submission(prove.submit());
        } catch (const api::api_error&) {
        }
        if (taken) check_taken(prove.submit(), *taken);
    }
    v1::PreloadSrsRequest preload;
    if (preload.ParseFromArray(data, static_cast<int>(size))) {
        try {
            (void)api::circuit_spec_of(preload.circuit_id());
        } catch (const api::api_error&) {
        }
    }
    return 0;
}
