/*
 * fh_sandbox.h - confines a plugin's worker process before the plugin is loaded: resource limits,
 * no new privileges, Landlock (files and TCP ports), a seccomp filter that stops the worker on
 * calls a plugin never needs (exec, fork, ptrace, mount, ...), and refusal notices that say what
 * the sandbox refused ("tried to read /home/u/.ssh/id_rsa").
 *
 * Threads: fh_sandbox_apply is called once, on the process's only thread [single-thread]; it
 * refuses to run when there is a second one. Landlock binds the calling thread and the threads it
 * starts later; the notices' supervisor is a thread of its own that apply starts, and the notice
 * callback is called on it [supervisor-thread].
 *
 * Nothing here can be undone: once apply has returned 0 the process stays confined until it ends.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the plugin is given. Every pointer is read during fh_sandbox_apply only (the ports and the
 * notice callback are copied); the caller keeps ownership. */
typedef struct fh_sandbox_policy {
    /* Readable beneath each path (a file or a folder); paths that do not exist are skipped. */
    const char *const *read_paths;
    size_t read_count;
    /* Read, write, create, rename and remove beneath each path; nothing is ever executable. */
    const char *const *write_paths;
    size_t write_count;
    /* TCP connect is allowed to these ports only (Landlock ABI 4 or later); bind never. */
    const uint16_t *connect_ports;
    size_t port_count;
    /* Bytes, as RLIMIT_DATA; 0 = no limit. */
    uint64_t max_memory;
    /* RLIMIT_NOFILE, soft and hard; 0 = left as it is. */
    uint64_t max_open_files;
    /* -1, or a descriptor where the fatal-signal handlers write one line saying why the process
     * died: `stopped <system call>` or `memory <limit bytes>`. Kept open; never closed here. */
    int note_fd;
    /* Called once per refusal the supervisor sees [supervisor-thread], before the refused call
     * returns to the plugin: `kind` is an FH_SANDBOX_NOTICE_*, `subject` an absolute path or a
     * port number, valid for the call only. May be NULL (no notices). It must not wait for a
     * thread of the plugin: that thread may be the one waiting for this call to end. */
    void (*notice)(void *context, int kind, const char *subject);
    void *notice_context;
    /* In a process built with a sanitizer, FH_SANDBOX_ADDRESS_SANITIZER or _THREAD_SANITIZER, else 0:
     * there is then no memory limit (the sanitizer's shadow memory alone is larger), and under
     * ThreadSanitizer its runtime's one background thread, started before main, is tolerated (it
     * runs no plugin code; Landlock does not bind it). The report says what is off. */
    int under_sanitizer;
    /* FH_SANDBOX_SIMULATE_* bits: act as on a kernel without Landlock or without seccomp filters
     * (to see a plugin, and the host's warnings, as such a system would). Never stricter. */
    int simulate;
} fh_sandbox_policy;

enum { FH_SANDBOX_ADDRESS_SANITIZER = 1, FH_SANDBOX_THREAD_SANITIZER = 2 };
enum { FH_SANDBOX_SIMULATE_NO_LANDLOCK = 1, FH_SANDBOX_SIMULATE_NO_SECCOMP = 2 };

/* Refusal kinds passed to `notice`. */
enum {
    FH_SANDBOX_NOTICE_READ = 1,
    FH_SANDBOX_NOTICE_WRITE,
    FH_SANDBOX_NOTICE_CONNECT,
    FH_SANDBOX_NOTICE_BIND,
    FH_SANDBOX_NOTICE_SOCKET /* subject: "local" (a unix socket) or "network" (no port declared) */
};

/* What fh_sandbox_apply put in place. */
typedef struct fh_sandbox_report {
    /* The kernel's Landlock ABI version; 0 when it has none. */
    int landlock_abi;
    /* 1 = applied. */
    int no_new_privs, landlock, seccomp, limits, notices;
    /* One line naming what is off and why; empty when everything is applied. */
    char off[256];
} fh_sandbox_report;

/* Confines the calling process. Returns 0 when it is confined (`report` says how far), -1 on a
 * fatal failure: `error` then says what (NUL-terminated, cut to `error_size`), and no code of the
 * plugin may run in this process. A kernel without Landlock or without seccomp user notification
 * is not fatal: the report says what is off. [single-thread] */
int fh_sandbox_apply(const fh_sandbox_policy *policy, fh_sandbox_report *report, char *error, size_t error_size);

/* The running kernel's Landlock ABI version, 0 when it has none. [any-thread] */
int fh_sandbox_landlock_abi(void);
/* During a notice, on the supervisor's thread: the kernel id of the thread whose call is refused
 * (0 otherwise), so that a notice can be told apart by who caused it. */
int fh_sandbox_noticed_thread(void);
/* The kernel id of the calling thread. */
int fh_sandbox_this_thread(void);
/* 0: no seccomp filters; 1: filters; 2: filters and user notification (refusal notices). */
int fh_sandbox_seccomp_support(void);

#ifdef __cplusplus
}
#endif
