// Shared by the tests that read the @noble/curves vectors (tests/data/*.json, made by tests/oracle).
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace cuzk::test {

// Parses tests/data/<name> once per process (tests run on one thread).
inline const nlohmann::json& oracle_json(const std::string& name) {
    static std::map<std::string, nlohmann::json> docs;
    auto it = docs.find(name);
    if (it == docs.end()) {
        std::ifstream in(std::string(CUZK_TEST_DATA_DIR) + "/" + name);
        if (!in) throw std::runtime_error("cannot open tests/data/" + name);
        it = docs.emplace(name, nlohmann::json::parse(in)).first;
    }
    return it->second;
}

inline std::vector<uint8_t> unhex(const std::string& s) {
    std::vector<uint8_t> out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(std::stoul(s.substr(2 * i, 2), nullptr, 16));
    return out;
}

inline std::string hex(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; ++i) {
        s += digits[p[i] >> 4];
        s += digits[p[i] & 15];
    }
    return s;
}
inline std::string hex(const std::vector<uint8_t>& b) { return hex(b.data(), b.size()); }

}  // namespace cuzk::test
