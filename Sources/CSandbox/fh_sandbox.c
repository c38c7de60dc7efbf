/*
 * fh_sandbox.c - fh_sandbox_apply: the order of the steps, the resource limits and the report.
 */
#define _GNU_SOURCE
#include "fh_sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

void fh_sandbox_error(char *error, size_t error_size, const char *format, ...) {
    if (error == NULL || error_size == 0) return;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
}

void fh_sandbox_off(fh_sandbox_report *report, const char *text) {
    size_t used = strlen(report->off);
    snprintf(report->off + used, sizeof report->off - used, "%s%s", used > 0 ? "; " : "", text);
}

/* The number of threads of this process, from /proc/self/task; -1 when it cannot be read. */
static int thread_count(void) {
    DIR *tasks = opendir("/proc/self/task");
    if (tasks == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) != NULL) {
        if (entry->d_name[0] != '.') count++;
    }
    closedir(tasks);
    return count;
}

static int set_limit(int resource, const char *name, rlim_t value, char *error, size_t error_size) {
    struct rlimit current;
    if (getrlimit(resource, &current) != 0) {
        fh_sandbox_error(error, error_size, "cannot read %s: %s", name, strerror(errno));
        return -1;
    }
    /* Raising a hard limit needs a privilege the worker does not have: never above it. */
    if (current.rlim_max != RLIM_INFINITY && value > current.rlim_max) value = current.rlim_max;
    struct rlimit limit = {.rlim_cur = value, .rlim_max = value};
    if (setrlimit(resource, &limit) != 0) {
        fh_sandbox_error(error, error_size, "cannot set %s to %llu: %s", name, (unsigned long long)value,
                         strerror(errno));
        return -1;
    }
    return 0;
}

/* Memory is limited with RLIMIT_DATA, not RLIMIT_AS: the address space counts reservations that
 * use no memory (each thread's stack, malloc's per-thread arenas of 64 MiB, the Swift runtime's
 * and dlopen's reserved ranges), so an RLIMIT_AS low enough to matter stops a worker that uses
 * little. RLIMIT_DATA counts private writable mappings: what malloc and mmap really hand out. */
static int apply_limits(const fh_sandbox_policy *policy, char *error, size_t error_size) {
    if (policy->max_memory > 0 && !policy->under_sanitizer &&
        set_limit(RLIMIT_DATA, "RLIMIT_DATA", (rlim_t)policy->max_memory, error, error_size) != 0)
        return -1;
    if (policy->max_open_files > 0 &&
        set_limit(RLIMIT_NOFILE, "RLIMIT_NOFILE", (rlim_t)policy->max_open_files, error, error_size) != 0)
        return -1;
    /* No core files: a plugin's memory may hold what it was given. */
    return set_limit(RLIMIT_CORE, "RLIMIT_CORE", 0, error, error_size);
}

int fh_sandbox_apply(const fh_sandbox_policy *policy, fh_sandbox_report *report, char *error, size_t error_size) {
    if (error != NULL && error_size > 0) error[0] = '\0';
    if (policy == NULL || report == NULL) {
        fh_sandbox_error(error, error_size, "fh_sandbox_apply needs a policy and a report");
        return -1;
    }
    memset(report, 0, sizeof *report);

    /* Landlock's restrict_self binds only the calling thread and the threads it starts later: a
     * thread started before would escape it. */
    int threads = thread_count();
    int tolerated = policy->under_sanitizer == FH_SANDBOX_THREAD_SANITIZER ? 2 : 1;
    if (threads == 2 && tolerated == 2)
        fh_sandbox_off(report, "sanitizer: its runtime's background thread is not confined by Landlock");
    if (threads < 1 || threads > tolerated) {
        if (threads < 0)
            fh_sandbox_error(error, error_size, "cannot count this process's threads in /proc/self/task: %s",
                             strerror(errno));
        else
            fh_sandbox_error(error, error_size,
                             "the sandbox must be applied while the process has one thread, and it has %d: "
                             "Landlock confines only the calling thread and the threads it starts later",
                             threads);
        return -1;
    }

    if (apply_limits(policy, error, error_size) != 0) return -1;
    report->limits = 1;
    if (policy->under_sanitizer && policy->max_memory > 0)
        fh_sandbox_off(report, "memory limit: none under a sanitizer (its shadow memory is larger)");

    /* Opened before Landlock, which would refuse them later, and kept for the life of the process:
     * the fatal-signal handlers read the data size from statm, the supervisor reads the plugin's
     * strings from mem (pread: a bad pointer is an error, not a crash). */
    int statm_fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    int mem_fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        fh_sandbox_error(error, error_size, "cannot set no_new_privs: %s", strerror(errno));
        return -1;
    }
    report->no_new_privs = 1;

    if (policy->simulate & FH_SANDBOX_SIMULATE_NO_LANDLOCK) {
        report->landlock_abi = 0;
        errno = ENOSYS;
    } else {
        report->landlock_abi = fh_sandbox_landlock_abi();
    }
    if (report->landlock_abi > 0) {
        if (fh_sandbox_landlock(policy, report->landlock_abi, error, error_size) != 0) return -1;
        report->landlock = 1;
        if (report->landlock_abi < 4)
            fh_sandbox_off(report, "TCP ports: Landlock ABI below 4 cannot restrict them");
    } else {
        fh_sandbox_off(report, errno == EOPNOTSUPP ? "landlock: disabled in this kernel's boot settings"
                                                   : "landlock: this kernel has none");
    }

    if (fh_sandbox_signal_handlers(policy, statm_fd, error, error_size) != 0) return -1;
    int filtered =
        (policy->simulate & FH_SANDBOX_SIMULATE_NO_SECCOMP) ? 1 : fh_sandbox_base_filter(getpid(), error, error_size);
    if (filtered < 0) return -1;
    if (filtered > 0) {
        fh_sandbox_off(report, "seccomp: this kernel has no seccomp filters (exec, fork and ptrace are not stopped)");
        fh_sandbox_off(report, "notices: they need seccomp");
        return 0;
    }
    report->seccomp = 1;

    char why[200] = "";
    if (fh_sandbox_start_notices(policy, mem_fd, why, sizeof why) == 0) {
        report->notices = 1;
    } else {
        fh_sandbox_off(report, why);
        /* Without the supervisor, which judges socket, a filter refuses what it would. */
        if (fh_sandbox_socket_filter(policy->port_count > 0) != 0) {
            fh_sandbox_error(error, error_size, "cannot install the socket filter: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}
