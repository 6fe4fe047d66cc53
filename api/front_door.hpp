// How the API reaches the service: the daemons' own control protocol, over the same sockets `cuzk` uses
// (assemblerd's request socket for jobs, each gpud's for parameters, every daemon's for status), one REQ
// socket per call. The gRPC handlers run on gRPC's threads; assemblerd's loop stays the only owner of the job
// table, and an API job is a job like any other.
#pragma once

#include <chrono>
#include <string>

#include "daemon/config.hpp"
#include "ipc/messages.hpp"

namespace cuzk::api {

class front_door {
public:
    explicit front_door(const daemon::config& c) : config_(c) {}

    const daemon::config& config() const noexcept { return config_; }
    // A request to the daemon of |socket_name|; an ERROR_REPLY, no answer within |timeout|, or a reply that
    // does not decode throws api_error with the gRPC code that fits (INVALID_ARGUMENT, NOT_FOUND,
    // RESOURCE_EXHAUSTED, UNAVAILABLE, INTERNAL).
    ipc::message call(std::string_view socket_name, const ipc::message& m, std::chrono::milliseconds timeout) const;
    ipc::message call_assemblerd(const ipc::message& m, std::chrono::milliseconds timeout) const;

private:
    daemon::config config_;
};

}  // namespace cuzk::api
