#include "common/groth16/params_file.hpp"

#include <fmt/format.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stop_token>
#include <system_error>

#include "common/util/file_writer.hpp"

namespace cuzk::groth16 {

format_error::format_error(std::string file, std::string section, size_t offset, std::string reason)
    : input_error(fmt::format("{}: {} at byte offset {}: {}", file, section, offset, reason)),
      file_(std::move(file)),
      section_(std::move(section)),
      reason_(std::move(reason)),
      offset_(offset) {}

namespace {

constexpr size_t G1U = ec::G1_UNCOMPRESSED_BYTES;
constexpr size_t G2U = ec::G2_UNCOMPRESSED_BYTES;

// ---------------------------------------------------------------------------------------------
// Encoding

void put_u32_be(uint8_t* out, uint32_t v) {
    out[0] = uint8_t(v >> 24);
    out[1] = uint8_t(v >> 16);
    out[2] = uint8_t(v >> 8);
    out[3] = uint8_t(v);
}

uint32_t get_u32_be(const uint8_t* in) {
    return (uint32_t(in[0]) << 24) | (uint32_t(in[1]) << 16) | (uint32_t(in[2]) << 8) | uint32_t(in[3]);
}

uint32_t checked_count(size_t n, const char* what) {
    if (n > UINT32_MAX) throw std::length_error(fmt::format("{} has {} points, more than a u32 count holds", what, n));
    return uint32_t(n);
}

void encode(const ec::g1_affine_t& p, uint8_t* out) { ec::g1_to_uncompressed(p, out); }
void encode(const ec::g2_affine_t& p, uint8_t* out) { ec::g2_to_uncompressed(p, out); }

// Count then points, serialised in parallel blocks so that writing a 2^27-point vector is bounded
// by the disk, not by the field conversions out of Montgomery form.
template <class P>
void write_vector(util::file_writer& w, const std::vector<P>& pts, const char* what) {
    constexpr size_t BYTES = sizeof(P) == sizeof(ec::g1_affine_t) ? G1U : G2U;
    uint8_t count[4];
    put_u32_be(count, checked_count(pts.size(), what));
    w.write(count, 4);
    constexpr size_t BLOCK = 1 << 16;
    std::vector<uint8_t> buf(std::min(pts.size(), BLOCK) * BYTES);
    for (size_t start = 0; start < pts.size(); start += BLOCK) {
        size_t n = std::min(BLOCK, pts.size() - start);
        tbb::parallel_for(tbb::blocked_range<size_t>(0, n, 1024), [&](const tbb::blocked_range<size_t>& r) {
            for (size_t i = r.begin(); i < r.end(); ++i) encode(pts[start + i], buf.data() + i * BYTES);
        });
        w.write(buf.data(), n * BYTES);
    }
}

// ---------------------------------------------------------------------------------------------
// Decoding

// Bounds-checked reading of a file image; every failure is a format_error naming the file.
class reader {
public:
    reader(std::span<const uint8_t> bytes, std::string name) : bytes_(bytes), name_(std::move(name)) {}

