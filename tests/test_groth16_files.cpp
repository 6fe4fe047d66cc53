// bellperson .vk/.params files and 192-byte proofs: exact layout, round trips, and a format_error
// naming file, section and byte offset for every kind of damage (never a crash).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <stop_token>

#include "common/ec/jacobian.hpp"
#include "common/ec/serialization.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"

using namespace cuzk;
using namespace cuzk::groth16;
namespace fs = std::filesystem;

namespace {

constexpr size_t G1U = ec::G1_UNCOMPRESSED_BYTES;
constexpr size_t G2U = ec::G2_UNCOMPRESSED_BYTES;

ec::g1_affine_t random_g1(std::mt19937_64& rng) {
    return ec::g1_jacobian_t::from_affine(ec::g1_generator()).mul(ff::fr_t::random(rng)).to_affine();
}
ec::g2_affine_t random_g2(std::mt19937_64& rng) {
    return ec::g2_jacobian_t::from_affine(ec::g2_generator()).mul(ff::fr_t::random(rng)).to_affine();
}

// A point on y^2 = x^3 + 4 outside G1: the cofactor is ~2^126, so a random curve point is almost
// never in the subgroup (checked below with the definition).
ec::g1_affine_t g1_outside_subgroup() {
    for (uint64_t x = 1;; ++x) {
        ff::fp_t fx = ff::fp_t::from_u64(x), y;
        if ((fx.sqr() * fx + ff::fp_t::from_u64(4)).sqrt(y)) {
            auto p = ec::g1_affine_t::from_xy(fx, y);
            if (!ec::g1_jacobian_t::from_affine(p).mul(ff::fr_t::MODULUS).is_identity()) return p;
        }
    }
}

verifying_key random_vk(std::mt19937_64& rng, size_t ic) {
    verifying_key vk;
    vk.alpha_g1 = random_g1(rng);
    vk.beta_g1 = random_g1(rng);
    vk.beta_g2 = random_g2(rng);
    vk.gamma_g2 = random_g2(rng);
    vk.delta_g1 = random_g1(rng);
    vk.delta_g2 = random_g2(rng);
    for (size_t i = 0; i < ic; ++i) vk.ic.push_back(random_g1(rng));
    return vk;
}

parameters random_params(std::mt19937_64& rng) {
    parameters p;
    p.vk = random_vk(rng, 3);
    for (int i = 0; i < 7; ++i) p.h.push_back(random_g1(rng));
    for (int i = 0; i < 5; ++i) p.l.push_back(random_g1(rng));
    for (int i = 0; i < 6; ++i) p.a.push_back(random_g1(rng));
    for (int i = 0; i < 4; ++i) p.b_g1.push_back(random_g1(rng));
    for (int i = 0; i < 4; ++i) p.b_g2.push_back(random_g2(rng));
    return p;
}

std::vector<uint8_t> slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}
void spit(const fs::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

uint32_t be32(const std::vector<uint8_t>& b, size_t off) {
    return (uint32_t(b[off]) << 24) | (uint32_t(b[off + 1]) << 16) | (uint32_t(b[off + 2]) << 8) | b[off + 3];
}
void put_be32(std::vector<uint8_t>& b, size_t off, uint32_t v) {
    b[off] = uint8_t(v >> 24);
    b[off + 1] = uint8_t(v >> 16);
    b[off + 2] = uint8_t(v >> 8);
    b[off + 3] = uint8_t(v);
}

class Groth16Files : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() / ("cuzk_groth16_files_" + std::to_string(::getpid()) + "_" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }

    // Reads |bytes| as a .params file and returns the format_error, failing the test if none.
    format_error params_error(const std::vector<uint8_t>& bytes,
                              ec::subgroup_check check = ec::subgroup_check::unchecked) {
        fs::path p = dir / "damaged.params";
        spit(p, bytes);
        try {
            read_parameters(p, check);
        } catch (const format_error& e) {
            EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("byte offset " + std::to_string(e.offset())), std::string::npos)
                << e.what();
            return e;
        }
        ADD_FAILURE() << "damaged file was accepted";
        return format_error("", "", 0, "");
    }

    fs::path dir;
    std::mt19937_64 rng{20240607};
};

}  // namespace

