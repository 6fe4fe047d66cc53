// The shared-memory ring of partition slots: segment creation and attachment (versioned header, sizes,
// permissions, clear failures), the writer's and the prover's views and what each may do, the slot state
// machine and its refusals, FULL as backpressure, FIFO hand-off, blocking waits, and reclaim of slots whose
// holder process died (SIGKILL, zombie, reused pid).
#include <gtest/gtest.h>

#include "ipc/partition_ring.hpp"
#include "ipc/process_identity.hpp"
#include "ipc/ring_prover.hpp"
#include "ipc/ring_writer.hpp"
#include "ipc/shm_error.hpp"
#include "ipc/shm_header.hpp"

#include <fmt/format.h>

#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

using namespace cuzk::ipc;
using namespace std::chrono_literals;

namespace {

std::string unique_name(const char* what) {
    static std::atomic<int> counter{0};
    return fmt::format("cuzk-test-{}-{}-{}", what, getpid(), counter++);
}

void fill(std::span<std::byte> bytes, std::uint8_t seed) {
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::byte(static_cast<std::uint8_t>(seed + i * 7));
}

bool has_pattern(std::span<const std::byte> bytes, std::uint8_t seed) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        if (bytes[i] != std::byte(static_cast<std::uint8_t>(seed + i * 7))) return false;
    }
    return true;
}

// A forked child that runs |body| and then waits to be killed; the parent learns over a pipe that |body| is done.
class child_process {
public:
    template <typename Body>
    explicit child_process(Body body) {
        int fds[2];
        if (::pipe(fds) != 0) throw std::runtime_error("pipe");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::close(fds[0]);
            const char ok = body() ? 'y' : 'n';
            (void)!::write(fds[1], &ok, 1);
            for (;;) ::pause();
        }
        ::close(fds[1]);
        char ok = 'n';
        const bool got = ::read(fds[0], &ok, 1) == 1;
        ::close(fds[0]);
        ready_ = got && ok == 'y';
    }
    ~child_process() {
        if (pid_ > 0) kill_and_reap();
    }
    bool ready() const { return ready_; }
    pid_t pid() const { return pid_; }
    void kill() const { ::kill(pid_, SIGKILL); }
    void kill_and_reap() {
        kill();
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

private:
    pid_t pid_ = -1;
    bool ready_ = false;
};

class PartitionRing : public ::testing::Test {
protected:
    void SetUp() override {
        config.segment.name = unique_name("ring");
        config.slot_count = 4;
        config.slot_bytes = 10000;  // not a page multiple: the stride rounds up
    }
    void TearDown() override { partition_ring::remove(config.segment); }

    partition_ring make() { return partition_ring::create(config); }

    // Both roles over one ring, each with its own mapping, as synthd and gpud have.
    struct ring_roles {
        ring_writer writer;
        ring_prover prover;
        partition_ring& ring() { return writer.ring(); }
    };
    ring_roles make_roles() { return {ring_writer(make()), ring_prover(partition_ring::open(config.segment))}; }

    ring_config config;
};

// Each view holds the transitions of its role only; the mapped ring itself holds none.
template <typename T>
concept writes_slots = requires(T ring, const write_claim& claim) {
    ring.claim_for_write(1, 0);
    ring.commit(claim, 0);
    ring.abort(claim);
};
template <typename T>
concept proves_slots = requires(T ring, const proving_claim& claim) {
    ring.take_ready();
    ring.release(claim);
};
static_assert(writes_slots<ring_writer> && !proves_slots<ring_writer>);
static_assert(proves_slots<ring_prover> && !writes_slots<ring_prover>);
static_assert(!writes_slots<partition_ring> && !proves_slots<partition_ring>);

}  // namespace

