// The waterfall of `cuzk timeline` drawn as a self-contained SVG 1.1 image (no scripts, no external
// fonts: text is in the generic sans-serif family): one row per partition with a bar per phase, one
// band per GPU with its busy intervals and the gaps between them, a time axis in seconds from the first
// event, a legend, and the GPU efficiency in the title. The words are those of timeline_log.hpp.
//
// Phases of a partition row, each drawn only where both of its events were logged:
//   synthesis   SYNTH_START..SYNTH_END
//   ring wait   SLOT_READY..GPU_PICKUP   (READY in the ring, unclaimed)
//   prep        GPU_PICKUP..lock wait    (claimed by a worker, preparing outside the lock)
//   lock wait   the ms= of LOCK_WAIT, ending at GPU_START
//   GPU         GPU_START..GPU_END       (under the CUDA lock; without GPU_END, faint to the last event)
//   tail        GPU_END..TAIL_END
// A GPU band shows the busy intervals in the colour of their job over the GPU colour, and each gap in
// red (synthesis stall) or orange (overhead), its height giving the bucket: < 50 ms a third of the
// band, 50-500 ms two thirds, > 500 ms all of it.
#pragma once

#include <string>
#include <string_view>

#include "common/daemon/timeline_log.hpp"

namespace cuzk::timeline {

struct svg_options {
    int width = 1200;  // px; the height follows from the number of rows
};

std::string render_svg(const analysis& a, const log_set& logs, const svg_options& options = {});

// |text| made safe inside an XML element or a quoted attribute: the five markup characters become
// entities, characters XML 1.0 forbids and bytes that are not UTF-8 become '?'.
std::string xml_escape(std::string_view text);

}  // namespace cuzk::timeline