TEST_F(Groth16Files, VkFileHasBellpersonLayoutAndSize) {
    verifying_key vk = random_vk(rng, 5);
    fs::path p = dir / "x.vk";
    write_vk(p, vk);
    std::vector<uint8_t> b = slurp(p);
    ASSERT_EQ(b.size(), 868u + 96u * 5u);
    EXPECT_EQ(b.size(), vk_file_bytes(5));
    // Uncompressed points: compression and infinity flags clear.
    EXPECT_EQ(b[0] & 0xe0, 0);
    EXPECT_EQ(be32(b, 3 * G1U + 3 * G2U), 5u);
    uint8_t alpha[G1U];
    ec::g1_to_uncompressed(vk.alpha_g1, alpha);
    EXPECT_TRUE(std::equal(alpha, alpha + G1U, b.begin()));
    uint8_t delta2[G2U];
    ec::g2_to_uncompressed(vk.delta_g2, delta2);
    EXPECT_TRUE(std::equal(delta2, delta2 + G2U, b.begin() + 3 * G1U + 2 * G2U));
    EXPECT_EQ(read_vk(p), vk);
}

TEST_F(Groth16Files, ParamsRoundTripAndSectionLayout) {
    parameters params = random_params(rng);
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    EXPECT_FALSE(fs::exists(dir / "x.params.tmp"));
    std::vector<uint8_t> b = slurp(p);
    size_t vk_bytes = vk_file_bytes(3);
    size_t expect = vk_bytes + 5 * 4 + (7 + 5 + 6 + 4) * G1U + 4 * G2U;
    ASSERT_EQ(b.size(), expect);
    // The .params file starts with the .vk bytes.
    std::vector<uint8_t> vk = vk_to_bytes(params.vk);
    EXPECT_TRUE(std::equal(vk.begin(), vk.end(), b.begin()));
    EXPECT_EQ(be32(b, vk_bytes), 7u);

    mapped_parameters m(p);
    EXPECT_EQ(m.vk(), params.vk);
    EXPECT_EQ(m.h_section().count, 7u);
    EXPECT_EQ(m.h_section().offset, vk_bytes + 4);
    EXPECT_EQ(m.l_section().offset, vk_bytes + 4 + 7 * G1U + 4);
    EXPECT_EQ(m.b_g2_section().count, 4u);
    EXPECT_EQ(m.read_all(), params);
    EXPECT_EQ(read_parameters(p, ec::subgroup_check::checked), params);

    // Writing what was read gives the same bytes.
    write_parameters(dir / "y.params", m.read_all());
    EXPECT_EQ(slurp(dir / "y.params"), b);
}

// A read asked to stop throws abandoned_error naming the file and the section it gave up in (gpud stopping
// while a published set loads: minutes); without the request the same file reads whole.
TEST_F(Groth16Files, AReadAskedToStopIsAbandonedNamingTheFile) {
    const parameters params = random_params(rng);
    const fs::path p = dir / "stopped.params";
    write_parameters(p, params);
    std::stop_source stop;
    EXPECT_EQ(read_parameters(p, ec::subgroup_check::unchecked, stop.get_token()), params);
    stop.request_stop();
    try {
        read_parameters(p, ec::subgroup_check::unchecked, stop.get_token());
        FAIL() << "the read went on after the stop";
    } catch (const abandoned_error& e) {
        EXPECT_EQ(std::string(e.what()), p.string() + ": reading the h points abandoned (asked to stop)");
    }
    EXPECT_THROW(mapped_parameters(p).read_b_g2(stop.get_token()), abandoned_error);
}

