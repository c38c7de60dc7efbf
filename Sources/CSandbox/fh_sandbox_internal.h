/*
 * fh_sandbox_internal.h - the parts of fh_sandbox_apply, one file each: Landlock
 * (fh_sandbox_landlock.c), the seccomp filter and the fatal-signal handlers (fh_sandbox_seccomp.c),
 * the refusal notices' supervisor (fh_sandbox_notices.c).
 */
#pragma once

#include "fh_sandbox.h"

#include <sys/types.h>

/* Writes one line into `error` (snprintf's format). */
void fh_sandbox_error(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds `text` to the report's off line, "; " between parts (cut at the field's size). */
void fh_sandbox_off(fh_sandbox_report *report, const char *text);

/* Restricts the process with a ruleset made from `policy` for Landlock ABI `abi` (>= 1). 0 ok,
 * -1 with `error` filled. */
int fh_sandbox_landlock(const fh_sandbox_policy *policy, int abi, char *error, size_t error_size);

/* Installs the SIGSYS handler and the fatal-signal handlers, which write to `policy->note_fd`;
 * `statm_fd` is an open /proc/self/statm (or -1). 0 ok, -1 with `error` filled. */
int fh_sandbox_signal_handlers(const fh_sandbox_policy *policy, int statm_fd, char *error, size_t error_size);

/* Installs the base seccomp filter on every thread; `pid` is the only process that signals may be
 * aimed at. 0 ok, 1 when the kernel has no seccomp filters, -1 with `error` filled. */
int fh_sandbox_base_filter(pid_t pid, char *error, size_t error_size);

/* Whether a plugin may make a socket of `domain`: `network` when it declared a port. */
int fh_sandbox_socket_allowed(uint64_t domain, int network);

/* Refuses (EACCES) every socket fh_sandbox_socket_allowed does not allow, on every thread: the
 * enforcement when the supervisor, which otherwise judges socket, could not start. 0 ok. */
int fh_sandbox_socket_filter(int network);

/* Installs the notices' filter (SECCOMP_RET_USER_NOTIF) on the calling thread only, and returns
 * its listener descriptor, or -1 with errno set. */
int fh_sandbox_notice_filter(void);

/* The name of a system call the base filter traps, NULL for any other. Async-signal-safe. */
const char *fh_sandbox_trapped_name(long number);

/* Starts the notices' supervisor thread and then the notices' filter; `mem_fd` is an open
 * /proc/self/mem. 0 when notices are on, -1 when they are off, with the reason in `why`. Never
 * fatal: enforcement does not depend on notices. */
int fh_sandbox_start_notices(const fh_sandbox_policy *policy, int mem_fd, char *why, size_t why_size);