TEST_F(PartitionRing, CreatesSegmentWithVersionedHeaderAndPrivateMode) {
    auto sut = make();
    const auto& header = sut.header();
    EXPECT_EQ(header.magic.load(), partition_ring::magic);
    EXPECT_EQ(header.layout_version, partition_ring::layout_version);
    EXPECT_EQ(header.header_bytes, sizeof(shm_header));
    EXPECT_EQ(header.slot_count, 4u);
    EXPECT_EQ(header.slot_bytes, 10000u);
    EXPECT_EQ(header.segment_bytes, ring_geometry_for(4, 10000).segment_bytes);
    EXPECT_EQ(owner_of(header).pid, getpid());
    EXPECT_EQ(owner_of(header).start_time, current_process().start_time);
    EXPECT_NE(owner_of(header).start_time, 0u);
    EXPECT_GT(header.created_ms, 1'600'000'000'000u);  // CLOCK_REALTIME in ms

    struct stat info {};
    ASSERT_EQ(::stat(config.segment.backing_path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0600u);
    EXPECT_EQ(static_cast<std::uint64_t>(info.st_size), header.segment_bytes);
    EXPECT_GE(static_cast<std::uint64_t>(info.st_blocks) * 512, header.segment_bytes);  // reserved, not sparse
}

TEST_F(PartitionRing, PayloadsArePageAlignedAndDisjoint) {
    ring_writer sut(make());
    std::vector<write_claim> claims;
    while (auto claim = sut.claim_for_write(1, 0)) claims.push_back(*claim);
    ASSERT_EQ(claims.size(), 4u);
    for (const auto& claim : claims) {
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(claim.payload.data()) % 4096, 0u);
        EXPECT_EQ(claim.payload.size(), 10000u);
        const auto mapping = sut.ring().mapping();
        EXPECT_GE(claim.payload.data(), mapping.data());
        EXPECT_LE(claim.payload.data() + claim.payload.size(), mapping.data() + mapping.size());
        for (const auto& other : claims) {
            if (&other == &claim) continue;
            const bool disjoint = claim.payload.data() + claim.payload.size() <= other.payload.data() ||
                                  other.payload.data() + other.payload.size() <= claim.payload.data();
            EXPECT_TRUE(disjoint);
        }
    }
}

TEST_F(PartitionRing, SecondMappingSeesTheSameSlots) {
    ring_writer writer(make());
    ring_prover prover(partition_ring::open(config.segment));
    EXPECT_EQ(prover.ring().slot_count(), 4u);
    EXPECT_EQ(prover.ring().slot_bytes(), 10000u);

    auto claim = writer.claim_for_write(7, 3);
    ASSERT_TRUE(claim);
    fill(claim->payload.first(5000), 11);
    ASSERT_EQ(writer.commit(*claim, 5000, 42), transition_status::ok);

    auto taken = prover.take_ready();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->job_id, 7u);
    EXPECT_EQ(taken->partition, 3u);
    EXPECT_EQ(taken->payload_format, 42u);
    EXPECT_EQ(taken->generation, claim->generation);
    ASSERT_EQ(taken->payload.size(), 5000u);
    EXPECT_TRUE(has_pattern(taken->payload, 11));
}

TEST_F(PartitionRing, CreateRefusesAnExistingSegment) {
    auto first = make();
    try {
        (void)partition_ring::create(config);
        FAIL() << "second create succeeded";
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::already_exists);
        EXPECT_NE(std::string(e.what()).find(config.segment.name), std::string::npos) << e.what();
    }
}

TEST_F(PartitionRing, OpenOrCreateReusesAMatchingRingAndRefusesAnotherGeometry) {
    ring_writer first(partition_ring::open_or_create(config));
    auto claim = first.claim_for_write(1, 1);
    ASSERT_TRUE(claim);
    ASSERT_EQ(first.commit(*claim, 10), transition_status::ok);

    ring_prover again(partition_ring::open_or_create(config));  // a restarted stage finds its READY slot
    EXPECT_TRUE(again.take_ready());

    auto other = config;
    other.slot_count = 8;
    try {
        (void)partition_ring::open_or_create(other);
        FAIL() << "a ring with another slot count was accepted";
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::incompatible);
        EXPECT_NE(std::string(e.what()).find("8 slots"), std::string::npos) << e.what();
    }
}

TEST_F(PartitionRing, OpenOfAMissingRingReportsNotFound) {
    try {
        (void)partition_ring::open(config.segment);
        FAIL();
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::not_found);
        EXPECT_NE(std::string(e.what()).find(config.segment.name), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos) << e.what();
    }
}

TEST_F(PartitionRing, SegmentTooLargeForItsDirectoryFailsWithSizeAndDirectory) {
    config.slot_count = 1024;
    config.slot_bytes = std::uint64_t{1} << 40;  // 1 PiB in all: fits no tmpfs
    try {
        (void)partition_ring::create(config);
        FAIL() << "a 1 PiB ring was created";
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::no_space);
        const std::string text = e.what();
        EXPECT_NE(text.find("/dev/shm"), std::string::npos) << text;
        EXPECT_NE(text.find("1024.0 TiB"), std::string::npos) << text;
        EXPECT_NE(text.find(config.segment.name), std::string::npos) << text;
    }
    EXPECT_FALSE(std::filesystem::exists(config.segment.backing_path()));
}