TEST_F(Groth16Files, EmptySectionsRoundTrip) {
    parameters params;
    params.vk = random_vk(rng, 1);
    fs::path p = dir / "empty.params";
    write_parameters(p, params);
    EXPECT_EQ(fs::file_size(p), vk_file_bytes(1) + 5 * 4);
    EXPECT_EQ(read_parameters(p), params);
}

TEST_F(Groth16Files, TruncatedParamsNameSectionAndOffset) {
    parameters params = random_params(rng);
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    const std::vector<uint8_t> full = slurp(p);
    const size_t vk_bytes = vk_file_bytes(3);
    struct cut_case {
        size_t size;
        std::string section;
        size_t offset;
    };
    const size_t l_count = vk_bytes + 4 + 7 * G1U;
    const size_t b_g2_count = full.size() - 4 * G2U - 4;
    const std::vector<cut_case> cases = {
        {0, "vk.alpha_g1", 0},
        {50, "vk.alpha_g1", 0},
        {G1U + 10, "vk.beta_g1", G1U},
        {2 * G1U + G2U + 1, "vk.gamma_g2", 2 * G1U + G2U},
        {864 + 2, "vk.ic count", 864},
        {868 + 50, "vk.ic count", 864},
        {vk_bytes, "h count", vk_bytes},
        {vk_bytes + 4 + 3 * G1U, "h count", vk_bytes},
        {l_count + 2, "l count", l_count},
        {full.size() - 1, "b_g2 count", b_g2_count},
    };
    for (const auto& c : cases) {
        std::vector<uint8_t> cut(full.begin(), full.begin() + ptrdiff_t(c.size));
        format_error e = params_error(cut);
        EXPECT_EQ(e.section(), c.section) << "cut at " << c.size << ": " << e.what();
        EXPECT_EQ(e.offset(), c.offset) << "cut at " << c.size << ": " << e.what();
        EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("file has " + std::to_string(c.size)), std::string::npos) << e.what();
    }
}

TEST_F(Groth16Files, EveryByteCutOfAVkIsAnErrorNeverACrash) {
    verifying_key vk = random_vk(rng, 2);
    std::vector<uint8_t> full = vk_to_bytes(vk);
    for (size_t n = 0; n < full.size(); ++n) {
        std::span<const uint8_t> cut(full.data(), n);
        EXPECT_THROW(vk_from_bytes(cut, "cut.vk"), format_error) << "cut at " << n;
    }
    EXPECT_EQ(vk_from_bytes(full, "full.vk"), vk);
}

TEST_F(Groth16Files, DamagedPointsNameTheirIndex) {
    parameters params = random_params(rng);
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    const std::vector<uint8_t> full = slurp(p);
    const size_t l_start = vk_file_bytes(3) + 4 + 7 * G1U + 4;

    // Compression flag on an uncompressed point.
    {
        std::vector<uint8_t> b = full;
        b[l_start + 1 * G1U] |= 0x80;
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "l[1]");
        EXPECT_EQ(e.offset(), l_start + G1U);
        EXPECT_NE(e.reason().find("bad point encoding"), std::string::npos) << e.what();
    }
    // A flipped low bit of y: the point leaves the curve.
    {
        std::vector<uint8_t> b = full;
        b[l_start + 3 * G1U + G1U - 1] ^= 1;
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "l[3]");
        EXPECT_EQ(e.offset(), l_start + 3 * G1U);
        EXPECT_NE(e.reason().find(ec::to_string(ec::decode_error::not_on_curve)), std::string::npos) << e.what();
    }
    // The first damaged point is reported whatever the parallel order.
    {
        std::vector<uint8_t> b = full;
        b[l_start + 2 * G1U + 5] ^= 0x10;
        b[l_start + 4 * G1U + 5] ^= 0x10;
        EXPECT_EQ(params_error(b).section(), "l[2]");
    }
    // A G2 point in b_g2.
    {
        std::vector<uint8_t> b = full;
        size_t off = full.size() - 2 * G2U;
        b[off + 100] ^= 0x01;
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "b_g2[2]");
        EXPECT_EQ(e.offset(), off);
    }
    // A damaged vk point is found at open time.
    {
        std::vector<uint8_t> b = full;
        b[G1U + 20] ^= 0x01;
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "vk.beta_g1");
        EXPECT_EQ(e.offset(), G1U);
    }
    // Non-canonical coordinate: x = p (all top bytes 0x1a01...) is >= p.
    {
        std::vector<uint8_t> b = full;
        const uint8_t p_be[48] = {0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6,
                                  0x43, 0x4b, 0xac, 0xd7, 0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf,
                                  0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24, 0x1e, 0xab, 0xff, 0xfe,
                                  0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab};
        std::copy(p_be, p_be + 48, b.begin() + ptrdiff_t(l_start));
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "l[0]");
        EXPECT_NE(e.reason().find(ec::to_string(ec::decode_error::non_canonical)), std::string::npos) << e.what();
    }
}

