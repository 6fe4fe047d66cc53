#include "daemon/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <string>

namespace cuzk::daemon {

void setup_logging(std::string_view stage, std::string_view level) {
    auto logger = std::make_shared<spdlog::logger>(std::string(stage), std::make_shared<spdlog::sinks::stderr_sink_mt>());
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n %P] [%l] %v");
    logger->set_level(spdlog::level::from_str(std::string(level)));
    // Warnings and errors reach the journal at once; the rest is flushed by spdlog's periodic flusher.
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(std::move(logger));
    spdlog::flush_every(std::chrono::seconds(1));
}

}  // namespace cuzk::daemon
