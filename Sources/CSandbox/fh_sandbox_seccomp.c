/*
 * fh_sandbox_seccomp.c - the seccomp filters and the handlers of the signals that end a worker.
 *
 * The filters are classic BPF written here, not libseccomp: the filter is installed before the
 * plugin runs, when nothing should be loaded that the worker does not already carry; a library
 * missing on the machine cannot turn the sandbox off at run time; and the whole filter is some
 * sixty instructions a reviewer can read below.
 *
 * The base filter allows every call but these:
 * - stopped (SECCOMP_RET_TRAP, then the SIGSYS handler writes `stopped <call>` and the worker dies
 *   by SIGSYS): starting programs or processes (execve, fork, a clone that is not a thread),
 *   reaching into another process (ptrace, process_vm_*, a signal aimed at another process),
 *   and administering the machine (mount and its new API, modules, kexec, bpf, keys, namespaces,
 *   perf, userfaultfd, reboot, swap, accounting, quotas, port I/O);
 * - io_uring fails with ENOSYS, as on a kernel without it (its operations run where no filter sees);
 * - clone3 fails with ENOSYS: its flags are in memory a filter cannot read, and glibc then starts
 *   threads with clone, whose flags it can;
 * - rt_sigaction(SIGSYS, new action) fails with EPERM, so a plugin cannot replace the handler.
 */
#define _GNU_SOURCE
#include "fh_sandbox_internal.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define FH_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FH_AUDIT_ARCH AUDIT_ARCH_AARCH64
#else
#error "CSandbox knows the system calls of x86_64 and aarch64 only"
#endif

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "CSandbox reads the low half of an argument at its first byte: little-endian only"
#endif

#ifndef SECCOMP_RET_USER_NOTIF
#define SECCOMP_RET_USER_NOTIF 0x7fc00000U
#endif

/* The calls that stop the worker, with the names its note gives them. */
static const struct trapped_call {
    long number;
    const char *name;
} trapped_calls[] = {
    {__NR_execve, "execve"},
    {__NR_execveat, "execveat"},
#ifdef __NR_fork
    {__NR_fork, "fork"},
#endif
#ifdef __NR_vfork
    {__NR_vfork, "vfork"},
#endif
    {__NR_ptrace, "ptrace"},
    {__NR_process_vm_readv, "process_vm_readv"},
    {__NR_process_vm_writev, "process_vm_writev"},
    /* A pidfd's process is not an argument the filter can read: a plugin has no use for it. */
    {__NR_pidfd_send_signal, "pidfd_send_signal"},
    {__NR_pidfd_getfd, "pidfd_getfd"},
    {__NR_mount, "mount"},
    {__NR_umount2, "umount2"},
    {__NR_pivot_root, "pivot_root"},
    {__NR_chroot, "chroot"},
    {__NR_move_mount, "move_mount"},
    {__NR_open_tree, "open_tree"},
    {__NR_fsopen, "fsopen"},
    {__NR_fsconfig, "fsconfig"},
    {__NR_fsmount, "fsmount"},
    {__NR_fspick, "fspick"},
    {__NR_mount_setattr, "mount_setattr"},
    {__NR_bpf, "bpf"},
    {__NR_keyctl, "keyctl"},
    {__NR_add_key, "add_key"},
    {__NR_request_key, "request_key"},
    {__NR_unshare, "unshare"},
    {__NR_setns, "setns"},
    {__NR_perf_event_open, "perf_event_open"},
    {__NR_userfaultfd, "userfaultfd"},
    {__NR_kexec_load, "kexec_load"},
    {__NR_kexec_file_load, "kexec_file_load"},
    {__NR_init_module, "init_module"},
    {__NR_finit_module, "finit_module"},
    {__NR_delete_module, "delete_module"},
    {__NR_reboot, "reboot"},
    {__NR_swapon, "swapon"},
    {__NR_swapoff, "swapoff"},
    {__NR_acct, "acct"},
    {__NR_quotactl, "quotactl"},
#ifdef __NR_iopl
    {__NR_iopl, "iopl"},
#endif
#ifdef __NR_ioperm
    {__NR_ioperm, "ioperm"},
#endif
};

