// cuzk.v1.ProvingEngine over the service's own protocol (front_door). Every call is checked before anything
// is queued; what the client got wrong is INVALID_ARGUMENT naming the field, what is not proved yet
// UNIMPLEMENTED; failures while proving are a reply with status FAILED and the service's error text.
//   SubmitProof  the request's input spooled (<spool>/incoming), SUBMIT to assemblerd; the same request
//                (request_id and digest of every field) again is the same job, another request under a used
//                request_id a new one.
//   AwaitProof   AWAIT in turns of a second until the job ends or timeout_ms passes (TIMEOUT; the job goes
//                on) or the client goes away. The reply of a done job delivers its proof (assemblerd then
//                keeps the result only a grace period).
//   Prove        SubmitProof + AwaitProof (no timeout but the client's deadline).
//   CancelProof  CANCEL; was_running when partitions were in synthesis or on a GPU.
//   GetStatus    every daemon's status, as GPUs, parameter sets, queues and totals.
//   GetMetrics   the Prometheus text of /metrics.
//   PreloadSRS / EvictSRS  PARAMS_REQUEST to every gpud (circuit ids: circuit_ids.hpp).
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include "api/front_door.hpp"
#include "daemon/listen_address.hpp"
#include "cuzk/v1/proving.grpc.pb.h"

namespace cuzk::api {

class proving_engine final : public v1::ProvingEngine::Service {
public:
    // |metrics_text|: the Prometheus exposition (assemblerd's metrics). |stopping|: set when the server shuts
    // down, so that waiting calls return (UNAVAILABLE) instead of holding the shutdown.
    proving_engine(const daemon::config& c, std::function<std::string()> metrics_text, const std::atomic<bool>& stopping);

    grpc::Status SubmitProof(grpc::ServerContext*, const v1::SubmitProofRequest*, v1::SubmitProofResponse*) override;
    grpc::Status AwaitProof(grpc::ServerContext*, const v1::AwaitProofRequest*, v1::AwaitProofResponse*) override;
    grpc::Status Prove(grpc::ServerContext*, const v1::ProveRequest*, v1::ProveResponse*) override;
    grpc::Status CancelProof(grpc::ServerContext*, const v1::CancelProofRequest*, v1::CancelProofResponse*) override;
    grpc::Status GetStatus(grpc::ServerContext*, const v1::GetStatusRequest*, v1::GetStatusResponse*) override;
    grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*, v1::GetMetricsResponse*) override;
    grpc::Status PreloadSRS(grpc::ServerContext*, const v1::PreloadSrsRequest*, v1::PreloadSrsResponse*) override;
    grpc::Status EvictSRS(grpc::ServerContext*, const v1::EvictSrsRequest*, v1::EvictSrsResponse*) override;

private:
    v1::SubmitProofResponse submit(const v1::SubmitProofRequest& r);
    void await(grpc::ServerContext& ctx, std::uint64_t job, std::uint64_t timeout_ms, v1::AwaitProofResponse& out);
    ipc::params_reply_msg params_in_every_gpud(ipc::params_action action, const std::string& circuit_id);
    // Runs |body|, answering what it throws: api_error with its code, anything else INTERNAL (logged).
    grpc::Status guarded(grpc::ServerContext& ctx, const char* call, const std::function<void()>& body);

    front_door door_;
    daemon::network_list allowed_;  // [api] allow_from; loopback and Unix socket peers are always allowed
    std::function<std::string()> metrics_text_;
    const std::atomic<bool>& stopping_;
};

}  // namespace cuzk::api
