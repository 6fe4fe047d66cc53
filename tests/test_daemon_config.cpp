// The daemons' TOML configuration: defaults without a file, the documented example parses, and every
// mistake (syntax, unknown section or key, wrong type, out of range) is refused naming file, line and key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/util/errors.hpp"
#include "daemon/config.hpp"
#include "tests/support/config_file.hpp"

using namespace cuzk;

namespace {

std::string error_of(const std::string& text) { return test::config_error_of(text); }

// The configuration |text| (TOML) reads as.
daemon::config parsed(const std::string& text) {
    const auto path =
        std::filesystem::temp_directory_path() / ("cuzk-config-parsed-" + std::to_string(::getpid()) + ".toml");
    std::ofstream(path) << text;
    auto c = daemon::load_config(path);
    std::filesystem::remove(path);
    return c;
}

}  // namespace

TEST(DaemonConfig, DefaultsWorkWithoutAFile) {
    auto c = daemon::load_config_or_defaults(std::nullopt);
    c.runtime.dir = "/tmp/cuzk-x";
    c.resolve_defaults();
    EXPECT_EQ(c.runtime.spool_dir, "/tmp/cuzk-x/spool");
    EXPECT_EQ(c.gpud.params_dir, "/tmp/cuzk-x/spool/params");
    EXPECT_EQ(c.gpud.lock_name, "cuzk-cuda-lock-gpu0");
    EXPECT_EQ(c.gpud.workers, 2u);
    EXPECT_EQ(c.effective_dispatch_window(), c.synthd.threads + c.synthd.lookahead);
    EXPECT_EQ(c.endpoint("synthd"), "ipc:///tmp/cuzk-x/synthd.sock");
}

// [gpud] lock_name: empty, one lock per GPU by the default name; {gpu} in a name stands for the GPU's index
// (one file serves the gpuds of several GPUs, each with its own lock); a fixed name is one lock for all.
TEST(DaemonConfig, LockNameIsPerGpuUnlessFixed) {
    daemon::config c;
    c.gpud.gpu = 3;
    c.resolve_defaults();
    EXPECT_EQ(c.gpud.lock_name, "cuzk-cuda-lock-gpu3");
    EXPECT_TRUE(c.gpud.lock_per_gpu);
    auto named = parsed("[gpud]\nlock_name = \"pipe-{gpu}-lock-{gpu}\"\ngpu = 2\n");
    named.resolve_defaults();
    EXPECT_EQ(named.gpud.lock_name, "pipe-2-lock-2");
    EXPECT_TRUE(named.gpud.lock_per_gpu);
    named.resolve_defaults();  // again: nothing changes
    EXPECT_EQ(named.gpud.lock_name, "pipe-2-lock-2");
    EXPECT_TRUE(named.gpud.lock_per_gpu);
    auto fixed = parsed("[gpud]\nlock_name = \"one-lock\"\ngpu = 2\n");
    fixed.resolve_defaults();
    EXPECT_EQ(fixed.gpud.lock_name, "one-lock");
    EXPECT_FALSE(fixed.gpud.lock_per_gpu);
}

TEST(DaemonConfig, TheDocumentedExampleParses) {
    const auto c = daemon::load_config(CUZK_SOURCE_DIR "/systemd/cuzk.example.toml");
    EXPECT_EQ(c.ring.slots, 4u);
    EXPECT_EQ(c.runtime.spool_dir, "/var/lib/cuzk/spool");
    EXPECT_EQ(c.gpud.backend, "auto");
    EXPECT_EQ(c.gpud.pinned_cache_mib, 16384u);
    EXPECT_EQ(c.gpud.pin_min_mib, 32u);
    EXPECT_TRUE(c.gpud.b_g2_on_gpu);
    EXPECT_EQ(c.gpud.params_memory, "auto");
    EXPECT_TRUE(c.gpud.release_host_points);
    EXPECT_FALSE(c.synthd.numa_node.has_value());
}