/* Calls whose first argument names the process a signal is for: allowed for this process only. */
static const struct trapped_call signal_calls[] = {
    {__NR_kill, "kill"},
    {__NR_tkill, "tkill"},
    {__NR_tgkill, "tgkill"},
    {__NR_rt_sigqueueinfo, "rt_sigqueueinfo"},
    {__NR_rt_tgsigqueueinfo, "rt_tgsigqueueinfo"},
};

/* What a clone must share to be a thread of this process (glibc's pthread_create shares all of
 * it): CLONE_THREAD, and the fd table and folder the notices' supervisor relies on sharing. */
#define FH_THREAD_CLONE (CLONE_THREAD | CLONE_VM | CLONE_SIGHAND | CLONE_FS | CLONE_FILES)

const char *fh_sandbox_trapped_name(long number) {
    if (number == __NR_clone) return "clone";
    for (size_t index = 0; index < sizeof trapped_calls / sizeof trapped_calls[0]; index++)
        if (trapped_calls[index].number == number) return trapped_calls[index].name;
    for (size_t index = 0; index < sizeof signal_calls / sizeof signal_calls[0]; index++)
        if (signal_calls[index].number == number) return signal_calls[index].name;
    return NULL;
}

// MARK: - A small BPF assembler: jumps go to labels, resolved once the program is written.

enum label { TO_NEXT = -1, TO_ALLOW, TO_TRAP, TO_KILL, TO_ENOSYS, TO_EPERM, TO_CLONE, TO_SIGNAL, TO_SIGACTION, TO_NOTIFY,
             LABEL_COUNT };

struct program {
    struct sock_filter code[160];
    int true_label[160], false_label[160];
    int label_at[LABEL_COUNT];
    int count;
    int overflow;
};

static void emit(struct program *program, unsigned short code, unsigned int value, int if_true, int if_false) {
    if (program->count >= (int)(sizeof program->code / sizeof program->code[0])) {
        program->overflow = 1;
        return;
    }
    program->code[program->count] = (struct sock_filter)BPF_STMT(code, value);
    program->true_label[program->count] = if_true;
    program->false_label[program->count] = if_false;
    program->count++;
}

static void load(struct program *program, unsigned int offset) {
    emit(program, BPF_LD | BPF_W | BPF_ABS, offset, TO_NEXT, TO_NEXT);
}
static void jump_if_equal(struct program *program, unsigned int value, int if_true, int if_false) {
    emit(program, BPF_JMP | BPF_JEQ | BPF_K, value, if_true, if_false);
}
static void give(struct program *program, unsigned int action) { emit(program, BPF_RET | BPF_K, action, 0, 0); }
static void place(struct program *program, enum label label) { program->label_at[label] = program->count; }

/* Turns labels into offsets; -1 when a jump goes backwards, too far, or the program overflowed. */
static int resolve(struct program *program) {
    if (program->overflow) return -1;
    for (int index = 0; index < program->count; index++) {
        struct sock_filter *instruction = &program->code[index];
        if (BPF_CLASS(instruction->code) != BPF_JMP) continue;
        int labels[2] = {program->true_label[index], program->false_label[index]};
        unsigned char offsets[2] = {0, 0};
        for (int side = 0; side < 2; side++) {
            if (labels[side] == TO_NEXT) continue;
            int offset = program->label_at[labels[side]] - (index + 1);
            if (offset < 0 || offset > 255) return -1;
            offsets[side] = (unsigned char)offset;
        }
        instruction->jt = offsets[0];
        instruction->jf = offsets[1];
    }
    return 0;
}

#define ARGUMENT_LOW(index) ((unsigned int)offsetof(struct seccomp_data, args[index]))
#define ARGUMENT_HIGH(index) (ARGUMENT_LOW(index) + 4)

static long install(struct program *program, unsigned int flags) {
    if (resolve(program) != 0) {
        errno = E2BIG;
        return -1;
    }
    struct sock_fprog filter = {.len = (unsigned short)program->count, .filter = program->code};
    return syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, flags, &filter);
}

