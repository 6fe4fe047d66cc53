// zcash point encoding: flag handling, canonical coordinates, curve and subgroup checks.
#include "common/ec/serialization.hpp"

#include <cstring>

#include "common/ec/subgroup.hpp"

namespace cuzk::ec {

namespace {

constexpr uint8_t FLAG_COMPRESSED = 0x80;
constexpr uint8_t FLAG_INFINITY = 0x40;
constexpr uint8_t FLAG_SORT = 0x20;
constexpr uint8_t FLAG_MASK = FLAG_COMPRESSED | FLAG_INFINITY | FLAG_SORT;
constexpr size_t FP_BYTES = fp_t::BYTES;
static_assert(FP_BYTES == 48);

// Bytes of one coordinate in an encoding.
template <class F>
constexpr size_t coordinate_bytes = 0;
template <>
constexpr size_t coordinate_bytes<fp_t> = FP_BYTES;
template <>
constexpr size_t coordinate_bytes<fp2_t> = 2 * FP_BYTES;

// True when every bit outside the flag bits of byte 0 is zero.
bool zero_after_flags(const uint8_t* in, size_t n) {
    uint8_t acc = in[0] & uint8_t(~FLAG_MASK);
    for (size_t i = 1; i < n; ++i) acc |= in[i];
    return acc == 0;
}

// Reads the first coordinate of an encoding, whose top three bits are flags, not value.
bool read_fp_after_flags(const uint8_t* in, fp_t& out) {
    uint8_t buf[FP_BYTES];
    std::memcpy(buf, in, FP_BYTES);
    buf[0] &= uint8_t(~FLAG_MASK);
    return fp_t::from_bytes_be(buf, out);
}

// Fp2 as c1 then c0; |first| says whether the c1 half starts the encoding (carries flags).
bool read_fp2(const uint8_t* in, fp2_t& out, bool first) {
    fp_t c1, c0;
    bool ok1 = first ? read_fp_after_flags(in, c1) : fp_t::from_bytes_be(in, c1);
    if (!ok1 || !fp_t::from_bytes_be(in + FP_BYTES, c0)) return false;
    out = fp2_t(c0, c1);
    return true;
}

void write_fp2(const fp2_t& v, uint8_t* out) {
    v.c1.to_bytes_be(out);
    v.c0.to_bytes_be(out + FP_BYTES);
}

bool in_subgroup(const g1_affine_t& p) { return g1_in_subgroup(p); }
bool in_subgroup(const g2_affine_t& p) { return g2_in_subgroup(p); }

bool read_coordinate(const uint8_t* in, fp_t& out, bool first) {
    return first ? read_fp_after_flags(in, out) : fp_t::from_bytes_be(in, out);
}
bool read_coordinate(const uint8_t* in, fp2_t& out, bool first) { return read_fp2(in, out, first); }

// One decoder for both groups: |F| is the coordinate field.
template <class F>
decode_error decode_compressed(const uint8_t* in, affine_t<F>& out, subgroup_check check) {
    constexpr size_t bytes = coordinate_bytes<F>;
    const uint8_t flags = in[0] & FLAG_MASK;
    if (!(flags & FLAG_COMPRESSED)) return decode_error::bad_flags;
    if (flags & FLAG_INFINITY) {
        if (flags & FLAG_SORT) return decode_error::bad_flags;
        if (!zero_after_flags(in, bytes)) return decode_error::bad_infinity;
        out = affine_t<F>::identity();
        return decode_error::ok;
    }
    F x;
    if (!read_coordinate(in, x, true)) return decode_error::non_canonical;
    F y;
    if (!(x.sqr() * x + curve_b<F>()).sqrt(y)) return decode_error::not_on_curve;
    if (y.is_lexicographically_largest() != bool(flags & FLAG_SORT)) y = -y;
    affine_t<F> p = affine_t<F>::from_xy(x, y);
    if (check == subgroup_check::checked && !in_subgroup(p)) return decode_error::not_in_subgroup;
    out = p;
    return decode_error::ok;
}

template <class F>
decode_error decode_uncompressed(const uint8_t* in, affine_t<F>& out, subgroup_check check) {
    constexpr size_t bytes = coordinate_bytes<F>;
    const uint8_t flags = in[0] & FLAG_MASK;
    if (flags & (FLAG_COMPRESSED | FLAG_SORT)) return decode_error::bad_flags;
    if (flags & FLAG_INFINITY) {
        if (!zero_after_flags(in, 2 * bytes)) return decode_error::bad_infinity;
        out = affine_t<F>::identity();
        return decode_error::ok;
    }
    F x, y;
    if (!read_coordinate(in, x, true) || !read_coordinate(in + bytes, y, false)) {
        return decode_error::non_canonical;
    }
    affine_t<F> p = affine_t<F>::from_xy(x, y);
    if (!is_on_curve(p)) return decode_error::not_on_curve;
    if (check == subgroup_check::checked && !in_subgroup(p)) return decode_error::not_in_subgroup;
    out = p;
    return decode_error::ok;
}

}  // namespace

const char* to_string(decode_error e) {
    switch (e) {
        case decode_error::ok:
            return "ok";
        case decode_error::bad_flags:
            return "invalid flag bits in the first byte (compression, infinity or sort flag)";
        case decode_error::non_canonical:
            return "coordinate is not canonical (>= p)";
        case decode_error::not_on_curve:
            return "point is not on the curve";
        case decode_error::not_in_subgroup:
            return "point is not in the prime-order subgroup";
        case decode_error::bad_infinity:
            return "point at infinity with non-zero coordinate bytes";
    }
    return "unknown decode error";
}

void g1_to_compressed(const g1_affine_t& p, uint8_t* out) {
    if (p.infinity) {
        std::memset(out, 0, G1_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    p.x.to_bytes_be(out);
    out[0] |= FLAG_COMPRESSED | (p.y.is_lexicographically_largest() ? FLAG_SORT : 0);
}

void g1_to_uncompressed(const g1_affine_t& p, uint8_t* out) {
    if (p.infinity) {
        std::memset(out, 0, G1_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    p.x.to_bytes_be(out);
    p.y.to_bytes_be(out + FP_BYTES);
}

void g2_to_compressed(const g2_affine_t& p, uint8_t* out) {
    if (p.infinity) {
        std::memset(out, 0, G2_COMPRESSED_BYTES);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    write_fp2(p.x, out);
    out[0] |= FLAG_COMPRESSED | (p.y.is_lexicographically_largest() ? FLAG_SORT : 0);
}

void g2_to_uncompressed(const g2_affine_t& p, uint8_t* out) {
    if (p.infinity) {
        std::memset(out, 0, G2_UNCOMPRESSED_BYTES);
        out[0] = FLAG_INFINITY;
        return;
    }
    write_fp2(p.x, out);
    write_fp2(p.y, out + 2 * FP_BYTES);
}

decode_error g1_from_compressed(const uint8_t* in, g1_affine_t& out, subgroup_check check) {
    return decode_compressed(in, out, check);
}
decode_error g1_from_uncompressed(const uint8_t* in, g1_affine_t& out, subgroup_check check) {
    return decode_uncompressed(in, out, check);
}
decode_error g2_from_compressed(const uint8_t* in, g2_affine_t& out, subgroup_check check) {
    return decode_compressed(in, out, check);
}
decode_error g2_from_uncompressed(const uint8_t* in, g2_affine_t& out, subgroup_check check) {
    return decode_uncompressed(in, out, check);
}

}  // namespace cuzk::ec
