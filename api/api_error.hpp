// A request the API refuses, with the gRPC status code it answers (INVALID_ARGUMENT for the client's
// mistakes, UNIMPLEMENTED for what this service does not prove yet, NOT_FOUND, ...): the message names the
// field and what is wrong with it.
#pragma once

#include <grpcpp/grpcpp.h>

#include <stdexcept>
#include <string>

namespace cuzk::api {

class api_error : public std::runtime_error {
public:
    api_error(grpc::StatusCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
    grpc::StatusCode code() const noexcept { return code_; }
    grpc::Status status() const { return {code_, what()}; }

private:
    grpc::StatusCode code_;
};

}  // namespace cuzk::api
