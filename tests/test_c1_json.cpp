// C1 (SealCommitPhase1Output) JSON: round trips through the serde-form writer and the On-Demand
// parser, the lotus-bench c2in.json wrapper, consistency checks, and error messages that name the
// JSON path of the fault. The C1 here is synthetic but self-consistent: columns hash to their tree C
// leaves, roots agree, comm_r = Poseidon(comm_c, comm_r_last); Merkle paths are random (the checks
// do not walk them: the circuit does).
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/ff/bls12_381.hpp"
#include "common/poseidon/poseidon.hpp"
#include "common/util/base64.hpp"
#include "common/util/errors.hpp"
#include "tests/support/synthetic_c1.hpp"

namespace {

using namespace cuzk;
using c1::domain_t;
using test::synthetic_c1;

std::string base64(const std::string& s) {
    std::string out(4 * ((s.size() + 2) / 3) + 1, '\0');
    int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                            reinterpret_cast<const unsigned char*>(s.data()), int(s.size()));
    out.resize(size_t(n));
    return out;
}

// The message of the input_error |f| throws; fails the test when it throws nothing.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e.what();
    }
    ADD_FAILURE() << "expected an input_error";
    return {};
}

TEST(C1Json, RoundTripThroughSerdeForm) {
    synthetic_c1 gen(1);
    auto c1 = gen.make(2, 3);
    std::string json = c1::write_c1_json(c1);
    EXPECT_EQ(json.rfind("{\"registered_proof\":\"StackedDrg4KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg4KiBV1\":[[", 0),
              0u);
    auto back = c1::parse_c1_json(json);
    EXPECT_EQ(back, c1);
    EXPECT_EQ(c1::write_c1_json(back), json);
    EXPECT_NO_THROW(c1::check_consistency(back));
}

TEST(C1Json, FieldOrderAndWhitespaceDoNotMatter) {
    synthetic_c1 gen(2);
    auto c1 = gen.make(1, 1);
    // nlohmann::json keeps object members sorted by key, so its dump reorders every object (top level
    // and nested) away from serde's declaration order; pretty-printing adds whitespace; an unknown
    // member is added as a newer writer might.
    auto doc = nlohmann::json::parse(c1::write_c1_json(c1));
    doc["extra"] = {{"x", {1, 2}}};
    std::string reordered = doc.dump(2);
    ASSERT_LT(reordered.find("\"comm_d\""), reordered.find("\"registered_proof\""));
    EXPECT_EQ(c1::parse_c1_json(reordered), c1);
}

TEST(C1Json, LotusBenchWrapper) {
    synthetic_c1 gen(3);
    auto c1 = gen.make(1, 2);
    std::string wrapped = R"({"SectorNum":7,"Phase1Out":")" + base64(c1::write_c1_json(c1)) + R"(","SectorSize":4096})";
    EXPECT_EQ(c1::parse_c1_json(wrapped), c1);

    std::string wrong_size = R"({"SectorNum":7,"Phase1Out":")" + base64(c1::write_c1_json(c1)) +
                             R"(","SectorSize":2048})";
    std::string msg = error_of([&] { c1::parse_c1_json(wrong_size, "c2in.json"); });
    EXPECT_NE(msg.find("c2in.json: $.SectorSize: 2048 does not match the registered proof StackedDrg4KiBV1_1"),
              std::string::npos)
        << msg;

    msg = error_of([&] { c1::parse_c1_json(R"({"Phase1Out":"not base64!"})", "c2in.json"); });
    EXPECT_NE(msg.find("c2in.json: $.Phase1Out: not valid base64"), std::string::npos) << msg;

    msg = error_of([&] { c1::parse_c1_json(R"({"Phase1Out":")" + base64("{\"registered_proof\": 5}") + "\"}", "w"); });
    EXPECT_NE(msg.find("w: Phase1Out (base64 JSON): $.registered_proof: expected a string"), std::string::npos) << msg;
}

TEST(C1Json, ReadsFiles) {
    synthetic_c1 gen(4);
    auto c1 = gen.make(1, 1);
    auto dir = std::filesystem::temp_directory_path() / ("cuzk-c1-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    {
        std::ofstream(dir / "c1.json") << c1::write_c1_json(c1);
    }
    EXPECT_EQ(c1::read_c1_file(dir / "c1.json"), c1);
    std::string msg = error_of([&] { c1::read_c1_file(dir / "missing.json"); });
    EXPECT_NE(msg.find("missing.json: cannot read it"), std::string::npos) << msg;
    std::filesystem::remove_all(dir);
}