TEST(DaemonConfig, ParamsMemoryIsAutoByDefaultAndTakesAutoDeviceOrHost) {
    EXPECT_EQ(daemon::load_config_or_defaults(std::nullopt).gpud.params_memory, "auto");
    for (const std::string where : {"auto", "device", "host"})
        EXPECT_EQ(parsed("[gpud]\nparams_memory = \"" + where + "\"\n").gpud.params_memory, where);
    for (const std::string bad : {"gpu", "HOST", ""}) {
        const auto e = error_of("[gpud]\nparams_memory = \"" + bad + "\"\n");
        EXPECT_NE(e.find("[gpud] params_memory '" + bad + "' is not 'auto', 'device' or 'host'"), std::string::npos)
            << e;
    }
    const auto e = error_of("[gpud]\nparams_memory = 1\n");
    EXPECT_NE(e.find("params_memory"), std::string::npos) << e;
}

TEST(DaemonConfig, BackendIsAutoByDefaultAndTakesAutoCpuOrCuda) {
    EXPECT_EQ(daemon::load_config_or_defaults(std::nullopt).gpud.backend, "auto");
    for (const std::string name : {"auto", "cpu", "cuda"})
        EXPECT_EQ(parsed("[gpud]\nbackend = \"" + name + "\"\n").gpud.backend, name);
    for (const std::string bad : {"opencl", "CUDA", "", "gpu"}) {
        const auto e = error_of("[gpud]\nbackend = \"" + bad + "\"\n");
        EXPECT_NE(e.find("[gpud] backend '" + bad + "' is not 'auto', 'cpu' or 'cuda'"), std::string::npos) << e;
    }
}

TEST(DaemonConfig, PreloadIsEmptyByDefaultAndTakesCurioIdsAndSpecsEachOnce) {
    EXPECT_TRUE(daemon::gpud_preload_specs(daemon::load_config_or_defaults(std::nullopt)).empty());
    const auto c = parsed("[gpud]\npreload = \" winning-32g, porep:StackedDrg2KiBV1,,wpost-32g , winning-32g\"\n");
    EXPECT_EQ(daemon::gpud_preload_specs(c),
              (std::vector<std::string>{"post:StackedDrgWinning32GiBV1", "porep:StackedDrg2KiBV1",
                                        "post:StackedDrgWindow32GiBV1_1"}));
    EXPECT_EQ(daemon::gpud_preload_specs(parsed("[gpud]\npreload = \"porep-32g,mul:64\"\n")),
              (std::vector<std::string>{"porep:StackedDrg32GiBV1_1", "mul:64"}));
    // WinningPoSt's sets first, the others as listed.
    EXPECT_EQ(daemon::gpud_preload_specs(parsed("[gpud]\npreload = \"porep-32g, mul:64, winning-32g\"\n")),
              (std::vector<std::string>{"post:StackedDrgWinning32GiBV1", "porep:StackedDrg32GiBV1_1", "mul:64"}));
    for (const std::string bad : {"porep-3k", "porep:StackedDrg3KiBV1", "winning"}) {
        const auto e = error_of("[gpud]\npreload = \"winning-32g, " + bad + "\"\n");
        EXPECT_NE(e.find("[gpud] preload: circuit_id '" + bad + "'"), std::string::npos) << e;
    }
    const auto e = error_of("[gpud]\npreload = [\"winning-32g\"]\n");
    EXPECT_NE(e.find("preload"), std::string::npos) << e;
}

TEST(DaemonConfig, ValuesAreRead) {
    const auto path = std::filesystem::temp_directory_path() / "cuzk-config-values.toml";
    std::ofstream(path) << "[ring]\nslots = 9\n[synthd]\nnuma_node = 1\ncpus = \"0-3\"\n[assemblerd]\nverify = false\n"
                           "[gpud]\npinned_cache_mib = 0\npin_min_mib = 1\nb_g2_on_gpu = false\n"
                           "release_host_points = false\nwinning_post_beside_lock = false\nsparse_streaming = false\n";
    const auto c = daemon::load_config(path);
    std::filesystem::remove(path);
    EXPECT_EQ(c.ring.slots, 9u);
    EXPECT_EQ(c.synthd.numa_node, 1);
    EXPECT_EQ(c.synthd.cpus, "0-3");
    EXPECT_FALSE(c.assemblerd.verify);
    EXPECT_EQ(c.gpud.pinned_cache_mib, 0u);
    EXPECT_EQ(c.gpud.pin_min_mib, 1u);
    EXPECT_FALSE(c.gpud.b_g2_on_gpu);
    EXPECT_FALSE(c.gpud.release_host_points);
    EXPECT_FALSE(c.gpud.winning_post_beside_lock);
    EXPECT_FALSE(c.gpud.sparse_streaming);
    const auto d = daemon::load_config_or_defaults(std::nullopt);
    EXPECT_EQ(d.gpud.pin_min_mib, 32u);
    EXPECT_TRUE(d.gpud.b_g2_on_gpu);
    EXPECT_TRUE(d.gpud.release_host_points);
    EXPECT_TRUE(d.gpud.winning_post_beside_lock);
    EXPECT_TRUE(d.gpud.sparse_streaming);
}

