// The configuration reference in markdown, generated from config_schema(): `cuzk config-reference` prints it
// and docs/configuration.md is its committed output (a test fails when the two differ).
#pragma once

#include <string>

namespace cuzk::daemon {

std::string config_reference();

}  // namespace cuzk::daemon