    [[noreturn]] void fail(const std::string& section, size_t offset, const std::string& reason) const {
        throw format_error(name_, section, offset, reason);
    }
    // Throws unless |n| bytes are present at |offset|.
    void need(const std::string& section, size_t offset, size_t n) const {
        if (offset > bytes_.size() || bytes_.size() - offset < n)
            fail(section, offset,
                 fmt::format("truncated: expected {} bytes at offset {}, file has {}", n, offset, bytes_.size()));
    }
    uint32_t u32(const std::string& section, size_t offset) const {
        need(section, offset, 4);
        return get_u32_be(bytes_.data() + offset);
    }
    const uint8_t* at(size_t offset) const { return bytes_.data() + offset; }
    size_t size() const { return bytes_.size(); }
    const std::string& name() const { return name_; }

private:
    std::span<const uint8_t> bytes_;
    std::string name_;
};

ec::decode_error decode(const uint8_t* in, ec::g1_affine_t& out, ec::subgroup_check c) {
    return ec::g1_from_uncompressed(in, out, c);
}
ec::decode_error decode(const uint8_t* in, ec::g2_affine_t& out, ec::subgroup_check c) {
    return ec::g2_from_uncompressed(in, out, c);
}

// One point at |offset|, fully checked unless |check| says otherwise; identity refused.
template <class P>
P read_point(const reader& r, const std::string& section, size_t offset, ec::subgroup_check check) {
    constexpr size_t BYTES = sizeof(P) == sizeof(ec::g1_affine_t) ? G1U : G2U;
    r.need(section, offset, BYTES);
    P p;
    ec::decode_error e = decode(r.at(offset), p, check);
    if (e != ec::decode_error::ok) r.fail(section, offset, fmt::format("bad point encoding: {}", ec::to_string(e)));
    if (p.is_identity()) r.fail(section, offset, "point at infinity");
    return p;
}

// Parses the vk at the start of |r| and returns the offset just past it.
size_t parse_vk(const reader& r, verifying_key& vk) {
    constexpr auto CHECKED = ec::subgroup_check::checked;
    size_t off = 0;
    vk.alpha_g1 = read_point<ec::g1_affine_t>(r, "vk.alpha_g1", off, CHECKED);
    off += G1U;
    vk.beta_g1 = read_point<ec::g1_affine_t>(r, "vk.beta_g1", off, CHECKED);
    off += G1U;
    vk.beta_g2 = read_point<ec::g2_affine_t>(r, "vk.beta_g2", off, CHECKED);
    off += G2U;
    vk.gamma_g2 = read_point<ec::g2_affine_t>(r, "vk.gamma_g2", off, CHECKED);
    off += G2U;
    vk.delta_g1 = read_point<ec::g1_affine_t>(r, "vk.delta_g1", off, CHECKED);
    off += G1U;
    vk.delta_g2 = read_point<ec::g2_affine_t>(r, "vk.delta_g2", off, CHECKED);
    off += G2U;
    size_t count = r.u32("vk.ic count", off);
    off += 4;
    if (count == 0) r.fail("vk.ic count", off - 4, "no IC points (ic[0], the ONE input, is always present)");
    // Check the whole run first so that a corrupted count is reported as such, before any
    // allocation sized by it.
    if (count > (r.size() - off) / G1U)
        r.fail("vk.ic count", off - 4,
               fmt::format("truncated: expected {} bytes at offset {} for {} IC points, file has {}", count * G1U,
                           off, count, r.size()));
    vk.ic.resize(count);
    for (size_t i = 0; i < count; ++i, off += G1U)
        vk.ic[i] = read_point<ec::g1_affine_t>(r, fmt::format("vk.ic[{}]", i), off, CHECKED);
    return off;
}

// Reads a section header at |off| and skips its points; returns the section.
params_section walk_section(const reader& r, const char* name, size_t off, size_t point_bytes) {
    params_section s;
    s.count_offset = off;
    s.count = r.u32(fmt::format("{} count", name), off);
    s.offset = off + 4;
    if (s.count > (r.size() - s.offset) / point_bytes)
        r.fail(fmt::format("{} count", name), off,
               fmt::format("truncated: expected {} bytes at offset {} for {} points, file has {}",
                           s.count * point_bytes, s.offset, s.count, r.size()));
    return s;
}

// |stop|: asked to stop, the blocks not yet begun are skipped and the read throws abandoned_error (a 2^27-point
// section takes seconds to decode, the file's five a 32 GiB set's minutes from disk).
template <class P>
std::vector<P> read_section(const reader& r, const char* name, const params_section& s, ec::subgroup_check check,
                            const std::stop_token& stop) {
    constexpr size_t BYTES = sizeof(P) == sizeof(ec::g1_affine_t) ? G1U : G2U;
    std::vector<P> out(s.count);
    // The first failing index over all blocks: each block stops at its own first failure, so the
    // minimum is the file's first bad point whatever the scheduling.
    std::mutex m;
    size_t bad_index = SIZE_MAX;
    std::string bad_reason;
    tbb::parallel_for(tbb::blocked_range<size_t>(0, s.count, 4096), [&](const tbb::blocked_range<size_t>& rg) {
        if (stop.stop_requested()) return;
        for (size_t i = rg.begin(); i < rg.end(); ++i) {
            ec::decode_error e = decode(r.at(s.offset + i * BYTES), out[i], check);
            std::string text;
            if (e != ec::decode_error::ok) {
                text = fmt::format("bad point encoding: {}", ec::to_string(e));
            } else if (out[i].is_identity()) {
                text = "point at infinity";
            } else {
                continue;
            }
            std::lock_guard<std::mutex> lock(m);
            if (i < bad_index) {
                bad_index = i;
                bad_reason = std::move(text);
            }
            return;
        }
    });
    if (stop.stop_requested())
        throw abandoned_error(fmt::format("{}: reading the {} points abandoned (asked to stop)", r.name(), name));
    if (bad_index != SIZE_MAX)
        r.fail(fmt::format("{}[{}]", name, bad_index), s.offset + bad_index * BYTES, bad_reason);
    return out;
}

// A file that cannot be opened is the user's to fix, like a malformed one.
util::mapped_file map(const std::filesystem::path& path) {
    try {
        return util::mapped_file(path);
    } catch (const std::system_error& e) {
        throw input_error(e.what());
    }
}

}  // namespace

std::vector<uint8_t> vk_to_bytes(const verifying_key& vk) {
    std::vector<uint8_t> out(vk_file_bytes(vk.ic.size()));
    uint8_t* p = out.data();
    ec::g1_to_uncompressed(vk.alpha_g1, p);
    p += G1U;
    ec::g1_to_uncompressed(vk.beta_g1, p);
    p += G1U;
    ec::g2_to_uncompressed(vk.beta_g2, p);
    p += G2U;
    ec::g2_to_uncompressed(vk.gamma_g2, p);
    p += G2U;
    ec::g1_to_uncompressed(vk.delta_g1, p);
    p += G1U;
    ec::g2_to_uncompressed(vk.delta_g2, p);
    p += G2U;
    put_u32_be(p, checked_count(vk.ic.size(), "vk.ic"));
    p += 4;
    for (const auto& q : vk.ic) {
        ec::g1_to_uncompressed(q, p);
        p += G1U;
    }
    return out;
}

void write_vk(const std::filesystem::path& path, const verifying_key& vk) {
    std::vector<uint8_t> bytes = vk_to_bytes(vk);
    util::file_writer w(path);
    w.write(bytes.data(), bytes.size());
    w.close();
}

void write_parameters(const std::filesystem::path& path, const parameters& params) {
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    {
        util::file_writer w(tmp);
        std::vector<uint8_t> vk = vk_to_bytes(params.vk);
        w.write(vk.data(), vk.size());
        write_vector(w, params.h, "h");
        write_vector(w, params.l, "l");
        write_vector(w, params.a, "a");
        write_vector(w, params.b_g1, "b_g1");
        write_vector(w, params.b_g2, "b_g2");
        w.close();
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec) throw std::system_error(ec, "cannot rename " + tmp.string() + " to " + path.string());
}

verifying_key vk_from_bytes(std::span<const uint8_t> bytes, const std::string& name) {
    reader r(bytes, name);
    verifying_key vk;
    size_t end = parse_vk(r, vk);
    if (end != bytes.size())
        r.fail("trailing bytes", end, fmt::format("{} bytes after the vk (a .vk with {} IC points is {} bytes)",
                                                  bytes.size() - end, vk.ic.size(), end));
    return vk;
}

verifying_key read_vk(const std::filesystem::path& path) {
    util::mapped_file f = map(path);
    return vk_from_bytes(f.bytes(), path.string());
}

mapped_parameters::mapped_parameters(const std::filesystem::path& path, ec::subgroup_check check)
    : file_(map(path)), check_(check) {
    reader r(file_.bytes(), path.string());
    size_t off = parse_vk(r, vk_);
    h_ = walk_section(r, "h", off, G1U);
    l_ = walk_section(r, "l", h_.offset + h_.count * G1U, G1U);
    a_ = walk_section(r, "a", l_.offset + l_.count * G1U, G1U);
    b_g1_ = walk_section(r, "b_g1", a_.offset + a_.count * G1U, G1U);
    b_g2_ = walk_section(r, "b_g2", b_g1_.offset + b_g1_.count * G1U, G2U);
    size_t end = b_g2_.offset + b_g2_.count * G2U;
    if (end != file_.size())
        r.fail("trailing bytes", end, fmt::format("{} bytes after the b_g2 section", file_.size() - end));
}

std::vector<ec::g1_affine_t> mapped_parameters::read_h(const std::stop_token& stop) const {
    return read_section<ec::g1_affine_t>(reader(file_.bytes(), path().string()), "h", h_, check_, stop);
}
std::vector<ec::g1_affine_t> mapped_parameters::read_l(const std::stop_token& stop) const {
    return read_section<ec::g1_affine_t>(reader(file_.bytes(), path().string()), "l", l_, check_, stop);
}
std::vector<ec::g1_affine_t> mapped_parameters::read_a(const std::stop_token& stop) const {
    return read_section<ec::g1_affine_t>(reader(file_.bytes(), path().string()), "a", a_, check_, stop);
}
std::vector<ec::g1_affine_t> mapped_parameters::read_b_g1(const std::stop_token& stop) const {
    return read_section<ec::g1_affine_t>(reader(file_.bytes(), path().string()), "b_g1", b_g1_, check_, stop);
}
std::vector<ec::g2_affine_t> mapped_parameters::read_b_g2(const std::stop_token& stop) const {
    return read_section<ec::g2_affine_t>(reader(file_.bytes(), path().string()), "b_g2", b_g2_, check_, stop);
}

parameters mapped_parameters::read_all(const std::stop_token& stop) const {
    parameters p;
    p.vk = vk_;
    p.h = read_h(stop);
    p.l = read_l(stop);
    p.a = read_a(stop);
    p.b_g1 = read_b_g1(stop);
    p.b_g2 = read_b_g2(stop);
    return p;
}

parameters read_parameters(const std::filesystem::path& path, ec::subgroup_check check, const std::stop_token& stop) {
    return mapped_parameters(path, check).read_all(stop);
}

}  // namespace cuzk::groth16