TEST_F(Groth16Files, IdentityPointsAreRefused) {
    parameters params = random_params(rng);
    params.a[2] = ec::g1_affine_t::identity();
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    format_error e = params_error(slurp(p));
    EXPECT_EQ(e.section(), "a[2]");
    EXPECT_NE(e.reason().find("infinity"), std::string::npos);
}

TEST_F(Groth16Files, SubgroupCheckIsSelectable) {
    ec::g1_affine_t outside = g1_outside_subgroup();
    parameters params = random_params(rng);
    params.h[4] = outside;
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    // Trusted files skip the subgroup check (the curve equation is still enforced).
    EXPECT_EQ(read_parameters(p, ec::subgroup_check::unchecked).h[4], outside);
    format_error e = params_error(slurp(p), ec::subgroup_check::checked);
    EXPECT_EQ(e.section(), "h[4]");
    EXPECT_NE(e.reason().find(ec::to_string(ec::decode_error::not_in_subgroup)), std::string::npos) << e.what();

    // The vk is always checked.
    verifying_key vk = random_vk(rng, 2);
    vk.ic[1] = outside;
    EXPECT_THROW(vk_from_bytes(vk_to_bytes(vk), "x.vk"), format_error);
}

TEST_F(Groth16Files, WrongCountsAreFormatErrors) {
    parameters params = random_params(rng);
    fs::path p = dir / "x.params";
    write_parameters(p, params);
    const std::vector<uint8_t> full = slurp(p);
    const size_t vk_bytes = vk_file_bytes(3);
    // Count too large by one: the section runs past the end.
    {
        std::vector<uint8_t> b = full;
        put_be32(b, vk_bytes, 8);
        EXPECT_NE(params_error(b).reason().find("truncated"), std::string::npos);
    }
    // A huge count fails before allocating anything.
    {
        std::vector<uint8_t> b = full;
        put_be32(b, vk_bytes, 0xffffffffu);
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "h count");
        EXPECT_EQ(e.offset(), vk_bytes);
    }
    {
        std::vector<uint8_t> b = full;
        put_be32(b, 864, 0xffffffffu);
        EXPECT_EQ(params_error(b).section(), "vk.ic count");
    }
    // Count too small by one: the remaining bytes misparse or trail; either way an error.
    {
        std::vector<uint8_t> b = full;
        put_be32(b, full.size() - 4 * G2U - 4, 3);
        format_error e = params_error(b);
        EXPECT_EQ(e.section(), "trailing bytes");
        EXPECT_EQ(e.offset(), full.size() - G2U);
    }
    // Extra bytes after b_g2.
    {
        std::vector<uint8_t> b = full;
        b.push_back(0);
        EXPECT_EQ(params_error(b).section(), "trailing bytes");
    }
    // An empty IC (no ONE) is not a vk.
    {
        verifying_key vk = random_vk(rng, 0);
        EXPECT_THROW(vk_from_bytes(vk_to_bytes(vk), "x.vk"), format_error);
    }
    // A .params file is not a .vk: its vectors trail the vk.
    try {
        read_vk(p);
        FAIL() << "read a .params file as a .vk";
    } catch (const format_error& e) {
        EXPECT_EQ(e.section(), "trailing bytes");
        EXPECT_EQ(e.offset(), vk_bytes);
    }
}