TEST(DaemonConfig, MaxPartitionAttemptsIsThreeByDefaultIsReadAndRefusesZero) {
    EXPECT_EQ(daemon::load_config_or_defaults(std::nullopt).assemblerd.max_partition_attempts, 3u);
    EXPECT_EQ(daemon::load_config(CUZK_SOURCE_DIR "/systemd/cuzk.example.toml").assemblerd.max_partition_attempts, 3u);
    const auto path = std::filesystem::temp_directory_path() /
                      ("cuzk-config-attempts-" + std::to_string(::getpid()) + ".toml");
    std::ofstream(path) << "[assemblerd]\nmax_partition_attempts = 5\n";
    const auto c = daemon::load_config(path);
    std::filesystem::remove(path);
    EXPECT_EQ(c.assemblerd.max_partition_attempts, 5u);
    const auto zero = error_of("[assemblerd]\nmax_partition_attempts = 0\n");
    EXPECT_NE(zero.find(":2:26: [assemblerd] max_partition_attempts must be at least 1, not 0 (the first attempt "
                        "counts"),
              std::string::npos)
        << zero;
    const auto negative = error_of("[assemblerd]\nmax_partition_attempts = -2\n");
    EXPECT_NE(negative.find("[assemblerd] max_partition_attempts must be an integer in 1..1048576"), std::string::npos)
        << negative;
    const auto text = error_of("[assemblerd]\nmax_partition_attempts = \"three\"\n");
    EXPECT_NE(text.find("[assemblerd] max_partition_attempts must be an integer"), std::string::npos) << text;
}

TEST(DaemonConfig, MistakesNameFileLineAndKey) {
    EXPECT_NE(error_of("[ring]\nslotz = 4\n").find(":2:9: unknown key 'slotz' in [ring]"), std::string::npos)
        << error_of("[ring]\nslotz = 4\n");
    EXPECT_NE(error_of("[rings]\nslots = 4\n").find("unknown section 'rings'"), std::string::npos);
    EXPECT_NE(error_of("[ring]\nslots = \"four\"\n").find("[ring] slots must be an integer"), std::string::npos);
    EXPECT_NE(error_of("[ring]\nslots = 0\n").find("1..65536"), std::string::npos);
    EXPECT_NE(error_of("[gpud]\nbackend = \"opencl\"\n").find("backend 'opencl'"), std::string::npos);
    EXPECT_NE(error_of("[gpud]\npinned_cache_mib = -1\n").find("pinned_cache_mib"), std::string::npos)
        << error_of("[gpud]\npinned_cache_mib = -1\n");
    EXPECT_NE(error_of("[gpud]\npin_min_mib = -3\n").find("pin_min_mib"), std::string::npos)
        << error_of("[gpud]\npin_min_mib = -3\n");
    EXPECT_NE(error_of("[gpud]\nb_g2_on_gpu = \"cpu\"\n").find("[gpud] b_g2_on_gpu must be true or false"),
              std::string::npos)
        << error_of("[gpud]\nb_g2_on_gpu = \"cpu\"\n");
    EXPECT_NE(error_of("[ring\n").find(":1:"), std::string::npos) << error_of("[ring\n");
    EXPECT_NE(error_of("verify = true\n").find("top-level key 'verify'"), std::string::npos);
}

// Seen with the configuration fuzz target (tests/fuzz/fuzz_config.cpp): nan compares false with both bounds, so a
// range check written as "below lo or above hi" let it through, into the timeouts built from these keys.
TEST(DaemonConfig, NotANumberIsOutOfEveryRange) {
    for (const char* text : {"[assemblerd]\npartition_timeout_s = nan\n", "[assemblerd]\nresult_ttl_s = -nan\n",
                             "[assemblerd]\nresult_ttl_s = inf\n"})
        EXPECT_NE(error_of(text).find("must be a number in"), std::string::npos) << text << ": " << error_of(text);
}

