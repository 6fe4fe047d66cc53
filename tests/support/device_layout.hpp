// Copies between the host's field and point types and the device's (gpud/cuda), which share their layouts
// bit for bit: for the tests that run the device arithmetic compiled for the host.
#pragma once

#include <cstring>

namespace cuzk::test {

template <class D, class H>
D to_dev(const H& h) {
    static_assert(sizeof(D) == sizeof(H));
    D d;
    std::memcpy(static_cast<void*>(&d), &h, sizeof d);
    return d;
}
template <class H, class D>
H to_host(const D& d) {
    static_assert(sizeof(D) == sizeof(H));
    H h;
    std::memcpy(static_cast<void*>(&h), &d, sizeof h);
    return h;
}

}  // namespace cuzk::test