TEST_F(PartitionRing, InvalidNamesAndSizesAreRefused) {
    auto bad = config;
    bad.segment.name = "has/slash";
    EXPECT_THROW((void)partition_ring::create(bad), shm_error);
    bad = config;
    bad.slot_count = 0;
    try {
        (void)partition_ring::create(bad);
        FAIL();
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::invalid_argument);
    }
}

TEST_F(PartitionRing, ForeignOrUnpublishedSegmentIsRefused) {
    {
        auto raw = shm_segment::create(config.segment, 1 << 16);
        try {
            (void)partition_ring::open(config.segment, 50ms);
            FAIL() << "an unpublished segment was opened";
        } catch (const shm_error& e) {
            EXPECT_EQ(e.code(), shm_errc::not_initialized) << e.what();
        }
        publish_header(raw.data(), {make_magic("SOMEELSE"), 1, 1 << 16, 0, 0, {}});
        try {
            (void)partition_ring::open(config.segment);
            FAIL() << "a foreign segment was opened";
        } catch (const shm_error& e) {
            EXPECT_EQ(e.code(), shm_errc::incompatible);
            EXPECT_NE(std::string(e.what()).find("SOMEELSE"), std::string::npos) << e.what();
        }
    }
    partition_ring::remove(config.segment);
    {
        auto raw = shm_segment::create(config.segment, 1 << 16);
        publish_header(raw.data(), {partition_ring::magic, partition_ring::layout_version + 1, 1 << 16, 1, 1, {}});
        try {
            (void)partition_ring::open(config.segment);
            FAIL() << "another layout version was opened";
        } catch (const shm_error& e) {
            EXPECT_EQ(e.code(), shm_errc::incompatible);
            const auto found = fmt::format("layout version {}", partition_ring::layout_version + 1);
            EXPECT_NE(std::string(e.what()).find(found), std::string::npos) << e.what();
        }
    }
}

TEST_F(PartitionRing, GroupSharedSegmentGetsTheGroupAndMode0660) {
    std::vector<char> buffer(16384);
    group entry{};
    group* found = nullptr;
    ASSERT_EQ(::getgrgid_r(getgid(), &entry, buffer.data(), buffer.size(), &found), 0);
    ASSERT_NE(found, nullptr);
    config.segment.mode = 0660;
    config.segment.group = found->gr_name;
    auto sut = make();
    struct stat info {};
    ASSERT_EQ(::stat(config.segment.backing_path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0660u);
    EXPECT_EQ(info.st_gid, getgid());

    auto bad = config;
    bad.segment.name = unique_name("ring");
    bad.segment.group = "no-such-group-cuzk";
    try {
        (void)partition_ring::create(bad);
        FAIL();
    } catch (const shm_error& e) {
        EXPECT_EQ(e.code(), shm_errc::invalid_argument);
        EXPECT_NE(std::string(e.what()).find("no-such-group-cuzk"), std::string::npos);
    }
    EXPECT_FALSE(std::filesystem::exists(bad.segment.backing_path()));
}

TEST_F(PartitionRing, RingInAConfiguredDirectoryIsAFileThere) {
    const auto dir = std::filesystem::temp_directory_path() / unique_name("dir");
    std::filesystem::create_directories(dir);
    config.segment.directory = dir;
    {
        ring_writer sut(make());
        EXPECT_TRUE(std::filesystem::exists(dir / config.segment.name));
        ring_prover other(partition_ring::open(config.segment));
        auto claim = sut.claim_for_write(5, 6);
        ASSERT_TRUE(claim);
        ASSERT_EQ(sut.commit(*claim, 1), transition_status::ok);
        EXPECT_TRUE(other.take_ready());
    }
    EXPECT_TRUE(partition_ring::remove(config.segment));
    std::filesystem::remove_all(dir);
}

TEST_F(PartitionRing, FullCycleWalksTheStateMachineAndBumpsGenerationPerTenancy) {
    auto sut = make_roles();
    auto state_of = [&](std::uint32_t slot) { return sut.ring().snapshot()[slot].state; };

    auto claim = sut.writer.claim_for_write(100, 2);
    ASSERT_TRUE(claim);
    EXPECT_EQ(claim->generation, 1u);
    EXPECT_EQ(state_of(claim->slot), slot_state::writing);
    EXPECT_EQ(sut.ring().snapshot()[claim->slot].holder, getpid());
    EXPECT_EQ(sut.ring().snapshot()[claim->slot].job_id, 100u);

    ASSERT_EQ(sut.writer.commit(*claim, 64), transition_status::ok);
    EXPECT_EQ(state_of(claim->slot), slot_state::ready);
    EXPECT_EQ(sut.ring().snapshot()[claim->slot].holder, 0);

    auto taken = sut.prover.take_ready();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->slot, claim->slot);
    EXPECT_EQ(state_of(claim->slot), slot_state::proving);
    EXPECT_FALSE(sut.prover.take_ready());  // nothing else READY

    ASSERT_EQ(sut.prover.release(*taken), transition_status::ok);
    EXPECT_EQ(state_of(claim->slot), slot_state::free);

    // Every slot's second tenancy has generation 2.
    std::vector<write_claim> all;
    while (auto next = sut.writer.claim_for_write(101, 0)) all.push_back(*next);
    ASSERT_EQ(all.size(), 4u);
    for (const auto& c : all) EXPECT_EQ(c.generation, c.slot == claim->slot ? 2u : 1u);

    const auto counters = sut.ring().counters();
    EXPECT_EQ(counters.commits, 1u);
    EXPECT_EQ(counters.releases, 1u);
}

