// The ZeroMQ control protocol's frame decoder (ipc/messages.cpp, decode): what every daemon reads off its
// sockets, from clients and from the other stages.
// Invariants: only ipc::protocol_error escapes; a frame that decodes encodes (encode) to itself exactly, and
// its type is the frame's type byte, as peek_type reads it.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "ipc/messages.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    const auto frame = std::as_bytes(std::span(data, size));
    ipc::message m;
    try {
        m = ipc::decode(frame);
    } catch (const ipc::protocol_error&) {
        return 0;
    }
    fuzz::check(static_cast<std::uint8_t>(ipc::type_of(m)) == data[3], "decoded message of another type than the frame's");
    fuzz::check(ipc::peek_type(frame) == data[3], "peek_type differs from the frame's type byte");
    const std::vector<std::byte> encoded = ipc::encode(m);
    fuzz::check(std::equal(encoded.begin(), encoded.end(), frame.begin(), frame.end()),
                "encode of a decoded frame differs from the frame");
    return 0;
}
