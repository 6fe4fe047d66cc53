// The .vk decoder (common/groth16/params_file.cpp, vk_from_bytes: what read_vk maps and reads): six points,
// the IC count, the IC points, every point fully checked (subgroup included).
// Invariants: only groth16::format_error escapes; a vk that decodes encodes (vk_to_bytes) to the input exactly.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/groth16/params_file.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    const std::span<const std::uint8_t> bytes(data, size);
    groth16::verifying_key vk;
    try {
        vk = groth16::vk_from_bytes(bytes, "fuzz.vk");
    } catch (const groth16::format_error&) {
        return 0;
    }
    fuzz::check(size == groth16::vk_file_bytes(vk.ic.size()), "a decoded vk's size is not vk_file_bytes(ic)");
    const std::vector<std::uint8_t> encoded = groth16::vk_to_bytes(vk);
    fuzz::check(std::equal(encoded.begin(), encoded.end(), bytes.begin(), bytes.end()),
                "vk_to_bytes of a decoded vk differs from its file");
    return 0;
}