TEST_F(PartitionRing, IllegalTransitionsAreRefusedWithoutSideEffects) {
    auto sut = make_roles();
    auto claim = sut.writer.claim_for_write(1, 0);
    ASSERT_TRUE(claim);

    // A WRITING slot cannot be released as if proving.
    proving_claim fake;
    fake.slot = claim->slot;
    fake.generation = claim->generation;
    EXPECT_EQ(sut.prover.release(fake), transition_status::wrong_state);
    // Out of range.
    write_claim nowhere{99, 1, {}};
    EXPECT_EQ(sut.writer.commit(nowhere, 0), transition_status::no_such_slot);
    // A claim of an older generation.
    write_claim stale = *claim;
    stale.generation -= 1;
    EXPECT_EQ(sut.writer.commit(stale, 0), transition_status::stale_generation);
    // Too large a payload throws and leaves the slot WRITING.
    EXPECT_THROW((void)sut.writer.commit(*claim, 10001), std::length_error);
    EXPECT_EQ(sut.ring().snapshot()[claim->slot].state, slot_state::writing);

    ASSERT_EQ(sut.writer.commit(*claim, 10), transition_status::ok);
    EXPECT_EQ(sut.writer.commit(*claim, 10), transition_status::wrong_state);  // twice
    EXPECT_EQ(sut.writer.abort(*claim), transition_status::wrong_state);       // READY cannot be aborted
    EXPECT_EQ(sut.prover.release(fake), transition_status::wrong_state);       // READY is not PROVING

    auto taken = sut.prover.take_ready();
    ASSERT_TRUE(taken);
    EXPECT_EQ(sut.writer.commit(*claim, 10), transition_status::wrong_state);  // PROVING is not WRITING
    ASSERT_EQ(sut.prover.release(*taken), transition_status::ok);
    EXPECT_EQ(sut.prover.release(*taken), transition_status::wrong_state);  // FREE already

    auto again = sut.writer.claim_for_write(2, 0);
    ASSERT_TRUE(again);
    // The old proving claim names the previous tenancy of the slot if it landed on the same one.
    if (again->slot == taken->slot) {
        EXPECT_EQ(sut.prover.release(*taken), transition_status::stale_generation);
    }
    ASSERT_EQ(sut.writer.abort(*again), transition_status::ok);
    EXPECT_EQ(sut.ring().snapshot()[again->slot].state, slot_state::free);
    EXPECT_EQ(sut.ring().counters().aborts, 1u);
}

// A stopping prover hands its slot back READY, unproved: the witness and its place in the order stay, the
// next prover takes it as a new tenancy, and the old claim can neither release nor hand back again.
TEST_F(PartitionRing, HandBackReturnsAProvingSlotReadyAsANewTenancy) {
    auto sut = make_roles();
    auto first = sut.writer.claim_for_write(7, 1);
    ASSERT_TRUE(first);
    ASSERT_EQ(sut.writer.commit(*first, 32), transition_status::ok);
    auto second = sut.writer.claim_for_write(7, 2);
    ASSERT_TRUE(second);
    ASSERT_EQ(sut.writer.commit(*second, 32), transition_status::ok);

    auto taken = sut.prover.take_ready();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->partition, 1u);
    ASSERT_EQ(sut.prover.hand_back(*taken), transition_status::ok);
    const auto snap = sut.ring().snapshot()[taken->slot];
    EXPECT_EQ(snap.state, slot_state::ready);
    EXPECT_EQ(snap.holder, 0);
    EXPECT_EQ(snap.generation, taken->generation + 1);
    EXPECT_EQ(snap.payload_bytes, 32u);
    EXPECT_EQ(sut.prover.release(*taken), transition_status::stale_generation);
    EXPECT_EQ(sut.prover.hand_back(*taken), transition_status::stale_generation);

    // Partition 1 was committed first and keeps its place ahead of partition 2.
    auto again = sut.prover.take_ready();
    ASSERT_TRUE(again);
    EXPECT_EQ(again->slot, taken->slot);
    EXPECT_EQ(again->partition, 1u);
    EXPECT_EQ(again->commit_seq, taken->commit_seq);
    EXPECT_EQ(sut.prover.release(*again), transition_status::ok);
    EXPECT_EQ(sut.ring().counters().releases, 1u);
}

