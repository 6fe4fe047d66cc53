// The .params decoder (common/groth16/params_file.cpp, mapped_parameters): the vk section, then the h, l, a,
// b_g1 and b_g2 section counts walked over the mapped file, then every point decoded (read_all, the subgroup
// check off as gpud loads official files).
// Invariants: only groth16::format_error escapes; the sections of an opened file follow each other from the end
// of the vk to the end of the file; every decoded point encodes to the bytes it was read from.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/ec/serialization.hpp"
#include "common/groth16/params_file.hpp"
#include "support/invariant.hpp"
#include "support/memory_file.hpp"

namespace {

using namespace cuzk;

void check_section(const groth16::params_section& s, std::size_t count_offset, const char* name) {
    fuzz::check(s.count_offset == count_offset && s.offset == count_offset + 4, "sections do not follow each other",
                name);
}

template <class P, class Encode>
void check_points(std::span<const std::uint8_t> file, const std::vector<P>& points, const groth16::params_section& s,
                  std::size_t point_bytes, Encode encode, const char* name) {
    fuzz::check(points.size() == s.count, "a section decoded to another number of points", name);
    std::vector<std::uint8_t> buf(point_bytes);
    for (std::size_t i = 0; i < points.size(); ++i) {
        encode(points[i], buf.data());
        fuzz::check(std::equal(buf.begin(), buf.end(), file.begin() + s.offset + i * point_bytes),
                    "a decoded point encodes to other bytes", name);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fuzz::memory_file file;
    file.assign(data, size);
    const std::span<const std::uint8_t> bytes(data, size);
    try {
        const groth16::mapped_parameters params(file.path());
        constexpr std::size_t g1 = ec::G1_UNCOMPRESSED_BYTES, g2 = ec::G2_UNCOMPRESSED_BYTES;
        check_section(params.h_section(), groth16::vk_file_bytes(params.vk().ic.size()), "h");
        check_section(params.l_section(), params.h_section().offset + params.h_section().count * g1, "l");
        check_section(params.a_section(), params.l_section().offset + params.l_section().count * g1, "a");
        check_section(params.b_g1_section(), params.a_section().offset + params.a_section().count * g1, "b_g1");
        check_section(params.b_g2_section(), params.b_g1_section().offset + params.b_g1_section().count * g1, "b_g2");
        fuzz::check(params.b_g2_section().offset + params.b_g2_section().count * g2 == size,
                    "the b_g2 section does not end the file");
        const std::vector<std::uint8_t> vk = groth16::vk_to_bytes(params.vk());
        fuzz::check(std::equal(vk.begin(), vk.end(), bytes.begin()), "the vk section re-encodes to other bytes");

        const groth16::parameters all = params.read_all();
        check_points(bytes, all.h, params.h_section(), g1, ec::g1_to_uncompressed, "h");
        check_points(bytes, all.l, params.l_section(), g1, ec::g1_to_uncompressed, "l");
        check_points(bytes, all.a, params.a_section(), g1, ec::g1_to_uncompressed, "a");
        check_points(bytes, all.b_g1, params.b_g1_section(), g1, ec::g1_to_uncompressed, "b_g1");
        check_points(bytes, all.b_g2, params.b_g2_section(), g2, ec::g2_to_uncompressed, "b_g2");
    } catch (const groth16::format_error&) {
    }
    return 0;
}
