// A PoRep C1 checked cheaply at submission, beyond its structure (c1::check_consistency): the first challenge of
// every partition is synthesized into a constraint system that checks each constraint as it is enforced, and the
// public inputs that circuit allocates are compared with those the verifier will use. A C1 with one wrong value
// (a digit of comm_r, a label, a sibling) is refused there, naming the partition and the first failing gadget,
// instead of after a whole partition was proved and its proof failed to verify. One challenge of 18 costs about
// 1/18 of a partition's synthesis (at 32 GiB, where a partition takes ~5 s, about 0.3 s by that ratio: not
// measured on its own yet), the partitions checked in parallel.
#pragma once

#include <string>

#include "daemon/porep_job_input.hpp"

namespace cuzk::daemon {

// |in| must have been read with keep_c1. Throws input_error naming |source|, the partition and the gadget (or the
// public input) of the first failure.
void check_first_challenges(const porep_job_input& in, const std::string& source);

}  // namespace cuzk::daemon