int fh_sandbox_base_filter(pid_t pid, char *error, size_t error_size) {
    struct program program = {.count = 0};
    load(&program, offsetof(struct seccomp_data, arch));
    jump_if_equal(&program, FH_AUDIT_ARCH, TO_NEXT, TO_KILL);
    load(&program, offsetof(struct seccomp_data, nr));
#ifdef __x86_64__
    /* x32 calls share the x86_64 architecture with this bit set: none is expected, all are killed. */
    emit(&program, BPF_JMP | BPF_JSET | BPF_K, 0x40000000U, TO_KILL, TO_NEXT);
#endif
    for (size_t index = 0; index < sizeof trapped_calls / sizeof trapped_calls[0]; index++)
        jump_if_equal(&program, (unsigned int)trapped_calls[index].number, TO_TRAP, TO_NEXT);
    jump_if_equal(&program, __NR_clone, TO_CLONE, TO_NEXT);
    for (size_t index = 0; index < sizeof signal_calls / sizeof signal_calls[0]; index++)
        jump_if_equal(&program, (unsigned int)signal_calls[index].number, TO_SIGNAL, TO_NEXT);
    jump_if_equal(&program, __NR_clone3, TO_ENOSYS, TO_NEXT);
    /* io_uring opens, connects and makes sockets in kernel threads that no filter sees (the
     * socket rules and the notices would be bypassed; Landlock still holds): not there, as on a
     * kernel without it, so a library that tries it falls back. */
    jump_if_equal(&program, __NR_io_uring_setup, TO_ENOSYS, TO_NEXT);
    jump_if_equal(&program, __NR_io_uring_enter, TO_ENOSYS, TO_NEXT);
    jump_if_equal(&program, __NR_io_uring_register, TO_ENOSYS, TO_NEXT);
    jump_if_equal(&program, __NR_rt_sigaction, TO_SIGACTION, TO_ALLOW);

    /* clone(flags, ...) on x86_64 and aarch64 alike: a thread when its low 32 bits hold them all. */
    place(&program, TO_CLONE);
    load(&program, ARGUMENT_LOW(0));
    emit(&program, BPF_ALU | BPF_AND | BPF_K, FH_THREAD_CLONE, TO_NEXT, TO_NEXT);
    jump_if_equal(&program, FH_THREAD_CLONE, TO_ALLOW, TO_TRAP);

    /* kill(pid, ...) and the others: this process's pid only; 0 and negative pids (groups) trap. The
     * kernel reads a pid_t, the argument's low 32 bits. */
    place(&program, TO_SIGNAL);
    load(&program, ARGUMENT_LOW(0));
    jump_if_equal(&program, (unsigned int)pid, TO_ALLOW, TO_TRAP);

    /* rt_sigaction(SIGSYS, act, ...): reading the handler (act NULL) is fine, replacing it is not. */
    place(&program, TO_SIGACTION);
    load(&program, ARGUMENT_LOW(0));
    jump_if_equal(&program, SIGSYS, TO_NEXT, TO_ALLOW);
    load(&program, ARGUMENT_LOW(1));
    jump_if_equal(&program, 0, TO_NEXT, TO_EPERM);
    load(&program, ARGUMENT_HIGH(1));
    jump_if_equal(&program, 0, TO_ALLOW, TO_EPERM);

    place(&program, TO_ALLOW);
    give(&program, SECCOMP_RET_ALLOW);
    place(&program, TO_TRAP);
    give(&program, SECCOMP_RET_TRAP);
    place(&program, TO_KILL);
    give(&program, SECCOMP_RET_KILL_PROCESS);
    place(&program, TO_ENOSYS);
    give(&program, SECCOMP_RET_ERRNO | ENOSYS);
    place(&program, TO_EPERM);
    give(&program, SECCOMP_RET_ERRNO | EPERM);

    if (install(&program, SECCOMP_FILTER_FLAG_TSYNC) != 0) {
        /* A kernel without seccomp filters: the caller runs on with what it could apply. */
        if (errno == EINVAL || errno == ENOSYS) return 1;
        fh_sandbox_error(error, error_size, "cannot install the seccomp filter: %s", strerror(errno));
        return -1;
    }
    return 0;
}

