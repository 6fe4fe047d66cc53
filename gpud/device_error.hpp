// A failure of the proving device (the GPU, its driver or its context) as opposed to one of the input: the
// same partition may prove on a retry, on this GPU or another. Backends throw a subtype (cuda::cuda_error);
// gpud classifies by this base (partition_failure.hpp), so it needs no backend's headers.
#pragma once

#include <stdexcept>

namespace cuzk::gpud {

class device_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace cuzk::gpud
