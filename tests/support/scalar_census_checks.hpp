// What every `cuzk circuit-info --scalar-census` report must hold, whatever the proof kind: the census covers
// the rows and variables the counting synthesis reports (L: every aux variable; A: at most the inputs and every
// aux variable; B: some), and each query's class counts add up to its scalars.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

namespace cuzk::test {

// |report|: circuit-info's whole JSON, with its "scalar_census".
inline void expect_census_covers_the_partition(const nlohmann::json& report) {
    const auto& c = report["scalar_census"];
    const uint64_t aux = report["aux"], inputs = report["inputs"];
    EXPECT_EQ(c["rows"].get<uint64_t>(), report["constraints_with_input_rows"].get<uint64_t>());
    EXPECT_EQ(c["l"]["scalars"].get<uint64_t>(), aux);
    EXPECT_LE(c["a"]["scalars"].get<uint64_t>(), aux + inputs);
    EXPECT_GT(c["b"]["scalars"].get<uint64_t>(), 0u);
    EXPECT_LT(c["b"]["scalars"].get<uint64_t>(), aux + inputs);
    for (const char* q : {"l", "a", "b"}) {
        const auto& k = c[q];
        EXPECT_EQ(k["zero"].get<uint64_t>() + k["one"].get<uint64_t>() + k["small"].get<uint64_t>() +
                      k["other"].get<uint64_t>(),
                  k["scalars"].get<uint64_t>())
            << q;
    }
}

}  // namespace cuzk::test
