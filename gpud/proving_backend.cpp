#include "gpud/proving_backend.hpp"

#include <fmt/format.h>

#include "common/util/errors.hpp"
#include "gpud/cpu_backend.hpp"

namespace cuzk::gpud {

std::unique_ptr<proving_backend> make_backend(std::string_view name, int /*gpu*/) {
    if (name == "cpu") return std::make_unique<cpu_backend>();
    throw input_error(fmt::format("[gpud] backend '{}' is not available in this build (available: cpu)", name));
}

}  // namespace cuzk::gpud
