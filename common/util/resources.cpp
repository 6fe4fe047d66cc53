#include "common/util/resources.hpp"

#include <sys/resource.h>

namespace cuzk {

double peak_rss_mib() {
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    return double(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

}  // namespace cuzk