TEST_F(PartitionRing, SlotHeldByAnotherProcessIsNotOurs) {
    auto sut = make_roles();
    child_process child([&] {
        auto claim = sut.writer.claim_for_write(9, 9);
        return claim && sut.writer.commit(*claim, 1) == transition_status::ok && sut.prover.take_ready().has_value();
    });
    ASSERT_TRUE(child.ready());
    const auto slot = sut.ring().snapshot();
    const auto held = std::find_if(slot.begin(), slot.end(), [](const auto& s) { return s.state == slot_state::proving; });
    ASSERT_NE(held, slot.end());
    EXPECT_EQ(held->holder, child.pid());
    proving_claim mine;
    mine.slot = held->slot;
    mine.generation = held->generation;
    EXPECT_EQ(sut.prover.release(mine), transition_status::not_holder);
    EXPECT_TRUE(sut.ring().reclaim_dead().empty());  // the holder lives
}

TEST_F(PartitionRing, FullRingReturnsNothingAndCountsTheBackpressure) {
    auto sut = make_roles();
    std::vector<write_claim> claims;
    for (int i = 0; i < 4; ++i) {
        auto claim = sut.writer.claim_for_write(1, i);
        ASSERT_TRUE(claim);
        claims.push_back(*claim);
    }
    EXPECT_FALSE(sut.writer.claim_for_write(1, 4));
    EXPECT_FALSE(sut.writer.claim_for_write(1, 4));
    EXPECT_EQ(sut.ring().counters().full_claims, 2u);
    const auto started = std::chrono::steady_clock::now();
    EXPECT_FALSE(sut.writer.claim_for_write(1, 4, 30ms));
    EXPECT_GE(std::chrono::steady_clock::now() - started, 30ms);
    ASSERT_EQ(sut.writer.abort(claims[2]), transition_status::ok);
    auto claim = sut.writer.claim_for_write(1, 4);
    ASSERT_TRUE(claim);
    EXPECT_EQ(claim->slot, claims[2].slot);
}

// keep_free: a claim that would leave fewer FREE slots than asked is refused (counted as backpressure), one
// that keeps none takes the last slot; a waiting claim goes ahead once a slot frees and enough stay FREE.
TEST_F(PartitionRing, ClaimsCanKeepSlotsFreeForHigherPriorityWork) {
    auto sut = make_roles();
    std::vector<write_claim> claims;
    for (int i = 0; i < 3; ++i) {
        auto claim = sut.writer.claim_for_write(1, i, 1);
        ASSERT_TRUE(claim) << "claim " << i << " leaves " << 3 - i << " free";
        claims.push_back(*claim);
    }
    EXPECT_FALSE(sut.writer.claim_for_write(1, 3, 1)) << "the last slot is kept";
    EXPECT_EQ(sut.ring().counters().full_claims, 1u);
    EXPECT_FALSE(sut.writer.claim_for_write(1, 3, 30ms, 1));
    auto urgent = sut.writer.claim_for_write(2, 0);
    ASSERT_TRUE(urgent) << "a claim keeping nothing free takes it";
    ASSERT_EQ(sut.writer.abort(*urgent), transition_status::ok);
    ASSERT_EQ(sut.writer.commit(claims[0], 1), transition_status::ok);
    auto taken = sut.prover.take_ready();
    ASSERT_TRUE(taken);
    std::thread prover([&] {
        std::this_thread::sleep_for(50ms);
        (void)sut.prover.release(*taken);
    });
    const auto started = std::chrono::steady_clock::now();
    auto claim = sut.writer.claim_for_write(1, 3, 10s, 1);
    prover.join();
    ASSERT_TRUE(claim) << "two free after the release: one may go";
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
}

