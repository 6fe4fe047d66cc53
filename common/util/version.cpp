// The build's identity, printed by every binary's --version and in status replies.
#include "common/util/version.hpp"

namespace cuzk {

const char* version_string() { return "cuzk 0.1.0"; }

}  // namespace cuzk
