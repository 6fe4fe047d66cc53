#include "assemblerd/job_access.hpp"

#include <fmt/format.h>
#include <unistd.h>

namespace cuzk::assemblerd {

bool is_service_user(std::optional<uid_t> uid) { return uid && (*uid == 0 || *uid == ::geteuid()); }

bool may_act_on(const job& j, std::optional<uid_t> requester) {
    if (!j.owner_uid) return true;
    if (is_service_user(requester)) return true;
    return requester && *requester == *j.owner_uid;
}

std::string not_yours(const job& j) {
    return fmt::format("job {} belongs to another user (uid {}): only its submitter, the service's user or root may "
                       "await, fetch or cancel it",
                       j.id, j.owner_uid ? std::to_string(*j.owner_uid) : std::string("unknown"));
}

}  // namespace cuzk::assemblerd
