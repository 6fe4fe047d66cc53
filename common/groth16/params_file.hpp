// bellperson's .vk and .params files, byte for byte.
//
//   .vk:     alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 | u32 BE |ic| | ic[...]
//   .params: the .vk bytes, then h, l, a, b_g1 (G1) and b_g2 (G2), each a u32 BE count followed by
//            that many points.
// Every point is zcash-uncompressed: G1 96 bytes, G2 192 bytes. A .vk is 868 + 96 |ic| bytes.
//
// Reading maps the file; the vk is decoded at once (every check, subgroup included: it is small and
// the verifier's soundness rests on it), the vectors on demand and in parallel, with the subgroup
// check chosen by the caller: official parameter files are trusted (their digests are checked
// elsewhere), so it is off by default; the curve equation is always checked. Identity points are
// refused everywhere, as bellperson refuses them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "common/ec/serialization.hpp"
#include "common/groth16/keys.hpp"
#include "common/util/errors.hpp"
#include "common/util/mapped_file.hpp"

namespace cuzk::groth16 {

// Byte size of a .vk with |ic_count| IC points; the .params vk section has the same size.
inline constexpr size_t vk_file_bytes(size_t ic_count) {
    return 3 * ec::G1_UNCOMPRESSED_BYTES + 3 * ec::G2_UNCOMPRESSED_BYTES + 4 + ec::G1_UNCOMPRESSED_BYTES * ic_count;
}
static_assert(vk_file_bytes(0) == 868);

// A malformed .vk or .params file. what() reads
//   "<file>: <section> at byte offset <offset>: <reason>"
// e.g. "x.params: l[1234] at byte offset 1288852: coordinate is not canonical (>= p)".
class format_error : public input_error {
public:
    format_error(std::string file, std::string section, size_t offset, std::string reason);
    const std::string& file() const { return file_; }
    const std::string& section() const { return section_; }
    size_t offset() const { return offset_; }
    const std::string& reason() const { return reason_; }

private:
    std::string file_, section_, reason_;
    size_t offset_;
};

// --- writing (throws std::system_error naming the path on I/O failure) ---------------------------
std::vector<uint8_t> vk_to_bytes(const verifying_key& vk);
void write_vk(const std::filesystem::path& path, const verifying_key& vk);
// Written to "<path>.tmp" then renamed, so a crash never leaves a truncated file under the name.
void write_parameters(const std::filesystem::path& path, const parameters& params);

// --- reading -----------------------------------------------------------------------------------
// Decodes a .vk image; |name| labels errors. The image must hold exactly one vk.
verifying_key vk_from_bytes(std::span<const uint8_t> bytes, const std::string& name);
verifying_key read_vk(const std::filesystem::path& path);

// Where one vector of a .params file lies: |count| points from byte |offset| on.
struct params_section {
    size_t count_offset = 0;  // the u32 count
    size_t offset = 0;        // the first point
    size_t count = 0;
};

// A mapped .params file. Opening walks the section counts (checking that every section fits and
// that no byte trails) and decodes the vk; points are decoded by the read_* calls.
class mapped_parameters {
public:
    explicit mapped_parameters(const std::filesystem::path& path,
                               ec::subgroup_check check = ec::subgroup_check::unchecked);

    const verifying_key& vk() const { return vk_; }
    const params_section& h_section() const { return h_; }
    const params_section& l_section() const { return l_; }
    const params_section& a_section() const { return a_; }
    const params_section& b_g1_section() const { return b_g1_; }
    const params_section& b_g2_section() const { return b_g2_; }

    // Each decodes its vector in parallel; throws format_error naming the first bad point, and abandoned_error
    // naming the file and the section once |stop| is asked (the blocks under way finish first: milliseconds).
    std::vector<ec::g1_affine_t> read_h(const std::stop_token& stop = {}) const;
    std::vector<ec::g1_affine_t> read_l(const std::stop_token& stop = {}) const;
    std::vector<ec::g1_affine_t> read_a(const std::stop_token& stop = {}) const;
    std::vector<ec::g1_affine_t> read_b_g1(const std::stop_token& stop = {}) const;
    std::vector<ec::g2_affine_t> read_b_g2(const std::stop_token& stop = {}) const;
    parameters read_all(const std::stop_token& stop = {}) const;

    const std::filesystem::path& path() const { return file_.path(); }

private:
    util::mapped_file file_;
    ec::subgroup_check check_;
    verifying_key vk_;
    params_section h_, l_, a_, b_g1_, b_g2_;
};

// The whole .params file in memory (mapped_parameters(path, check).read_all(stop)).
parameters read_parameters(const std::filesystem::path& path,
                           ec::subgroup_check check = ec::subgroup_check::unchecked, const std::stop_token& stop = {});

}  // namespace cuzk::groth16
