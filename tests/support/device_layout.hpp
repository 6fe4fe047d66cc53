// Copies between the host's field and point types and the device's (gpud/cuda), which share their layouts
// bit for bit: for the tests that run the device arithmetic compiled for the host. Named for the direction
// they go; std::bit_cast checks the sizes and that both types are trivially copyable.
#pragma once

#include <bit>

namespace cuzk::test {

template <class D, class H>
D to_dev(const H& h) {
    return std::bit_cast<D>(h);
}
template <class H, class D>
H to_host(const D& d) {
    return std::bit_cast<H>(d);
}

}  // namespace cuzk::test
