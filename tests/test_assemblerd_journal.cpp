// The assembler's journal: records come back in order after a reopen; a last line cut short by a crash is
// dropped; a record whose write failed (a full disk, here a file size limit) leaves nothing behind and the
// next record is whole; a framed line that fails its checksum is dropped; a whole record that does not
// decode is an error naming file and line; journals without frames still replay; rewrite compacts atomically.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

#include "assemblerd/journal.hpp"
#include "assemblerd/journal_records.hpp"

using cuzk::assemblerd::journal;
using cuzk::assemblerd::journal_record;
namespace journal_records = cuzk::assemblerd::journal_records;

namespace {

struct JournalFile : ::testing::Test {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("cuzk-journal-" + std::to_string(::getpid()) + "-" +
                                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void TearDown() override { std::filesystem::remove(path); }
    std::vector<journal_record> replayed() {
        std::vector<journal_record> out;
        journal::replay(path, [&](const journal_record& r) { out.push_back(r); });
        return out;
    }
};

}  // namespace

TEST_F(JournalFile, RecordsSurviveReopen) {
    {
        journal sut(path);
        sut.append({"SUBMIT", "1", "0"});
        sut.append({"PROOF", "1", "0", journal_records::hex("\x01\xff")});
    }
    journal sut(path);
    sut.append({"DONE", "1", "5"});
    const auto r = replayed();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[1][3], "01ff");
    EXPECT_EQ(journal_records::unhex(r[1][3]), std::string("\x01\xff"));
    EXPECT_EQ(r[2][0], "DONE");
}

TEST_F(JournalFile, TornLastLineIsDropped) {
    std::ofstream(path) << "SUBMIT 1 0\nPROOF 1 0 ab";  // the crash cut the second write
    const auto r = replayed();
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0][0], "SUBMIT");
}

// The disk fills while a record is written (RLIMIT_FSIZE stops the write part-way, as ENOSPC does): the
// append throws, the bytes written are cut off again, and after space returns the next record is whole.
TEST_F(JournalFile, ARecordWhoseWriteFailsLeavesNothingBehind) {
    journal sut(path);
    sut.append({"SUBMIT", "1", "0"});
    const auto before = std::filesystem::file_size(path);
    rlimit old{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old), 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = old;
    small.rlim_cur = before + 40;  // room for part of the next record only
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    EXPECT_THROW(sut.append({"PROOF", "1", "0", std::string(200, 'a')}), std::system_error);
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &old), 0);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_EQ(std::filesystem::file_size(path), before);
    sut.append({"DONE", "1", "5"});
    const auto r = replayed();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0][0], "SUBMIT");
    EXPECT_EQ(r[1], (journal_record{"DONE", "1", "5"}));
}

// A framed record whose bytes do not match its length and checksum (a failed write that could not be cut
// off, then a later record on the next line) is dropped with a warning; replay goes on.
TEST_F(JournalFile, AFramedRecordThatFailsItsChecksumIsDropped) {
    {
        journal sut(path);
        sut.append({"SUBMIT", "1", "0"});
    }
    std::ofstream(path, std::ios::app) << "~30:00000000 PROOF 1 0 ab\n";  // length and checksum wrong
    {
        journal sut(path);
        sut.append({"DONE", "1", "5"});
    }
    const auto r = replayed();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0][0], "SUBMIT");
    EXPECT_EQ(r[1][0], "DONE");
}

// A crash cut the last record short: the first append after a restart cuts it off instead of gluing onto it.
TEST_F(JournalFile, ATornLastLineIsCutBeforeTheNextAppend) {
    std::ofstream(path) << "SUBMIT 1 0\nPROOF 1 0 ab";
    {
        journal sut(path);
        sut.append({"DONE", "1", "5"});
    }
    const auto r = replayed();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0][0], "SUBMIT");
    EXPECT_EQ(r[1], (journal_record{"DONE", "1", "5"}));
}

TEST_F(JournalFile, UnframedRecordsOfOlderJournalsReplay) {
    std::ofstream(path) << "SUBMIT 1 0\nDONE 1 2\n";
    const auto r = replayed();
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[1], (journal_record{"DONE", "1", "2"}));
}

TEST_F(JournalFile, CorruptRecordNamesFileAndLine) {
    std::ofstream(path) << "SUBMIT 1 0\nBOGUS 7\nDONE 1 2\n";
    try {
        journal::replay(path, [](const journal_record& r) {
            if (r[0] == "BOGUS") throw std::runtime_error("unknown record type");
        });
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path.string() + ":2:"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("BOGUS"), std::string::npos) << e.what();
    }
}

TEST_F(JournalFile, RewriteKeepsOnlyTheGivenRecords) {
    journal sut(path);
    for (int i = 0; i < 5; ++i) sut.append({"SUBMIT", std::to_string(i), "0"});
    sut.rewrite({{"NEXT", "9"}, {"SUBMIT", "4", "0"}});
    sut.append({"DONE", "4", "1"});
    const auto r = replayed();
    ASSERT_EQ(r.size(), 3u);
    EXPECT_EQ(r[0][0], "NEXT");
    EXPECT_EQ(r[2][0], "DONE");
    EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
}

TEST(Journal, HexRejectsBadDigits) {
    EXPECT_THROW(journal_records::unhex("abc"), std::invalid_argument);
    EXPECT_THROW(journal_records::unhex("zz"), std::invalid_argument);
}
