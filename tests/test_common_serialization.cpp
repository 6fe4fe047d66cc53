// zcash point encoding: byte-for-byte agreement with @noble/curves (tests/data/vectors.json),
// rejection of malformed encodings with the right decode_error, round trips, and the
// checked/unchecked subgroup modes.
#include <gtest/gtest.h>

#include "tests/support/curve_points.hpp"
#include "tests/support/oracle_data.hpp"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/ec/jacobian.hpp"
#include "common/ec/serialization.hpp"
#include "common/ec/subgroup.hpp"

using namespace cuzk::ec;
using nlohmann::json;

namespace {

const json& vectors() { return cuzk::test::oracle_json("vectors.json"); }
using cuzk::test::hex;
using cuzk::test::unhex;

// The two groups behind one interface, so every test runs on G1 and G2 alike.
struct g1_codec {
    using F = fp_t;
    using point = g1_affine_t;
    static constexpr size_t compressed_bytes = G1_COMPRESSED_BYTES;
    static constexpr size_t uncompressed_bytes = G1_UNCOMPRESSED_BYTES;
    static const char* name() { return "g1"; }
    static point generator() { return g1_generator(); }
    static void to_compressed(const point& p, uint8_t* o) { g1_to_compressed(p, o); }
    static void to_uncompressed(const point& p, uint8_t* o) { g1_to_uncompressed(p, o); }
    static decode_error from_compressed(const uint8_t* i, point& p, subgroup_check c) {
        return g1_from_compressed(i, p, c);
    }
    static decode_error from_uncompressed(const uint8_t* i, point& p, subgroup_check c) {
        return g1_from_uncompressed(i, p, c);
    }
};
struct g2_codec {
    using F = fp2_t;
    using point = g2_affine_t;
    static constexpr size_t compressed_bytes = G2_COMPRESSED_BYTES;
    static constexpr size_t uncompressed_bytes = G2_UNCOMPRESSED_BYTES;
    static const char* name() { return "g2"; }
    static point generator() { return g2_generator(); }
    static void to_compressed(const point& p, uint8_t* o) { g2_to_compressed(p, o); }
    static void to_uncompressed(const point& p, uint8_t* o) { g2_to_uncompressed(p, o); }
    static decode_error from_compressed(const uint8_t* i, point& p, subgroup_check c) {
        return g2_from_compressed(i, p, c);
    }
    static decode_error from_uncompressed(const uint8_t* i, point& p, subgroup_check c) {
        return g2_from_uncompressed(i, p, c);
    }
};

template <class C>
std::string encode(const typename C::point& p, bool compressed) {
    std::vector<uint8_t> b(compressed ? C::compressed_bytes : C::uncompressed_bytes);
    compressed ? C::to_compressed(p, b.data()) : C::to_uncompressed(p, b.data());
    return hex(b);
}

template <class C>
decode_error decode(const std::string& h, bool compressed, typename C::point& out,
                    subgroup_check check = subgroup_check::checked) {
    std::vector<uint8_t> b = unhex(h);
    EXPECT_EQ(b.size(), compressed ? C::compressed_bytes : C::uncompressed_bytes);
    return compressed ? C::from_compressed(b.data(), out, check) : C::from_uncompressed(b.data(), out, check);
}

decode_error error_named(const std::string& s) {
    static const std::map<std::string, decode_error> names = {
        {"bad_flags", decode_error::bad_flags},         {"non_canonical", decode_error::non_canonical},
        {"not_on_curve", decode_error::not_on_curve},   {"not_in_subgroup", decode_error::not_in_subgroup},
        {"bad_infinity", decode_error::bad_infinity},
    };
    auto it = names.find(s);
    if (it == names.end()) throw std::runtime_error("unknown error name in vectors: " + s);
    return it->second;
}

using cuzk::test::random_curve_point;

// Every valid point of the vectors: encoded by noble in both forms.
template <class C>
void check_vectors_encode_and_decode() {
    const json& g = vectors()[C::name()];
    size_t seen = 0;
    for (const char* section : {"mul", "add", "dbl"}) {
        for (const json& c : g[section]) {
            std::string comp = c["compressed"], uncomp = c["uncompressed"];
            SCOPED_TRACE(std::string(section) + " " + comp);
            typename C::point from_u, from_c;
            ASSERT_EQ(decode<C>(uncomp, false, from_u), decode_error::ok);
            ASSERT_EQ(decode<C>(comp, true, from_c), decode_error::ok);
            EXPECT_EQ(from_u, from_c);
            EXPECT_EQ(encode<C>(from_u, true), comp);
            EXPECT_EQ(encode<C>(from_u, false), uncomp);
            ++seen;
        }
    }
    EXPECT_GE(seen, 20u);
}

template <class C>
void check_invalid_vectors() {
    const json& cases = vectors()[C::name()]["invalid"];
    std::set<decode_error> covered;
    for (const json& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        bool compressed = c["form"] == "compressed";
        decode_error want = error_named(c["error"]);
        typename C::point out = C::generator();
        EXPECT_EQ(decode<C>(c["hex"], compressed, out), want);
        EXPECT_EQ(out, C::generator()) << "the output must be untouched on failure";
        covered.insert(want);
        // Only the subgroup check is optional: every other failure stays a failure unchecked.
        typename C::point unchecked;
        decode_error u = decode<C>(c["hex"], compressed, unchecked, subgroup_check::unchecked);
        if (want == decode_error::not_in_subgroup) {
            EXPECT_EQ(u, decode_error::ok);
            EXPECT_TRUE(is_on_curve(unchecked));
            EXPECT_EQ(encode<C>(unchecked, compressed), c["hex"].get<std::string>());
        } else {
            EXPECT_EQ(u, want);
        }
    }
    EXPECT_EQ(covered.size(), 5u) << "the vectors must exercise every decode_error";
}

template <class C>
void check_non_subgroup_points_by_mode() {
    const json& cases = vectors()[C::name()]["not_in_subgroup"];
    ASSERT_GE(cases.size(), 2u);
    for (const json& c : cases) {
        for (bool compressed : {true, false}) {
            std::string h = c[compressed ? "compressed" : "uncompressed"];
            typename C::point p;
            EXPECT_EQ(decode<C>(h, compressed, p), decode_error::not_in_subgroup);
            ASSERT_EQ(decode<C>(h, compressed, p, subgroup_check::unchecked), decode_error::ok);
            EXPECT_FALSE(is_r_torsion(p));
            EXPECT_EQ(encode<C>(p, compressed), h);
        }
    }
}

template <class C>
void check_round_trips(uint64_t seed, int rounds) {
    using J = jacobian_t<typename C::F>;
    std::mt19937_64 rng(seed);
    for (int i = 0; i < rounds; ++i) {
        typename C::point member = J::from_affine(C::generator()).mul(fr_t::random(rng)).to_affine();
        typename C::point outsider = random_curve_point<typename C::F>(rng);
        for (bool compressed : {true, false}) {
            typename C::point back;
            ASSERT_EQ(decode<C>(encode<C>(member, compressed), compressed, back), decode_error::ok);
            EXPECT_EQ(back, member);
            ASSERT_EQ(decode<C>(encode<C>(outsider, compressed), compressed, back, subgroup_check::unchecked),
                      decode_error::ok);
            EXPECT_EQ(back, outsider);
            EXPECT_EQ(decode<C>(encode<C>(outsider, compressed), compressed, back),
                      decode_error::not_in_subgroup);
            // The negated point differs only in the sort flag when compressed.
            std::string a = encode<C>(member, compressed), b = encode<C>(-member, compressed);
            if (compressed) {
                std::vector<uint8_t> ab = unhex(a), bb = unhex(b);
                EXPECT_EQ(ab[0] ^ bb[0], 0x20);
                ab[0] = bb[0];
                EXPECT_EQ(ab, bb);
            }
        }
    }
}

// All eight flag patterns on a finite point and on the identity, in both forms. Only the
// pattern the writer produces is accepted, and, for a compressed finite point, the flipped sort
// bit (which names the other root).
template <class C>
void check_flag_table() {
    typename C::point g = C::generator();
    for (bool compressed : {true, false}) {
        for (bool infinity : {false, true}) {
            typename C::point p = infinity ? C::point::identity() : g;
            std::vector<uint8_t> valid = unhex(encode<C>(p, compressed));
            uint8_t valid_flags = valid[0] & 0xe0;
            for (uint8_t flags = 0; flags < 8; ++flags) {
                std::vector<uint8_t> b = valid;
                b[0] = uint8_t((b[0] & 0x1f) | (flags << 5));
                typename C::point out;
                decode_error e = compressed ? C::from_compressed(b.data(), out, subgroup_check::checked)
                                            : C::from_uncompressed(b.data(), out, subgroup_check::checked);
                SCOPED_TRACE(std::string(compressed ? "compressed" : "uncompressed") +
                             (infinity ? " identity" : " generator") + " flags=" + std::to_string(flags << 5));
                if (b[0] >> 5 == valid_flags >> 5) {
                    EXPECT_EQ(e, decode_error::ok);
                    EXPECT_EQ(out, p);
                } else if (compressed && !infinity && (b[0] & 0xe0) == ((valid_flags ^ 0x20) & 0xe0)) {
                    // The other root: a valid encoding of -p.
                    EXPECT_EQ(e, decode_error::ok);
                    EXPECT_EQ(out, -p);
                } else {
                    EXPECT_NE(e, decode_error::ok);
                }
            }
        }
    }
}

}  // namespace

