// Error types that reach users. An input_error is the user's to fix (a bad file, flag or request): the CLI
// exits 2 and a daemon answers with an error reply; its message names what was wrong and where.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk {

class input_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The service did not answer (not running, or busy): the CLI exits 3.
class service_unavailable : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Work given up because the process is stopping (a parameters load under way at gpud's shutdown, std::stop_token):
// neither the user's fault nor a failure of the work; whoever waited for it hands its own work on (gpud: the
// partition goes back READY for the next gpud).
class abandoned_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace cuzk
