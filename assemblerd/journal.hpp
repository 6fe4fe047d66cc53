// The assembler's durable journal: an append-only text file in the spool directory, one record per line,
// each appended with a single write(2) and fdatasync'd before the assembler acts on it (answers the client,
// tells a stage), so a record the client saw acknowledged survives kill -9 and power loss. A record is a
// list of fields without spaces; what each record type holds is journal_records.hpp's. Each line is framed
// with the record's length and CRC-32 ("~<bytes>:<crc32 hex> <fields>"), and a write that fails part-way
// (a full disk) is cut off the file again: records are all or nothing.
//
// Replay reads every complete line in order; a last line without its newline is a write cut short by a
// crash, and a framed line whose length or checksum does not match a write that failed: both are dropped
// (logged), never a refusal to start. Unframed lines (journals written before the frame) are read as they
// are. A whole record that does not decode is an error naming the file and line number.
// At start the journal is compacted: rewritten with only the records of live jobs (temp file, fsync,
// rename), so it stays proportional to the jobs kept; and again while running, each time it has grown by
// [assemblerd] journal_compact_kib since (a service up for weeks would otherwise replay every record of them).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace cuzk::assemblerd {

using journal_record = std::vector<std::string>;  // fields; [0] is the record type

class journal {
public:
    // Opens (creating when missing) for appending. Throws std::system_error naming the file.
    explicit journal(std::filesystem::path path);
    ~journal();
    journal(const journal&) = delete;
    journal& operator=(const journal&) = delete;

    // Calls |apply| for every record. Throws std::runtime_error "<file>:<line>: ..." for a corrupt record.
    static void replay(const std::filesystem::path& path, const std::function<void(const journal_record&)>& apply);
    // Replaces the journal with |records| (atomically) and reopens it for appending. Throws naming the file
    // when the new one cannot be written (a full disk); the journal is then as it was.
    void rewrite(const std::vector<journal_record>& records);

    // Throws std::system_error naming the file and the record type when the record could not be written
    // whole (it is then not in the journal).
    void append(const journal_record& record);

    // The journal's size now (0 while it is not open).
    std::uint64_t bytes() const;

private:
    void open_for_append();
    static off_t torn_tail(int fd);
    std::filesystem::path path_;
    int fd_ = -1;
    off_t torn_at_ = -1;  // where a failed record begins that could not be cut off yet; -1: none
};

}  // namespace cuzk::assemblerd