TEST(Serialization, G1NobleVectorsRoundTripByteForByte) { check_vectors_encode_and_decode<g1_codec>(); }
TEST(Serialization, G2NobleVectorsRoundTripByteForByte) { check_vectors_encode_and_decode<g2_codec>(); }

TEST(Serialization, G1InvalidEncodingsGiveTheirDecodeError) { check_invalid_vectors<g1_codec>(); }
TEST(Serialization, G2InvalidEncodingsGiveTheirDecodeError) { check_invalid_vectors<g2_codec>(); }

TEST(Serialization, G1NonSubgroupPointRejectedOnlyWhenChecked) { check_non_subgroup_points_by_mode<g1_codec>(); }
TEST(Serialization, G2NonSubgroupPointRejectedOnlyWhenChecked) { check_non_subgroup_points_by_mode<g2_codec>(); }

TEST(Serialization, G1RandomPointsRoundTrip) { check_round_trips<g1_codec>(31, 32); }
TEST(Serialization, G2RandomPointsRoundTrip) { check_round_trips<g2_codec>(32, 12); }

TEST(Serialization, G1OnlyTheWrittenFlagPatternDecodes) { check_flag_table<g1_codec>(); }
TEST(Serialization, G2OnlyTheWrittenFlagPatternDecodes) { check_flag_table<g2_codec>(); }