TEST(C1Json, BadJsonNamesThePath) {
    synthetic_c1 gen(5);
    auto c1 = gen.make(1, 2);
    std::string json = c1::write_c1_json(c1);

    // A wrong type deep inside: the second challenge's second DRG parent column index.
    auto deep = c1;
    deep.partitions[0][1].replica_columns.drg_parents[1].col.index = 123456789;
    std::string tampered = c1::write_c1_json(deep);
    size_t at = tampered.find("\"index\":123456789");
    ASSERT_NE(at, std::string::npos);
    tampered.replace(at, std::string_view("\"index\":123456789").size(), "\"index\":\"oops\"");
    std::string msg0 = error_of([&] { c1::parse_c1_json(tampered, "f.json"); });
    EXPECT_NE(msg0.find("f.json: $.vanilla_proofs.StackedDrg4KiBV1[0][1].replica_column_proofs.drg_parents[1]"
                        ".column.index: expected an unsigned integer"),
              std::string::npos)
        << msg0;

    std::string msg = error_of([&] { c1::parse_c1_json(R"({"registered_proof":"x","comm_r":[1,2,3]})", "f.json"); });
    EXPECT_NE(msg.find("f.json: $.comm_r: expected exactly 32 bytes, got 3"), std::string::npos) << msg;

    std::string bytes33 = "[";
    for (int i = 0; i < 33; ++i) bytes33 += (i ? ",1" : "1");
    bytes33 += "]";
    msg = error_of([&] { c1::parse_c1_json(R"({"seed":)" + bytes33 + "}", "f.json"); });
    EXPECT_NE(msg.find("f.json: $.seed[32]: expected exactly 32 bytes, got more"), std::string::npos) << msg;

    msg = error_of([&] { c1::parse_c1_json(R"({"ticket":[256)" + std::string(31 * 2, ' ') + "]}", "f.json"); });
    EXPECT_NE(msg.find("$.ticket[0]: byte value 256 is out of range 0..255"), std::string::npos) << msg;

    // Missing field: remove "seed" from a valid document.
    std::string no_seed = json;
    size_t s = no_seed.find(",\"seed\":");
    size_t e = no_seed.find(",\"ticket\":");
    no_seed.erase(s, e - s);
    msg = error_of([&] { c1::parse_c1_json(no_seed, "f.json"); });
    EXPECT_NE(msg.find("f.json: $: missing field \"seed\""), std::string::npos) << msg;

    // A Merkle proof variant that does not exist.
    std::string bad_variant = json;
    bad_variant.replace(bad_variant.find("\"Single\""), 8, "\"Double\"");
    msg = error_of([&] { c1::parse_c1_json(bad_variant, "f.json"); });
    EXPECT_NE(msg.find("$.vanilla_proofs.StackedDrg4KiBV1[0][0].comm_d_proofs.data.Double: unknown proof variant"),
              std::string::npos)
        << msg;

    // Truncation anywhere is an error, never a crash.
    for (size_t cut : {size_t(1), json.size() / 3, json.size() / 2, json.size() - 1}) {
        msg = error_of([&] { c1::parse_c1_json(json.substr(0, cut), "cut.json"); });
        EXPECT_NE(msg.find("cut.json"), std::string::npos) << msg;
    }
    msg = error_of([&] { c1::parse_c1_json(json + " {}", "f.json"); });
    EXPECT_NE(msg.find("trailing content"), std::string::npos) << msg;
    msg = error_of([&] { c1::parse_c1_json("", "empty.json"); });
    EXPECT_NE(msg.find("empty.json"), std::string::npos) << msg;
    msg = error_of([&] { c1::parse_c1_json("[1,2]", "arr.json"); });
    EXPECT_NE(msg.find("arr.json: $: expected an object"), std::string::npos) << msg;
}

TEST(C1Json, ByteOffsetIsReported) {
    std::string msg = error_of([&] { c1::parse_c1_json(R"({"comm_d": [1, 2, "x"]})", "f.json"); });
    EXPECT_NE(msg.find("$.comm_d[2]: expected a byte (0..255)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(byte "), std::string::npos) << msg;
}

