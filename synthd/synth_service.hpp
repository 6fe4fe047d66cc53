// synthd: takes JOB messages (from assemblerd) on its control socket, synthesizes each partition in a pool
// of [synthd] threads, writes the witness into a ring slot and reports SLOT_READY to the assembler.
// Backpressure: a worker holding a witness waits for a FREE slot (the ring is full: gpud is behind), and no
// new synthesis starts while the witnesses held in memory reach [synthd] memory_budget_mib.
// gpud does not need SLOT_READY: its workers sleep on the ring's READY futex, so a message lost in a restart
// can never strand a slot.
#pragma once

#include "daemon/config.hpp"

namespace cuzk::synthd {

int serve(const daemon::config& c);

}  // namespace cuzk::synthd
