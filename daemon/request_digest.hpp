// The digest that, with the client's request id, tells a retried submission (the same request sent again:
// one job) from another request under a used id (a new job). Hex SHA-256 over the parts, each prefixed with
// its length, so that no two different lists of parts give the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuzk::daemon {

class request_digest {
public:
    request_digest();
    ~request_digest();
    request_digest(const request_digest&) = delete;
    request_digest& operator=(const request_digest&) = delete;

    request_digest& add(std::string_view part);
    request_digest& add(std::uint64_t number);
    std::string hex();  // once

private:
    void* ctx_;  // EVP_MD_CTX
};

}  // namespace cuzk::daemon
