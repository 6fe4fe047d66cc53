// The rules of gpud's prestage board (prestage_board.hpp), by which a partition waiting for the CUDA lock lets
// the holder copy its B_G2 scalars: takes wait for the holder's window to open, match the key, oldest first,
// once; a closed window lets a waiting take go (with an offer there, if any); withdraw removes an offer and
// waits for a copy in progress.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "gpud/prestage_board.hpp"

using namespace std::chrono_literals;

namespace {

struct work {
    int id;
};
struct key {};
using board = cuzk::gpud::prestage_board<work, key>;

// True when |f| is still waiting after a while (a take or withdraw that must block).
template <class T>
bool still_waiting(std::future<T>& f) {
    return f.wait_for(100ms) == std::future_status::timeout;
}

TEST(PrestageBoard, TakesTheOldestOfferWithTheHoldersKeyOnlyOnceTheWindowIsOpen) {
    board b;
    key k, other;
    work w1{1}, w2{2}, w3{3};
    b.offer(&w1, &other);
    b.offer(&w2, &k);
    b.offer(&w3, &k);
    b.begin();
    auto taken = std::async(std::launch::async, [&] { return b.take(&k); });
    EXPECT_TRUE(still_waiting(taken)) << "a take before open() must wait";
    b.open();
    ASSERT_EQ(taken.get(), &w2);
    b.done();
    EXPECT_EQ(b.offers(), 2u);  // w1 (another key) and w3 stay offered
    EXPECT_EQ(b.take(&k), &w3);
    b.done();
    EXPECT_EQ(b.offers(), 1u);
    b.close();
    EXPECT_EQ(b.take(&k), nullptr);
}

TEST(PrestageBoard, AClosedWindowLetsAWaitingTakeGoWithWhatIsOfferedThen) {
    board b;
    key k;
    work w{1}, v{2};
    b.begin();
    b.open();
    auto taken = std::async(std::launch::async, [&] { return b.take(&k); });
    EXPECT_TRUE(still_waiting(taken)) << "no offer yet: the take waits";
    b.close();
    EXPECT_EQ(taken.get(), nullptr) << "closed with nothing offered: nothing taken";
    b.offer(&w, &k);
    EXPECT_EQ(b.take(&k), &w) << "closed: an offer there is taken at once";
    b.done();
    EXPECT_EQ(b.take(&k), nullptr) << "closed: no waiting for the next offer";

    // Closed before it was ever opened (a holder failing early): the waiting take goes, with the offer.
    b.begin();
    b.offer(&v, &k);
    auto late = std::async(std::launch::async, [&] { return b.take(&k); });
    EXPECT_TRUE(still_waiting(late)) << "not open yet";
    b.close();
    EXPECT_EQ(late.get(), &v);
    b.done();
    EXPECT_EQ(b.offers(), 0u);
}

TEST(PrestageBoard, AnOfferArrivingInAnOpenWindowWakesTheTake) {
    board b;
    key k;
    work w{1};
    b.begin();
    b.open();
    auto taken = std::async(std::launch::async, [&] { return b.take(&k); });
    EXPECT_TRUE(still_waiting(taken));
    b.offer(&w, &k);
    EXPECT_EQ(taken.get(), &w);
    b.done();
}

TEST(PrestageBoard, AWithdrawnOfferIsNeverTaken) {
    board b;
    key k;
    work w{1};
    b.offer(&w, &k);
    b.withdraw(&w);
    b.withdraw(&w);  // twice is harmless (a work withdraws at its kernels and again when destroyed)
    EXPECT_EQ(b.offers(), 0u);
    b.begin();
    b.open();
    b.close();
    EXPECT_EQ(b.take(&k), nullptr);
}

TEST(PrestageBoard, WithdrawWaitsWhileTheWorkIsBeingCopiedFrom) {
    board b;
    key k;
    work w{1}, v{2};
    b.offer(&w, &k);
    b.offer(&v, &k);
    b.begin();
    b.open();
    ASSERT_EQ(b.take(&k), &w);
    // Withdrawing another work does not wait for w's copy.
    b.withdraw(&v);
    std::atomic<bool> copying{true};
    auto withdrawn = std::async(std::launch::async, [&] {
        b.withdraw(&w);
        return copying.load();  // must be false: the copy ended before withdraw returned
    });
    EXPECT_TRUE(still_waiting(withdrawn)) << "w is being copied from: withdraw waits";
    copying = false;
    b.done();
    EXPECT_FALSE(withdrawn.get());
}

}  // namespace
