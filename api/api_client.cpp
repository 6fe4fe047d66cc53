#include "api/api_client.hpp"

#include <fmt/format.h>
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>

#include "api/api_server.hpp"
#include "common/util/errors.hpp"
#include "daemon/listen_address.hpp"

namespace cuzk::api {

std::unique_ptr<v1::ProvingEngine::Stub> connect(const std::string& address) {
    const auto where = daemon::parse_listen_address(address, "API address");
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(max_message_bytes);
    args.SetMaxSendMessageSize(max_message_bytes);
    return v1::ProvingEngine::NewStub(grpc::CreateCustomChannel(where.uri(), grpc::InsecureChannelCredentials(), args));
}

std::string base64(std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t v = std::uint8_t(bytes[i]) << 16 | std::uint8_t(bytes[i + 1]) << 8 | std::uint8_t(bytes[i + 2]);
        for (int shift : {18, 12, 6, 0}) out += alphabet[(v >> shift) & 63];
    }
    if (i < bytes.size()) {
        std::uint32_t v = std::uint8_t(bytes[i]) << 16;
        if (i + 1 < bytes.size()) v |= std::uint8_t(bytes[i + 1]) << 8;
        out += alphabet[(v >> 18) & 63];
        out += alphabet[(v >> 12) & 63];
        out += i + 1 < bytes.size() ? alphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

v1::SubmitProofRequest curio_porep_request(const std::string& c1_json, std::uint64_t registered_proof,
                                           std::uint64_t sector_size, std::uint64_t miner_id,
                                           std::uint64_t sector_number) {
    nlohmann::json wrapper{{"SectorNum", sector_number}, {"Phase1Out", base64(c1_json)}, {"SectorSize", sector_size}};
    v1::SubmitProofRequest r;
    r.set_request_id(fmt::format("porep-{}-{}", miner_id, sector_number));
    r.set_proof_kind(v1::POREP_SEAL_COMMIT);
    r.set_sector_size(sector_size);
    r.set_registered_proof(registered_proof);
    r.set_priority(v1::NORMAL);
    r.set_vanilla_proof(wrapper.dump());
    r.set_sector_number(sector_number);
    r.set_miner_id(miner_id);
    return r;
}

void check(const grpc::Status& s, const char* call) {
    if (s.ok()) return;
    const auto text = fmt::format("{}: {} (gRPC status {})", call, s.error_message(), static_cast<int>(s.error_code()));
    switch (s.error_code()) {
        case grpc::StatusCode::INVALID_ARGUMENT:
        case grpc::StatusCode::NOT_FOUND:
        case grpc::StatusCode::UNIMPLEMENTED:
        case grpc::StatusCode::FAILED_PRECONDITION:
        case grpc::StatusCode::PERMISSION_DENIED:
        case grpc::StatusCode::RESOURCE_EXHAUSTED: throw input_error(text);
        case grpc::StatusCode::UNAVAILABLE:
        case grpc::StatusCode::DEADLINE_EXCEEDED: throw service_unavailable(text);
        default: throw std::runtime_error(text);
    }
}

}  // namespace cuzk::api
