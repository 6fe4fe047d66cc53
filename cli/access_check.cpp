#include "cli/access_check.hpp"

#include <fmt/format.h>
#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "cli/client_errors.hpp"

namespace cuzk::cli {

namespace fs = std::filesystem;

namespace {

std::string user_name(uid_t uid) {
    const passwd* p = ::getpwuid(uid);
    return p ? p->pw_name : std::to_string(uid);
}

std::string group_name(gid_t gid) {
    const group* g = ::getgrgid(gid);
    return g ? g->gr_name : std::to_string(gid);
}

bool in_group(gid_t gid) {
    if (::getegid() == gid) return true;
    const int n = ::getgroups(0, nullptr);
    if (n <= 0) return false;
    std::vector<gid_t> groups(static_cast<std::size_t>(n));
    const int got = ::getgroups(n, groups.data());
    return got > 0 && std::find(groups.begin(), groups.begin() + got, gid) != groups.begin() + got;
}

bool refused(const fs::path& p, int mode) {
    return ::access(p.c_str(), mode) != 0 && (errno == EACCES || errno == EPERM);
}

// What refused: the first directory on the way without search permission, else the parent of a file to be
// created, else the path itself; with the permission bit (r, w or x) it lacks and what needs it.
struct refusal {
    fs::path where;
    char bit = 'w';
    std::string needed_for;
    bool is_directory = false;
};

refusal find_refusal(const fs::path& path, access_need need) {
    const fs::path full = fs::absolute(path).lexically_normal();
    fs::path dir;
    for (auto it = full.begin(); it != full.end(); ++it) {
        // The path itself comes last: searched only when it is the directory to enter.
        if (std::next(it) == full.end() && need != access_need::search) break;
        dir /= *it;
        if (refused(dir, X_OK)) return {dir, 'x', "reaching anything inside it", true};
    }
    if (::access(full.c_str(), F_OK) != 0 && errno == ENOENT && need == access_need::write)
        return {full.parent_path(), 'w', "creating a file in it", true};
    switch (need) {
        case access_need::read: return {full, 'r', "reading it", false};
        case access_need::write: return {full, 'w', "writing it", false};
        case access_need::connect: return {full, 'w', "connecting to it", false};
        case access_need::search: return {full, 'r', "listing it", true};
        case access_need::any: break;
    }
    const bool directory = fs::is_directory(full);
    if (refused(full, R_OK)) return {full, 'r', "reading it", directory};
    return {full, 'w', "writing it", directory};
}

mode_t bit_for(char bit, int shift) {
    const mode_t b = bit == 'r' ? 4 : bit == 'w' ? 2 : 1;
    return b << shift;
}

}  // namespace

std::string permission_message(const fs::path& path, access_need need) {
    const refusal r = find_refusal(path, need);
    const std::string me = user_name(::geteuid());
    struct stat st{};
    if (::stat(r.where.c_str(), &st) != 0) {
        return fmt::format("permission denied: {} (user {} may not {}); check its owner and mode with `ls -ld {}`",
                           path.string(), me, r.needed_for, r.where.string());
    }
    const bool socket = S_ISSOCK(st.st_mode);
    const std::string kind = r.is_directory ? "the directory" : socket ? "the socket" : "the file";
    const std::string owner = user_name(st.st_uid), grp = group_name(st.st_gid);
    const bool itself = r.where == fs::absolute(path).lexically_normal();
    std::string text = fmt::format("permission denied: {}{}: {} {} is user {}'s, group {}, mode {:04o}; {} needs {} "
                                   "permission ({}), which user {} lacks.",
                                   path.string(), itself ? "" : " (refused at " + r.where.string() + ")", kind,
                                   r.where.string(), owner, grp, st.st_mode & 07777, r.needed_for,
                                   r.bit == 'r' ? "read" : r.bit == 'w' ? "write" : "search", r.bit, me);
    const bool group_has = (st.st_mode & bit_for(r.bit, 3)) != 0;
    if (st.st_uid == ::geteuid()) {
        text += fmt::format(" It is this user's own: `chmod u+{} {}`.", r.bit, r.where.string());
    } else if (group_has && !in_group(st.st_gid)) {
        text += fmt::format(" Members of group {} have it: add user {} to the group (`sudo usermod -aG {} {}`, then "
                            "log in again), or run the command as user {} (`sudo -u {} cuzk ...`).",
                            grp, me, grp, me, owner, owner);
    } else {
        text += fmt::format(" Only user {} has it: run the command as that user (`sudo -u {} cuzk ...`)", owner, owner);
        if (r.is_directory && r.bit == 'x')
            text += fmt::format(", or let group {} in (`chmod g+x {}`; the systemd units make the runtime directory "
                                "0750 with RuntimeDirectoryMode=)",
                                grp, r.where.string());
        else if (socket)
            text += fmt::format(". The stages' own sockets are the service user's alone; members of group {} reach "
                                "the API socket (cuzk.sock) with `cuzk api ...`",
                                grp);
        text += ".";
    }
    return text;
}

void check_socket_access(const fs::path& socket) {
    if (::access(socket.c_str(), W_OK) == 0) return;
    if (errno != EACCES && errno != EPERM) return;  // ENOENT: not running, reported by the request
    throw permission_denied(permission_message(socket, access_need::connect));
}

void check_directory_access(const fs::path& directory) {
    if (::access(directory.c_str(), R_OK | X_OK) == 0) return;
    if (errno != EACCES && errno != EPERM) return;
    throw permission_denied(permission_message(directory, access_need::search));
}

}  // namespace cuzk::cli