int fh_sandbox_seccomp_support(void) {
    uint32_t action = SECCOMP_RET_TRAP;
    if (syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) != 0) return 0;
    action = SECCOMP_RET_USER_NOTIF;
    return syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0 ? 2 : 1;
}

int fh_sandbox_socket_allowed(uint64_t domain, int network) {
    /* No named local socket ever (Landlock does not confine connecting to one: a session bus or a
     * container engine's socket would be open to the plugin); internet and routing sockets only
     * for a plugin that declared a port (routing: the resolver asks it which addresses exist). */
    return network && (domain == AF_INET || domain == AF_INET6 || domain == AF_NETLINK);
}

int fh_sandbox_socket_filter(int network) {
    struct program program = {.count = 0};
    load(&program, offsetof(struct seccomp_data, arch));
    jump_if_equal(&program, FH_AUDIT_ARCH, TO_NEXT, TO_ALLOW); /* the base filter kills it */
    load(&program, offsetof(struct seccomp_data, nr));
    jump_if_equal(&program, __NR_socket, TO_NEXT, TO_ALLOW);
    load(&program, ARGUMENT_LOW(0));
    if (network) {
        jump_if_equal(&program, AF_INET, TO_ALLOW, TO_NEXT);
        jump_if_equal(&program, AF_INET6, TO_ALLOW, TO_NEXT);
        jump_if_equal(&program, AF_NETLINK, TO_ALLOW, TO_NEXT);
    }
    give(&program, SECCOMP_RET_ERRNO | EACCES);
    place(&program, TO_ALLOW);
    give(&program, SECCOMP_RET_ALLOW);
    return (int)install(&program, SECCOMP_FILTER_FLAG_TSYNC);
}

/* The calls the notices' supervisor answers: those Landlock may refuse, and socket. */
static const long noticed_calls[] = {
    __NR_socket, __NR_connect, __NR_bind, __NR_openat, __NR_openat2, __NR_mkdirat, __NR_mknodat, __NR_unlinkat,
    __NR_renameat, __NR_renameat2, __NR_linkat, __NR_symlinkat, __NR_truncate,
#ifdef __x86_64__
    __NR_open, __NR_creat, __NR_mkdir, __NR_mknod, __NR_unlink, __NR_rmdir, __NR_rename, __NR_link, __NR_symlink,
#endif
};

int fh_sandbox_notice_filter(void) {
    struct program program = {.count = 0};
    load(&program, offsetof(struct seccomp_data, arch));
    jump_if_equal(&program, FH_AUDIT_ARCH, TO_NEXT, TO_ALLOW); /* the base filter kills it */
    load(&program, offsetof(struct seccomp_data, nr));
    for (size_t index = 0; index < sizeof noticed_calls / sizeof noticed_calls[0]; index++)
        jump_if_equal(&program, (unsigned int)noticed_calls[index], TO_NOTIFY, TO_NEXT);
    place(&program, TO_ALLOW);
    give(&program, SECCOMP_RET_ALLOW);
    place(&program, TO_NOTIFY);
    give(&program, SECCOMP_RET_USER_NOTIF);
    /* The calling thread only (no TSYNC): the supervisor, already running, must not have it. */
    return (int)install(&program, SECCOMP_FILTER_FLAG_NEW_LISTENER);
}

// MARK: - Signal handlers: async-signal-safe code only (write, pread, tgkill).

static int note_fd = -1;
static int statm_fd = -1;
static uint64_t memory_limit;
static long page_size = 4096;
static char alternate_stack[64 * 1024];

static size_t append_text(char *line, size_t used, size_t size, const char *text) {
    while (*text != '\0' && used + 1 < size) line[used++] = *text++;
    return used;
}

static size_t append_number(char *line, size_t used, size_t size, unsigned long long value) {
    char digits[24];
    int count = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    while (count > 0 && used + 1 < size) line[used++] = digits[--count];
    return used;
}