TEST(Serialization, IdentityEncodingsAreFlagsThenZeros) {
    std::string z48(94, '0'), z96(190, '0'), z192(382, '0');
    EXPECT_EQ(encode<g1_codec>(g1_affine_t::identity(), true), "c0" + z48);
    EXPECT_EQ(encode<g1_codec>(g1_affine_t::identity(), false), "40" + z96);
    EXPECT_EQ(encode<g2_codec>(g2_affine_t::identity(), true), "c0" + z96);
    EXPECT_EQ(encode<g2_codec>(g2_affine_t::identity(), false), "40" + z192);
}

TEST(Serialization, GeneratorsMatchTheReferenceEncodings) {
    EXPECT_EQ(encode<g1_codec>(g1_generator(), true),
              "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    EXPECT_EQ(encode<g2_codec>(g2_generator(), true),
              "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
              "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
}

TEST(Serialization, EveryDecodeErrorHasItsOwnText) {
    std::set<std::string> texts;
    for (decode_error e : {decode_error::ok, decode_error::bad_flags, decode_error::non_canonical,
                           decode_error::not_on_curve, decode_error::not_in_subgroup, decode_error::bad_infinity}) {
        std::string t = to_string(e);
        EXPECT_FALSE(t.empty());
        texts.insert(t);
    }
    EXPECT_EQ(texts.size(), 6u);
    EXPECT_EQ(std::string(to_string(decode_error::non_canonical)), "coordinate is not canonical (>= p)");
}
