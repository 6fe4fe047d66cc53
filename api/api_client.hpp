// A client of the API, connecting as Curio's lib/cuzk client does: plaintext HTTP/2, 256 MiB messages each
// way, "unix://<path>" or "host:port". `cuzk api` and `cuzk demo` use it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::api {

// "unix:///run/cuzk/cuzk.sock" (also "unix:/path") or "host:port". Throws input_error for anything else.
std::unique_ptr<v1::ProvingEngine::Stub> connect(const std::string& address);

// Curio's PoRep request: vanilla_proof is the JSON of Go's struct {SectorNum, Phase1Out []byte, SectorSize}
// (Go writes []byte as standard base64), registered_proof the Go abi number of the C1's registered proof.
v1::SubmitProofRequest curio_porep_request(const std::string& c1_json, std::uint64_t registered_proof,
                                           std::uint64_t sector_size, std::uint64_t miner_id,
                                           std::uint64_t sector_number);

std::string base64(std::string_view bytes);

// Throws a cuzk error for a gRPC status that is not OK: input_error for the caller's mistakes
// (INVALID_ARGUMENT, NOT_FOUND, UNIMPLEMENTED, FAILED_PRECONDITION, PERMISSION_DENIED), service_unavailable for
// UNAVAILABLE and DEADLINE_EXCEEDED, std::runtime_error otherwise; the text names |call| and the code.
void check(const grpc::Status& s, const char* call);

}  // namespace cuzk::api