TEST(C1Consistency, DetectsTampering) {
    synthetic_c1 gen(6);
    const auto good = gen.make(2, 2);
    ASSERT_NO_THROW(c1::check_consistency(good));

    auto expect_fault = [&](auto mutate, const std::string& fragment) {
        auto c1 = good;
        mutate(c1);
        std::string msg = error_of([&] { c1::check_consistency(c1, "c1.json"); });
        EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
    };
    // One label of one column flipped: the column no longer hashes to its tree C leaf.
    expect_fault([](auto& c) { c.partitions[1][0].replica_columns.exp_parents[3].col.rows[0][0] ^= 1; },
                 "c1.json: $.vanilla_proofs.StackedDrg4KiBV1[1][0].replica_column_proofs.exp_parents[3]: the column's hash");
    expect_fault([](auto& c) { c.comm_r[0] ^= 1; }, "$.comm_r: ");
    expect_fault([](auto& c) { c.partitions[0][1].comm_d_proof.root[3] ^= 1; },
                 "$.vanilla_proofs.StackedDrg4KiBV1[0][1].comm_d_proofs: root");
    expect_fault([](auto& c) { c.partitions[1][1].comm_r_last_proof.root[3] ^= 1; },
                 "[1][1].comm_r_last_proof: root");
    expect_fault([](auto& c) { c.partitions[1].pop_back(); }, "[1]: 1 challenge proofs where partition 0 has 2");
    expect_fault([](auto& c) { c.partitions[0][0].replica_columns.drg_parents.pop_back(); },
                 "drg_parents: 5 columns, expected 6");
    expect_fault([](auto& c) { c.partitions[0][0].labeling_proofs[1].layer_index = 3; },
                 "labeling_proofs[1]: layer_index 3 at position 1");
    expect_fault([](auto& c) { c.partitions[0][1].labeling_proofs[1].parents[20][0] ^= 1; },
                 "[0][1].labeling_proofs[1].parents[20]: differs from parents[6]");
    expect_fault([](auto& c) { c.partitions[0][1].encoding_proof.parents.pop_back(); },
                 "[0][1].encoding_proof.parents: 36 parent labels, expected 37");
    expect_fault([](auto& c) { c.partitions[0][0].comm_r_last_proof.base_path[0].index ^= 1; },
                 "comm_r_last_proof: opens node");
    expect_fault([](auto& c) { c.vanilla_variant = "StackedDrg2KiBV1"; },
                 "$.vanilla_proofs: variant \"StackedDrg2KiBV1\" does not match registered proof StackedDrg4KiBV1_1");
    expect_fault([](auto& c) { c.registered_proof = "WindowPoSt"; }, "$.registered_proof: \"WindowPoSt\" is not");
    expect_fault([](auto& c) { c.partitions.clear(); }, "no partitions");
    expect_fault([](auto& c) { std::fill(c.replica_id.begin(), c.replica_id.end(), 0xFF); },
                 "$.replica_id: not a canonical field element");
}

// Seen with the C1 fuzz target (tests/fuzz/fuzz_c1_json.cpp): columns of more rows than Poseidon has an arity for made the
// column hash throw std::invalid_argument, which assemblerd answers as an internal error, not as a bad C1.
TEST(C1Consistency, ColumnsTallerThanAnyPoseidonArityAreABadC1) {
    synthetic_c1 gen(7);
    auto c1 = gen.make(1, 1);
    auto& rows = c1.partitions[0][0].replica_columns.c_x.col.rows;
    rows.resize(poseidon::MAX_ARITY + 4, rows[0]);
    std::string msg = error_of([&] { c1::check_consistency(c1, "c1.json"); });
    EXPECT_NE(msg.find("replica_column_proofs.c_x.column.rows: 40 rows: a column has one row per layer, at most 36"),
              std::string::npos)
        << msg;
}

TEST(Base64, DecodesAndRejects) {
    auto d = util::base64_decode("aGVsbG8=");
    ASSERT_TRUE(d);
    EXPECT_EQ(std::string(d->begin(), d->end()), "hello");
    d = util::base64_decode(" aGVsbG8h\n");
    ASSERT_TRUE(d);
    EXPECT_EQ(std::string(d->begin(), d->end()), "hello!");
    EXPECT_TRUE(util::base64_decode("")->empty());
    EXPECT_FALSE(util::base64_decode("aGVsbG8"));    // length not a multiple of 4
    EXPECT_FALSE(util::base64_decode("aG=sbG8h"));   // padding in the middle
    EXPECT_FALSE(util::base64_decode("aGVs*G8h"));   // not in the alphabet
}

}  // namespace
