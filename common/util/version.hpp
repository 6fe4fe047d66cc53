#pragma once

namespace cuzk {

const char* version_string();

}  // namespace cuzk