// [api]: a TCP listen address other than loopback needs allow_from (the client networks); TLS takes a certificate
// and its key together, client certificates need TLS; [metrics] serves HTTP over TCP only.
TEST(DaemonConfig, ApiListenBeyondLoopbackNeedsAllowFrom) {
    const auto open = error_of("[api]\nlisten = \"0.0.0.0:9820\"\n");
    EXPECT_NE(open.find("[api] listen = \"0.0.0.0:9820\" is reachable from other hosts: set [api] allow_from"),
              std::string::npos)
        << open;
    const auto v6 = error_of("[api]\nlisten = \"[::]:9820\"\n");
    EXPECT_NE(v6.find("set [api] allow_from"), std::string::npos) << v6;

    const auto allowed = parsed("[api]\nlisten = \"0.0.0.0:9820\"\nallow_from = \"10.0.0.0/8, fd00::/8\"\n");
    EXPECT_EQ(allowed.api.listen, "0.0.0.0:9820");
    EXPECT_EQ(allowed.api.allow_from, "10.0.0.0/8, fd00::/8");
    for (const std::string loopback : {"127.0.0.1:9820", "[::1]:9820", "localhost:9820", "unix:///run/cuzk/api.sock"})
        EXPECT_EQ(error_of("[api]\nlisten = \"" + loopback + "\"\n"), "") << loopback;
    auto defaults = daemon::load_config_or_defaults(std::nullopt);
    defaults.runtime.dir = "/tmp/cuzk-x";
    EXPECT_EQ(defaults.api_listen(), "unix:///tmp/cuzk-x/cuzk.sock");

    const auto host = error_of("[api]\nlisten = \"example.com:9820\"\n");
    EXPECT_NE(host.find("[api] listen = \"example.com:9820\": 'example.com' is not an IP address"), std::string::npos)
        << host;
}

TEST(DaemonConfig, ABadAllowFromIsNamed) {
    const auto with_listen = error_of("[api]\nlisten = \"0.0.0.0:9820\"\nallow_from = \"10.0.0.0/33\"\n");
    EXPECT_NE(with_listen.find("[api] allow_from: '10.0.0.0/33' has a bad prefix length (0..32)"), std::string::npos)
        << with_listen;
    const auto alone = error_of("[api]\nallow_from = \"10.0.0.0/8, lan\"\n");
    EXPECT_NE(alone.find("[api] allow_from: 'lan' is not an IP address or CIDR network"), std::string::npos) << alone;
}

TEST(DaemonConfig, TlsTakesCertificateAndKeyTogetherAndClientCaNeedsTls) {
    const auto cert_only = error_of("[api]\ntls_cert = \"/etc/cuzk/api.crt\"\n");
    EXPECT_NE(cert_only.find("[api] tls_cert and tls_key go together"), std::string::npos) << cert_only;
    const auto key_only = error_of("[api]\ntls_key = \"/etc/cuzk/api.key\"\n");
    EXPECT_NE(key_only.find("[api] tls_cert and tls_key go together"), std::string::npos) << key_only;
    const auto ca_only = error_of("[api]\ntls_client_ca = \"/etc/cuzk/clients.crt\"\n");
    EXPECT_NE(ca_only.find("[api] tls_client_ca needs TLS: set tls_cert and tls_key too"), std::string::npos)
        << ca_only;
    const auto tls = parsed("[api]\ntls_cert = \"/etc/cuzk/api.crt\"\ntls_key = \"/etc/cuzk/api.key\"\n"
                            "tls_client_ca = \"/etc/cuzk/clients.crt\"\n");
    EXPECT_EQ(tls.api.tls_cert, "/etc/cuzk/api.crt");
    EXPECT_EQ(tls.api.tls_key, "/etc/cuzk/api.key");
    EXPECT_EQ(tls.api.tls_client_ca, "/etc/cuzk/clients.crt");
}

TEST(DaemonConfig, MetricsListenIsTcpOnly) {
    const auto e = error_of("[metrics]\nlisten = \"unix:///x\"\n");
    EXPECT_NE(e.find("[metrics] listen = \"unix:///x\": a Unix socket is not accepted here"), std::string::npos) << e;
    EXPECT_EQ(parsed("[metrics]\nlisten = \"\"\n").metrics.listen, "");
    EXPECT_EQ(parsed("[metrics]\nlisten = \"127.0.0.1:9999\"\n").metrics.listen, "127.0.0.1:9999");
}
