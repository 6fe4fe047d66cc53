// Reading a command's output in the tests: the JSON object printed in it (the text from its first '{' to its
// last '}', so that log lines around it do not matter), and whether it contains a text.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "run_command.hpp"

namespace cuzk::test {

inline nlohmann::json json_of_output(const std::string& out) {
    return nlohmann::json::parse(out.substr(out.find('{'), out.rfind('}') - out.find('{') + 1));
}

inline bool output_contains(const command_result& r, const std::string& part) {
    return r.output.find(part) != std::string::npos;
}

}  // namespace cuzk::test
