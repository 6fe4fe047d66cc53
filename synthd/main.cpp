// cuzk-synthd: synthesizes partitions into ring slots (see synth_service.hpp).
#include "daemon/daemon_main.hpp"
#include "synthd/synth_service.hpp"

int main(int argc, char** argv) {
    return cuzk::daemon::daemon_main(argc, argv,
                                     {.name = "synthd",
                                      .description = "cuzk synthesis daemon: partitions -> witnesses in the shared ring",
                                      .takes_gpu = false,
                                      .serve = [](const cuzk::daemon::config& c) { return cuzk::synthd::serve(c); }});
}