TEST_F(Groth16Files, MissingFileIsAnInputError) {
    EXPECT_THROW(read_parameters(dir / "absent.params"), input_error);
    EXPECT_THROW(read_vk(dir / "absent.vk"), input_error);
}

TEST_F(Groth16Files, ProofBytesRoundTrip) {
    proof pi{random_g1(rng), random_g2(rng), random_g1(rng)};
    auto bytes = proof_to_bytes(pi);
    static_assert(bytes.size() == 192);
    // Compressed points: the compression flag is set on A, B and C.
    EXPECT_EQ(bytes[0] & 0x80, 0x80);
    EXPECT_EQ(bytes[48] & 0x80, 0x80);
    EXPECT_EQ(bytes[144] & 0x80, 0x80);
    uint8_t b_bytes[96];
    ec::g2_to_compressed(pi.b, b_bytes);
    EXPECT_TRUE(std::equal(b_bytes, b_bytes + 96, bytes.begin() + 48));
    EXPECT_EQ(proof_from_bytes(bytes), pi);

    std::vector<proof> many = {pi, proof{random_g1(rng), random_g2(rng), random_g1(rng)}};
    std::vector<uint8_t> joined = proofs_to_bytes(many);
    ASSERT_EQ(joined.size(), 384u);
    EXPECT_EQ(proofs_from_bytes(joined), many);
}

TEST_F(Groth16Files, GarbageProofIsRejectedWithOffset) {
    proof pi{random_g1(rng), random_g2(rng), random_g1(rng)};
    auto good = proof_to_bytes(pi);
    std::mt19937_64 g(3);
    for (int t = 0; t < 200; ++t) {
        std::array<uint8_t, 192> junk;
        for (auto& x : junk) x = uint8_t(g());
        EXPECT_THROW(proof_from_bytes(junk), proof_decode_error);
    }
    // Damage in B names offset 48, in C offset 144.
    auto b = good;
    b[60] ^= 0x01;
    try {
        proof_from_bytes(b);
        FAIL() << "accepted a damaged B";
    } catch (const proof_decode_error& e) {
        EXPECT_EQ(e.offset(), 48u);
        EXPECT_NE(std::string(e.what()).find("byte offset 48"), std::string::npos) << e.what();
    }
    auto c = good;
    c[144] &= 0x7f;  // an uncompressed flag where a compressed point is expected
    try {
        proof_from_bytes(c);
        FAIL() << "accepted an uncompressed C";
    } catch (const proof_decode_error& e) {
        EXPECT_EQ(e.offset(), 144u);
    }
    // The identity is not a proof element.
    auto inf = good;
    std::fill(inf.begin(), inf.begin() + 48, 0);
    inf[0] = 0xc0;
    EXPECT_THROW(proof_from_bytes(inf), proof_decode_error);
    // Wrong lengths.
    EXPECT_THROW(proof_from_bytes(std::span<const uint8_t>(good.data(), 191)), proof_decode_error);
    std::vector<uint8_t> two = proofs_to_bytes(std::vector<proof>{pi, pi});
    two.pop_back();
    EXPECT_THROW(proofs_from_bytes(two), proof_decode_error);
    EXPECT_THROW(proofs_from_bytes({}), proof_decode_error);
    // The second proof of a batch names its own offset.
    two = proofs_to_bytes(std::vector<proof>{pi, pi});
    two[192 + 150] ^= 0x04;
    try {
        proofs_from_bytes(two);
        FAIL();
    } catch (const proof_decode_error& e) {
        EXPECT_EQ(e.offset(), 192u + 144u);
        EXPECT_NE(std::string(e.what()).find("proof[1]"), std::string::npos) << e.what();
    }
}
