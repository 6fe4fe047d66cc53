// util::file_writer, the writer of the parameter, verifying-key and matrix files: what it writes arrives whole,
// and each way a write can fail throws std::system_error naming the path.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

#include "common/util/file_writer.hpp"

namespace {

namespace fs = std::filesystem;
using cuzk::util::file_writer;

fs::path scratch_dir() {
    const fs::path d = fs::temp_directory_path() / ("cuzk-file-writer-" + std::to_string(::getpid()));
    fs::create_directories(d);
    return d;
}

std::string message_of(auto&& f) {
    try {
        f();
    } catch (const std::system_error& e) {
        return e.what();
    }
    return "(nothing thrown)";
}

TEST(FileWriter, WritesTheBytesInOrderAndCloses) {
    const fs::path p = scratch_dir() / "out.bin";
    {
        file_writer w(p);
        const std::string head = "head:";
        const std::vector<unsigned char> body{0, 1, 2, 255};
        w.write(head.data(), head.size());
        w.write(body.data(), 0);  // nothing, and no error
        w.write(body.data(), body.size());
        w.close();
    }
    std::ifstream in(p, std::ios::binary);
    const std::string got{std::istreambuf_iterator<char>(in), {}};
    EXPECT_EQ(got, std::string("head:") + std::string("\0\1\2\xff", 4));
    fs::remove_all(p.parent_path());
}

TEST(FileWriter, ACreateInAMissingFolderNamesThePath) {
    const fs::path p = scratch_dir() / "no-such-folder" / "out.bin";
    const std::string why = message_of([&] { file_writer w(p); });
    EXPECT_NE(why.find("cannot create " + p.string()), std::string::npos) << why;
    fs::remove_all(p.parent_path().parent_path());
}

// /dev/full (every Linux system has it) takes the open and refuses every byte: the failure shows at the write that overflows stdio's buffer
// or at close's flush, never silently.
TEST(FileWriter, AFullDeviceFailsAtWriteOrCloseNamingThePath) {
    const std::string why = message_of([] {
        file_writer w("/dev/full");
        const std::vector<char> block(1 << 20, 'x');
        w.write(block.data(), block.size());
        w.close();
    });
    EXPECT_TRUE(why.find("cannot write /dev/full") != std::string::npos ||
                why.find("cannot close /dev/full") != std::string::npos)
        << why;
    const std::string small = message_of([] {
        file_writer w("/dev/full");
        w.write("x", 1);  // buffered: accepted here
        w.close();        // the flush fails
    });
    EXPECT_NE(small.find("cannot close /dev/full"), std::string::npos) << small;
}

}  // namespace
