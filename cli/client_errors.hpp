// The failures the command line gives their own exit codes beyond common/util/errors.hpp's (bad input: 2, service
// unavailable: 3): a busy service (5) and a permission the user lacks (6). Each is something else to do than
// for bad input: retry later, or run as another user / join a group, never change the request.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::cli {

// The service answered but refuses more work now (assemblerd's queue_full, the API's RESOURCE_EXHAUSTED): the
// same request succeeds later. The CLI exits 5 (exit_busy).
class service_busy : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// This user may not open a socket or file (EACCES / EPERM); the message names the path and the likely fix
// (cli/access_check.hpp). The CLI exits 6 (exit_permission).
class permission_denied : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace cuzk::cli