/* Ends the process by `signal`, whose handler SA_RESETHAND has already set back to SIG_DFL (the
 * filter refuses rt_sigaction(SIGSYS, ...) to this code too): blocked while the handler runs, it
 * is delivered as the handler returns. */
static void raise_again(int signal) { syscall(__NR_tgkill, getpid(), syscall(__NR_gettid), signal); }

static void on_sigsys(int signal, siginfo_t *info, void *context) {
    (void)context;
    if (note_fd >= 0) {
        char line[64];
        size_t used = append_text(line, 0, sizeof line, "stopped ");
        const char *name = fh_sandbox_trapped_name(info->si_syscall);
        if (name != NULL) {
            used = append_text(line, used, sizeof line, name);
        } else {
            used = append_text(line, used, sizeof line, "syscall ");
            used = append_number(line, used, sizeof line, (unsigned long long)(unsigned int)info->si_syscall);
        }
        used = append_text(line, used, sizeof line, "\n");
        ssize_t written = write(note_fd, line, used);
        (void)written;
    }
    raise_again(signal);
}

/* The process's data size in bytes from /proc/self/statm (its sixth field, in pages); 0 when it
 * cannot be read. */
static uint64_t data_size(void) {
    char text[160];
    ssize_t length = pread(statm_fd, text, sizeof text - 1, 0);
    if (length <= 0) return 0;
    int field = 0;
    uint64_t pages = 0;
    for (ssize_t index = 0; index < length; index++) {
        if (text[index] == ' ') {
            if (++field > 5) break;
        } else if (field == 5 && text[index] >= '0' && text[index] <= '9') {
            pages = pages * 10 + (uint64_t)(text[index] - '0');
        }
    }
    return pages * (uint64_t)page_size;
}

static void on_fatal_signal(int signal, siginfo_t *info, void *context) {
    (void)info;
    (void)context;
    if (note_fd >= 0 && memory_limit > 0 && statm_fd >= 0 && data_size() >= memory_limit - memory_limit / 8) {
        char line[48];
        size_t used = append_text(line, 0, sizeof line, "memory ");
        used = append_number(line, used, sizeof line, (unsigned long long)memory_limit);
        used = append_text(line, used, sizeof line, "\n");
        ssize_t written = write(note_fd, line, used);
        (void)written;
    }
    raise_again(signal);
}

int fh_sandbox_signal_handlers(const fh_sandbox_policy *policy, int statm, char *error, size_t error_size) {
    note_fd = policy->note_fd;
    statm_fd = statm;
    /* Under a sanitizer no limit is set (fh_sandbox.c): a death is never said to be at one. */
    memory_limit = policy->under_sanitizer ? 0 : policy->max_memory;
    long size = sysconf(_SC_PAGESIZE);
    if (size > 0) page_size = size;

    /* A stack overflow's SIGSEGV needs a stack of its own; the calling thread gets one unless it has. */
    stack_t current;
    if (sigaltstack(NULL, &current) == 0 && (current.ss_flags & SS_DISABLE)) {
        stack_t alternate = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack, .ss_flags = 0};
        sigaltstack(&alternate, NULL);
    }

    struct sigaction action;
    memset(&action, 0, sizeof action);
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_ONSTACK;
    action.sa_sigaction = on_sigsys;
    if (sigaction(SIGSYS, &action, NULL) != 0) {
        fh_sandbox_error(error, error_size, "cannot install the SIGSYS handler: %s", strerror(errno));
        return -1;
    }
    /* Any handler the process had for these is replaced, not chained: the worker's death is the
     * host's to report, and the note says what it needs. */
    const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP};
    action.sa_sigaction = on_fatal_signal;
    for (size_t index = 0; index < sizeof fatal / sizeof fatal[0]; index++) {
        if (sigaction(fatal[index], &action, NULL) != 0) {
            fh_sandbox_error(error, error_size, "cannot install the handler of signal %d: %s", fatal[index],
                             strerror(errno));
            return -1;
        }
    }
    return 0;
}