TEST_F(PartitionRing, TakeReadyServesTheOldestCommitFirst) {
    auto sut = make_roles();
    std::vector<write_claim> claims;
    for (std::uint32_t i = 0; i < 4; ++i) claims.push_back(*sut.writer.claim_for_write(1, i));
    for (std::uint32_t order : {2u, 0u, 3u, 1u}) ASSERT_EQ(sut.writer.commit(claims[order], 1), transition_status::ok);
    std::vector<std::uint32_t> partitions;
    while (auto taken = sut.prover.take_ready()) partitions.push_back(taken->partition);
    EXPECT_EQ(partitions, (std::vector<std::uint32_t>{2, 0, 3, 1}));
}

// A slot of a higher priority is taken before older ones of a lower priority (a WinningPoSt partition ahead of
// the PoRep partitions already READY); within a priority, the oldest commit first.
TEST_F(PartitionRing, TakeReadyServesHigherPrioritiesFirstThenTheOldest) {
    auto sut = make_roles();
    const std::int32_t normal = 0, high = 100, critical = 200;
    const std::vector<std::pair<std::uint32_t, std::int32_t>> commits = {
        {0, normal}, {1, high}, {2, normal}, {3, critical}};  // the ring's 4 slots
    std::vector<write_claim> claims;
    for (const auto& [partition, priority] : commits) claims.push_back(*sut.writer.claim_for_write(1, partition));
    for (std::size_t i = 0; i < commits.size(); ++i)
        ASSERT_EQ(sut.writer.commit(claims[i], 1, 0, commits[i].second), transition_status::ok);
    std::vector<std::uint32_t> partitions;
    while (auto taken = sut.prover.take_ready()) partitions.push_back(taken->partition);
    EXPECT_EQ(partitions, (std::vector<std::uint32_t>{3, 1, 0, 2}));
    EXPECT_LT(take_order_of(1000000, 5), take_order_of(200, 0)) << "priorities beyond the classes clamp";
    EXPECT_LT(take_order_of(-200, 0), take_order_of(-100000, 0));
}

TEST_F(PartitionRing, WaitersWakeOnCommitAndOnRelease) {
    auto sut = make_roles();
    // A prover waiting for work wakes when a slot is committed.
    std::thread writer([&] {
        std::this_thread::sleep_for(50ms);
        auto claim = sut.writer.claim_for_write(3, 3);
        (void)sut.writer.commit(*claim, 1);
    });
    auto started = std::chrono::steady_clock::now();
    auto taken = sut.prover.take_ready(10s);
    writer.join();
    ASSERT_TRUE(taken);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    EXPECT_EQ(taken->job_id, 3u);

    // A writer waiting on a full ring wakes when a slot is released.
    std::vector<write_claim> rest;
    while (auto claim = sut.writer.claim_for_write(4, 0)) rest.push_back(*claim);
    ASSERT_EQ(rest.size(), 3u);
    std::thread prover([&] {
        std::this_thread::sleep_for(50ms);
        (void)sut.prover.release(*taken);
    });
    started = std::chrono::steady_clock::now();
    auto claim = sut.writer.claim_for_write(5, 0, 10s);
    prover.join();
    ASSERT_TRUE(claim);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s);
    EXPECT_EQ(claim->slot, taken->slot);
}

TEST_F(PartitionRing, WriterKilledWhileWritingHasItsSlotReclaimedToFree) {
    auto sut = make_roles();
    std::uint32_t slot = 0;
    std::uint32_t generation = 0;
    {
        child_process child([&] {
            auto claim = sut.writer.claim_for_write(77, 5);
            if (!claim) return false;
            fill(claim->payload.first(100), 1);  // half-written witness
            return true;
        });
        ASSERT_TRUE(child.ready());
        const auto before = sut.ring().snapshot();
        const auto held = std::find_if(before.begin(), before.end(),
                                       [](const auto& s) { return s.state == slot_state::writing; });
        ASSERT_NE(held, before.end());
        slot = held->slot;
        generation = held->generation;
        EXPECT_TRUE(sut.ring().reclaim_dead().empty()) << "a live writer lost its slot";
        child.kill_and_reap();
    }
    const auto reclaimed = sut.ring().reclaim_dead();
    ASSERT_EQ(reclaimed.size(), 1u);
    EXPECT_EQ(reclaimed[0].slot, slot);
    EXPECT_EQ(reclaimed[0].from, slot_state::writing);
    EXPECT_EQ(reclaimed[0].generation, generation + 1);
    EXPECT_EQ(reclaimed[0].job_id, 77u);
    EXPECT_EQ(reclaimed[0].partition, 5u);
    const auto after = sut.ring().snapshot()[slot];
    EXPECT_EQ(after.state, slot_state::free);
    EXPECT_EQ(after.generation, generation + 1);
    EXPECT_EQ(after.holder, 0);
    EXPECT_FALSE(sut.prover.take_ready()) << "a half-written witness must not reach a prover";
    EXPECT_TRUE(sut.ring().reclaim_dead().empty());  // once only
    EXPECT_EQ(sut.ring().counters().reclaimed_writing, 1u);
}

