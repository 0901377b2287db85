#define _GNU_SOURCE
#include "process_control.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/// The file-system rights the kernel's Landlock ABI knows: what a ruleset handles (denies unless a rule allows).
static uint64_t handled_rights(long abi) {
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;        // ABI 1: execute … make_sym
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_MAKE_SYM << 1;       // refer
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_MAKE_SYM << 2;       // truncate
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_MAKE_SYM << 3;       // ioctl on devices
    return rights;
}

static int allow(int ruleset, const char *path, uint64_t rights) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? 0 : errno;
    struct landlock_path_beneath_attr rule = { .allowed_access = rights, .parent_fd = fd };
    int result = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0) == 0 ? 0 : errno;
    close(fd);
    return result;
}

/// Whether `path` is a folder (Landlock refuses folder-only rights on a single file).
static int is_folder(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return 0;
    close(fd);
    return 1;
}

int docpreview_restrict_files(const char *const readable[], int readable_count,
                              const char *const writable[], int writable_count) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return errno ? errno : ENOSYS;
    uint64_t everything = handled_rights(abi);
    struct landlock_ruleset_attr attributes = { .handled_access_fs = everything };
    int ruleset = syscall(SYS_landlock_create_ruleset, &attributes, sizeof(attributes), 0);
    if (ruleset < 0) return errno;
    int result = 0;
    uint64_t reading = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    // A single file (not a folder) takes only the rights that apply to files.
    uint64_t read_file = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE;
    uint64_t write_file = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE
                          | (abi >= 3 ? LANDLOCK_ACCESS_FS_MAKE_SYM << 2 : 0) | (abi >= 5 ? LANDLOCK_ACCESS_FS_MAKE_SYM << 3 : 0);
    for (int i = 0; i < readable_count && result == 0; i++) {
        result = allow(ruleset, readable[i], is_folder(readable[i]) ? reading : read_file);
    }
    for (int i = 0; i < writable_count && result == 0; i++) {
        result = allow(ruleset, writable[i], is_folder(writable[i]) ? everything : write_file);
    }
    if (result == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) result = errno;
    if (result == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) result = errno;
    close(ruleset);
    return result;
}

// Landlock's network rights (ABI 4, Linux 6.7), which Debian 12's kernel headers predate.
#define DOCPREVIEW_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define DOCPREVIEW_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define DOCPREVIEW_LANDLOCK_RULE_NET_PORT 2

int docpreview_restrict_connect(int port) {
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 0) return errno ? errno : ENOSYS;
    if (abi < 4) return EOPNOTSUPP;
    struct { uint64_t handled_access_fs, handled_access_net; } attributes = {
        0, DOCPREVIEW_LANDLOCK_ACCESS_NET_BIND_TCP | DOCPREVIEW_LANDLOCK_ACCESS_NET_CONNECT_TCP };
    int ruleset = syscall(SYS_landlock_create_ruleset, &attributes, sizeof(attributes), 0);
    if (ruleset < 0) return errno;
    struct { uint64_t allowed_access, port; } rule = { DOCPREVIEW_LANDLOCK_ACCESS_NET_CONNECT_TCP, (uint64_t)port };
    int result = syscall(SYS_landlock_add_rule, ruleset, DOCPREVIEW_LANDLOCK_RULE_NET_PORT, &rule, 0) == 0 ? 0 : errno;
    if (result == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) result = errno;
    if (result == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) result = errno;
    close(ruleset);
    return result;
}
