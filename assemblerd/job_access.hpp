// Whose job is whose: a job belongs to the user that submitted it on assemblerd's request socket (its uid, from
// the connection: daemon/peer_credentials.hpp, journaled with the job). A member of the service's group may
// await, fetch, cancel and see in `cuzk status` only its own jobs; the service's own user and root may act on
// every job. The gRPC API reaches assemblerd as the service's user, so its client (Curio) is trusted with every
// job: gRPC on a Unix socket does not tell who called, and the API socket's group is what admits it.
// Jobs journaled before ownership was recorded have no owner and stay open to every client, as they were.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "assemblerd/job.hpp"

namespace cuzk::assemblerd {

// The service's own user (this process's effective uid) or root.
bool is_service_user(std::optional<uid_t> uid);

// Whether |requester| may act on |j|; std::nullopt requester: a client that could not be told, which may act only
// on jobs without an owner.
bool may_act_on(const job& j, std::optional<uid_t> requester);

// "job 7 belongs to another user (uid 1001)": the refusal's text.
std::string not_yours(const job& j);

}  // namespace cuzk::assemblerd