TEST_F(PartitionRing, ProverKilledWhileProvingHasItsSlotReclaimedToReadyWithNextGeneration) {
    auto sut = make_roles();
    auto claim = sut.writer.claim_for_write(88, 7);
    ASSERT_TRUE(claim);
    fill(claim->payload, 3);
    ASSERT_EQ(sut.writer.commit(*claim, claim->payload.size()), transition_status::ok);
    {
        child_process child([&] { return sut.prover.take_ready().has_value(); });
        ASSERT_TRUE(child.ready());
        EXPECT_EQ(sut.ring().snapshot()[claim->slot].state, slot_state::proving);
        EXPECT_FALSE(sut.prover.take_ready());
        child.kill_and_reap();
    }
    const auto reclaimed = sut.ring().reclaim_dead();
    ASSERT_EQ(reclaimed.size(), 1u);
    EXPECT_EQ(reclaimed[0].from, slot_state::proving);
    EXPECT_EQ(reclaimed[0].generation, claim->generation + 1);
    EXPECT_EQ(sut.ring().snapshot()[claim->slot].state, slot_state::ready);

    auto retaken = sut.prover.take_ready();  // another prover gets the intact witness
    ASSERT_TRUE(retaken);
    EXPECT_EQ(retaken->slot, claim->slot);
    EXPECT_EQ(retaken->generation, claim->generation + 1);
    EXPECT_EQ(retaken->job_id, 88u);
    EXPECT_EQ(retaken->partition, 7u);
    EXPECT_TRUE(has_pattern(retaken->payload, 3));
    EXPECT_EQ(sut.prover.release(*retaken), transition_status::ok);
    EXPECT_EQ(sut.ring().counters().reclaimed_proving, 1u);
}

TEST_F(PartitionRing, UnreapedZombieHolderCountsAsDead) {
    auto sut = make_roles();
    child_process child([&] { return sut.writer.claim_for_write(1, 1).has_value(); });
    ASSERT_TRUE(child.ready());
    child.kill();  // not reaped: a zombie keeps its pid
    const auto deadline = std::chrono::steady_clock::now() + 5s;
    std::vector<reclaimed_slot> reclaimed;
    while (reclaimed.empty() && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(5ms);
        reclaimed = sut.ring().reclaim_dead();
    }
    ASSERT_EQ(reclaimed.size(), 1u);
    EXPECT_EQ(reclaimed[0].dead_holder, child.pid());
}

TEST_F(PartitionRing, SlotOfAPreviousIncarnationWithOurPidIsReclaimed) {
    // A restarted daemon can get the pid its dead predecessor had; the start time tells them apart.
    auto sut = make_roles();
    auto claim = sut.writer.claim_for_write(1, 1);
    ASSERT_TRUE(claim);
    EXPECT_TRUE(sut.ring().reclaim_dead().empty());  // ours, and we live
    auto* slots = reinterpret_cast<ring_slot*>(sut.ring().mapping().data() + ring_geometry_for(4, 10000).slots_offset);
    slots[claim->slot].holder_start_time.store(current_process().start_time - 1);
    const auto reclaimed = sut.ring().reclaim_dead();
    ASSERT_EQ(reclaimed.size(), 1u);
    EXPECT_EQ(reclaimed[0].slot, claim->slot);
    EXPECT_EQ(sut.writer.commit(*claim, 1), transition_status::stale_generation);
}

TEST(ProcessIdentity, ReusedPidIsDetectedByStartTime) {
    const auto self = current_process();
    EXPECT_EQ(self.pid, getpid());
    ASSERT_NE(self.start_time, 0u);
    EXPECT_TRUE(process_alive(self));
    EXPECT_TRUE(process_alive(self.pid, 0));
    EXPECT_FALSE(process_alive(self.pid, self.start_time + 1));  // same pid, another process
    EXPECT_FALSE(process_alive(0, 0));
    // A process that exited and was reaped is dead.
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ASSERT_EQ(::waitpid(child, nullptr, 0), child);
    EXPECT_FALSE(process_alive(child, 0));
}

