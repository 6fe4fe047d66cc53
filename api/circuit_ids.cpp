#include "api/circuit_ids.hpp"

#include "api/api_error.hpp"
#include "common/util/errors.hpp"

namespace cuzk::api {

std::string circuit_spec_of(const std::string& circuit_id) {
    try {
        return daemon::circuit_spec_of(circuit_id);
    } catch (const input_error& e) {
        throw api_error(grpc::StatusCode::INVALID_ARGUMENT, e.what());
    }
}

}  // namespace cuzk::api
