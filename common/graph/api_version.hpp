// The proof API version a registered seal proof uses. The StackedDRG graph changed between them:
// V1_0 puts a DRG node's predecessor last and truncates expander indices to 32 bits before the
// division by the expansion degree (a bug that leaves 32/64 GiB expander parents in the lower part
// of the layer); V1_1 and V1_2 put the predecessor first and divide in 64 bits.
#pragma once

namespace cuzk::graph {

enum class api_version { v1_0, v1_1, v1_2 };

}  // namespace cuzk::graph