TEST_F(PartitionRing, ChildOpeningTheRingByNameHandsOverAWitness) {
    auto sut = make_roles();
    const auto where = config.segment;
    child_process child([where] {
        ring_writer ring(partition_ring::open(where));  // its own mapping
        auto claim = ring.claim_for_write(55, 1);
        if (!claim) return false;
        fill(claim->payload, 9);
        return ring.commit(*claim, claim->payload.size(), 2) == transition_status::ok;
    });
    ASSERT_TRUE(child.ready());
    auto taken = sut.prover.take_ready();
    ASSERT_TRUE(taken);
    EXPECT_EQ(taken->job_id, 55u);
    EXPECT_EQ(taken->payload_format, 2u);
    EXPECT_TRUE(has_pattern(taken->payload, 9));
}

TEST_F(PartitionRing, DiscardReadyFreesOnlyTheCancelledJobsReadySlots) {
    auto sut = make_roles();
    auto a = *sut.writer.claim_for_write(1, 0);
    auto b = *sut.writer.claim_for_write(1, 1);
    auto c = *sut.writer.claim_for_write(2, 0);
    auto d = *sut.writer.claim_for_write(1, 2);  // still WRITING: its holder aborts it
    ASSERT_EQ(sut.writer.commit(a, 1), transition_status::ok);
    ASSERT_EQ(sut.writer.commit(b, 1), transition_status::ok);
    ASSERT_EQ(sut.writer.commit(c, 1), transition_status::ok);
    EXPECT_EQ(sut.prover.discard_ready(1), 2u);
    EXPECT_EQ(sut.ring().snapshot()[a.slot].state, slot_state::free);
    EXPECT_EQ(sut.ring().snapshot()[b.slot].state, slot_state::free);
    EXPECT_EQ(sut.ring().snapshot()[d.slot].state, slot_state::writing);
    auto left = sut.prover.take_ready();
    ASSERT_TRUE(left);
    EXPECT_EQ(left->job_id, 2u);
    EXPECT_EQ(sut.ring().counters().discarded, 2u);
}

TEST_F(PartitionRing, WriterDiscardsACancelledJobsReadySlotsWithoutAProver) {
    // synthd frees them too: a cancel frees the ring while no gpud runs.
    ring_writer sut(make());
    auto a = *sut.claim_for_write(3, 0);
    auto b = *sut.claim_for_write(4, 0);
    ASSERT_EQ(sut.commit(a, 1), transition_status::ok);
    ASSERT_EQ(sut.commit(b, 1), transition_status::ok);
    EXPECT_EQ(sut.discard_ready(3), 1u);
    EXPECT_EQ(sut.discard_ready(3), 0u);
    EXPECT_EQ(sut.ring().snapshot()[a.slot].state, slot_state::free);
    EXPECT_EQ(sut.ring().snapshot()[b.slot].state, slot_state::ready);
}

TEST(SlotWord, PacksStateHolderAndGeneration) {
    const slot_word word{slot_state::proving, 4'194'303, 0xfffffffeu};
    EXPECT_EQ(slot_word::unpack(word.pack()), word);
    EXPECT_EQ(slot_word::unpack(slot_word{slot_state::ready, 0, 1}.pack()).state, slot_state::ready);
}

// A corrupt or hostile header cannot make open hand out slots outside the segment (fuzz_shm_header's finding 1):
// a slot count and size whose geometry wraps, and a slot whose payload lies elsewhere, are refused.
TEST_F(PartitionRing, OpenRefusesSlotsOutsideTheSegment) {
    auto ring = make();
    auto bytes = ring.mapping();
    auto refused = [&] {
        try {
            (void)partition_ring::open(config.segment);
        } catch (const shm_error& e) {
            return e.code() == shm_errc::incompatible;
        }
        return false;
    };
    ASSERT_FALSE(refused());
    // One slot's payload moved onto the next slot's.
    auto* slots = reinterpret_cast<ring_slot*>(bytes.data() + ring_geometry_for(4, 10000).slots_offset);
    const auto original = slots[1].payload_offset;
    slots[1].payload_offset = slots[2].payload_offset;
    EXPECT_TRUE(refused());
    slots[1].payload_offset = original;
    ASSERT_FALSE(refused());
    // 2 slots of 2^63 bytes: their geometry wraps to a few KiB.
    auto* header = reinterpret_cast<shm_header*>(bytes.data());
    header->slot_count = 2;
    header->slot_bytes = std::uint64_t{1} << 63;
    EXPECT_TRUE(refused());
}
