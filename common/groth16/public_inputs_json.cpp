#include "common/groth16/public_inputs_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/ff/decimal.hpp"
#include "common/util/errors.hpp"

namespace cuzk::groth16 {

std::vector<ff::fr_t> parse_public_inputs(const std::string& text, const std::string& where) {
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        throw input_error(where + ": not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
    } catch (const nlohmann::json::exception& e) {  // out_of_range: a number too large for a double
        throw input_error(where + ": not valid JSON: " + e.what());
    }
    if (!doc.is_array()) throw input_error(where + ": expected a JSON array of decimal strings");
    std::vector<ff::fr_t> out;
    out.reserve(doc.size());
    for (size_t i = 0; i < doc.size(); ++i) {
        const auto& v = doc[i];
        std::string text_value;
        if (v.is_string()) {
            text_value = v.get<std::string>();
        } else if (v.is_number_unsigned()) {
            text_value = std::to_string(v.get<uint64_t>());
        } else {
            throw input_error(where + ": element [" + std::to_string(i) + "] is " + v.type_name() +
                              ", expected a decimal string");
        }
        ff::fr_t x;
        std::string why;
        if (!ff::from_decimal(text_value, x, why)) {
            throw input_error(where + ": element [" + std::to_string(i) + "]: " + why);
        }
        out.push_back(x);
    }
    return out;
}

std::vector<ff::fr_t> read_public_inputs(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path + ": cannot open public inputs file");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse_public_inputs(ss.str(), path);
}

void write_public_inputs(const std::string& path, std::span<const ff::fr_t> inputs) {
    nlohmann::json doc = nlohmann::json::array();
    for (const auto& x : inputs) doc.push_back(ff::to_decimal(x));
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(path + ": cannot create public inputs file");
    out << doc.dump() << "\n";
    if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace cuzk::groth16
