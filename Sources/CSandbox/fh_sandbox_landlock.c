/*
 * fh_sandbox_landlock.c - the Landlock ruleset: files beneath the policy's paths, TCP connect to
 * its ports, no TCP bind, no abstract unix sockets or signals outside the sandbox. Raw system
 * calls: glibc has no wrappers. What older system headers lack is defined here, with the kernel's
 * values (include/uapi/linux/landlock.h).
 */
#define _GNU_SOURCE
#include "fh_sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef __NR_landlock_add_rule
#define __NR_landlock_add_rule 445
#endif
#ifndef __NR_landlock_restrict_self
#define __NR_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#define LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
#endif
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LANDLOCK_SCOPE_SIGNAL (1ULL << 1)
#endif
#define FH_LANDLOCK_RULE_NET_PORT 2

/* The kernel's structures as of ABI 6, whatever the system headers have. */
struct fh_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};
struct fh_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));
struct fh_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

/* The rights that apply to a file (not a folder): a rule on a file may grant only these. */
#define FH_FILE_RIGHTS                                                                                  \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |       \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

int fh_sandbox_landlock_abi(void) {
    long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

/* Every file-system right ABI `abi` has: all are handled, so all are refused but for the rules. */
static uint64_t handled_fs(int abi) {
    uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* EXECUTE ... MAKE_SYM: ABI 1 */
    if (abi >= 2) rights |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) rights |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5) rights |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return rights;
}

/* Grants `rights` beneath `path`; a path that does not exist is skipped. */
static int add_path(int ruleset, const char *path, uint64_t rights, uint64_t handled, int read_only,
                    char *error, size_t error_size) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        fh_sandbox_error(error, error_size, "cannot open '%s' to grant it: %s", path, strerror(errno));
        return -1;
    }
    struct stat status;
    if (fstat(fd, &status) != 0) {
        fh_sandbox_error(error, error_size, "cannot stat '%s' to grant it: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISDIR(status.st_mode)) rights &= read_only ? LANDLOCK_ACCESS_FS_READ_FILE : FH_FILE_RIGHTS;
    struct fh_path_beneath_attr rule = {.allowed_access = rights & handled, .parent_fd = fd};
    long added = syscall(__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    if (added != 0) {
        fh_sandbox_error(error, error_size, "cannot grant '%s': landlock_add_rule: %s", path, strerror(saved));
        return -1;
    }
    return 0;
}

static int add_rules(int ruleset, const fh_sandbox_policy *policy, int abi, uint64_t handled, char *error,
                     size_t error_size) {
    /* Nothing is granted EXECUTE: dlopen maps a library with PROT_EXEC, which Landlock does not
     * check, while execve (which the seccomp filter stops anyway) is. */
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    const uint64_t write =
        handled & ~(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK);
    for (size_t index = 0; index < policy->read_count; index++) {
        if (policy->read_paths[index] == NULL) continue;
        if (add_path(ruleset, policy->read_paths[index], read, handled, 1, error, error_size) != 0) return -1;
    }
    for (size_t index = 0; index < policy->write_count; index++) {
        if (policy->write_paths[index] == NULL) continue;
        if (add_path(ruleset, policy->write_paths[index], write, handled, 0, error, error_size) != 0) return -1;
    }
    if (abi < 4) return 0;
    /* Connect to the declared ports; no rule ever grants bind. */
    for (size_t index = 0; index < policy->port_count; index++) {
        struct fh_net_port_attr rule = {.allowed_access = LANDLOCK_ACCESS_NET_CONNECT_TCP,
                                        .port = policy->connect_ports[index]};
        if (syscall(__NR_landlock_add_rule, ruleset, FH_LANDLOCK_RULE_NET_PORT, &rule, 0) != 0) {
            fh_sandbox_error(error, error_size, "cannot grant TCP port %u: landlock_add_rule: %s",
                             (unsigned)policy->connect_ports[index], strerror(errno));
            return -1;
        }
    }
    return 0;
}

int fh_sandbox_landlock(const fh_sandbox_policy *policy, int abi, char *error, size_t error_size) {
    struct fh_ruleset_attr attributes = {.handled_access_fs = handled_fs(abi)};
    size_t size = sizeof attributes.handled_access_fs;
    if (abi >= 4) {
        attributes.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
        size = offsetof(struct fh_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attributes.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
        size = sizeof attributes;
    }
    int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attributes, size, 0);
    if (ruleset < 0) {
        fh_sandbox_error(error, error_size, "landlock_create_ruleset (ABI %d): %s", abi, strerror(errno));
        return -1;
    }
    int result = add_rules(ruleset, policy, abi, attributes.handled_access_fs, error, error_size);
    if (result == 0 && syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) {
        fh_sandbox_error(error, error_size, "landlock_restrict_self: %s", strerror(errno));
        result = -1;
    }
    close(ruleset);
    return result;
}
