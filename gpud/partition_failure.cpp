#include "gpud/partition_failure.hpp"

#include <fmt/format.h>

#include "gpud/device_error.hpp"

namespace cuzk::gpud {

std::string_view to_string(proving_step step) noexcept {
    switch (step) {
        case proving_step::prepare: return "prepare";
        case proving_step::kernels: return "kernels";
        case proving_step::tail: return "tail";
    }
    return "unknown step";
}

partition_failure classify_failure(const std::exception& e, int gpu, unsigned worker, proving_step step) {
    if (dynamic_cast<const device_error*>(&e))
        return {true, fmt::format("GPU {} worker {} {}: device failure: {}", gpu, worker, to_string(step), e.what())};
    return {false, e.what()};
}

}  // namespace cuzk::gpud
