/*
 * sandbox_probe.c - applies the sandbox (Sources/CSandbox) then does one operation and prints what
 * happened, for Tests/HostKitTests/SandboxCoreTests.swift.
 *
 *   sandbox_probe [--read PATH] [--write PATH] [--port N] [--memory BYTES] [--files N]
 *                 [--note-fd FD] [--thread-first] [--no-notices] -- OPERATION ARGUMENTS...
 *
 * Prints each notice as `notice <read|write|connect|bind> <subject>` (from the supervisor thread,
 * before the refused call returns), then the operation's result: `ok` or `errno <NAME>`, or for
 * some operations a value. A refused apply prints `apply failed: <error>` and exits 3.
 *
 * Operations: read PATH, readat FOLDER NAME, write PATH TEXT, create PATH, mkdir PATH,
 * rename FROM TO, unlink PATH, connect PORT, bind, socket unix|udp, exec, fork, kill-parent, ptrace, vm-read,
 * thread-read PATH, thread-stat, io-uring, replace-sigsys, clone3, malloc BYTES, opens COUNT PATH, abort, exhaust-and-abort, core-limit, report.
 */
#define _GNU_SOURCE
#include "fh_sandbox.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Output goes through write(2) alone: the notice callback runs on another thread. */
static void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void say(const char *format, ...) {
    char line[8192];
    va_list arguments;
    va_start(arguments, format);
    int length = vsnprintf(line, sizeof line, format, arguments);
    va_end(arguments);
    if (length < 0) return;
    if ((size_t)length >= sizeof line) length = sizeof line - 1;
    ssize_t written = write(STDOUT_FILENO, line, (size_t)length);
    (void)written;
}

static const char *errno_name(int error) {
    switch (error) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case EMFILE: return "EMFILE";
    case ENOMEM: return "ENOMEM";
    case ECONNREFUSED: return "ECONNREFUSED";
    case EEXIST: return "EEXIST";
    case ENOSYS: return "ENOSYS";
    case EXDEV: return "EXDEV";
    default: return "OTHER";
    }
}

static void result(int value) {
    if (value < 0)
        say("errno %s\n", errno_name(errno));
    else
        say("ok\n");
}

static void on_notice(void *context, int kind, const char *subject) {
    (void)context;
    const char *names[] = {"?", "read", "write", "connect", "bind", "socket"};
    say("notice %s %s\n", kind >= 1 && kind <= 5 ? names[kind] : "?", subject);
}

static int read_file(const char *path) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char buffer[64];
    ssize_t got = read(fd, buffer, sizeof buffer);
    close(fd);
    return got < 0 ? -1 : 0;
}

/* A thread that says its id, then waits to be let go. */
static pid_t waiting_tid;
static sem_t tid_known, let_go;
static void *wait_to_be_read(void *unused) {
    (void)unused;
    waiting_tid = (pid_t)syscall(SYS_gettid);
    sem_post(&tid_known);
    sem_wait(&let_go);
    return NULL;
}

static void *thread_read(void *path) {
    int outcome = read_file(path);
    say("thread ");
    result(outcome);
    return NULL;
}

static int parked[2];
static void *park(void *unused) {
    (void)unused;
    char byte;
    ssize_t got = read(parked[0], &byte, 1);
    (void)got;
    return NULL;
}

static struct sockaddr_in loopback(int port) {
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

int main(int argc, char **argv) {
    const char *reads[32], *writes[32];
    uint16_t ports[8];
    fh_sandbox_policy policy = {.read_paths = reads, .write_paths = writes, .connect_ports = ports,
                                .note_fd = -1, .notice = on_notice};
    int thread_first = 0, index = 1;
    for (; index < argc && strcmp(argv[index], "--") != 0; index++) {
        const char *option = argv[index];
        const char *value = index + 1 < argc ? argv[index + 1] : "";
        if (strcmp(option, "--thread-first") == 0) {
            thread_first = 1;
            continue;
        }
        if (strcmp(option, "--no-notices") == 0) {
            policy.notice = NULL;
            continue;
        }
        index++;
        if (strcmp(option, "--read") == 0 && policy.read_count < 32) reads[policy.read_count++] = value;
        else if (strcmp(option, "--write") == 0 && policy.write_count < 32) writes[policy.write_count++] = value;
        else if (strcmp(option, "--port") == 0 && policy.port_count < 8) ports[policy.port_count++] = (uint16_t)atoi(value);
        else if (strcmp(option, "--memory") == 0) policy.max_memory = strtoull(value, NULL, 10);
        else if (strcmp(option, "--files") == 0) policy.max_open_files = strtoull(value, NULL, 10);
        else if (strcmp(option, "--note-fd") == 0) policy.note_fd = atoi(value);
        else {
            say("unknown option %s\n", option);
            return 64;
        }
    }
    if (index + 1 >= argc) {
        say("usage: sandbox_probe [options] -- OPERATION ARGUMENTS...\n");
        return 64;
    }
    char **operation = argv + index + 1;
    const char *name = operation[0];

    if (thread_first) {
        pthread_t thread;
        if (pipe(parked) != 0 || pthread_create(&thread, NULL, park, NULL) != 0) return 70;
    }
    fh_sandbox_report report;
    char error[512];
    if (fh_sandbox_apply(&policy, &report, error, sizeof error) != 0) {
        say("apply failed: %s\n", error);
        return 3;
    }
    if (getenv("SANDBOX_PROBE_REPORT") != NULL)
        fprintf(stderr, "abi %d nnp %d landlock %d seccomp %d limits %d notices %d off '%s'\n", report.landlock_abi,
                report.no_new_privs, report.landlock, report.seccomp, report.limits, report.notices, report.off);

    if (strcmp(name, "report") == 0) {
        say("abi %d nnp %d landlock %d seccomp %d limits %d notices %d off '%s'\n", report.landlock_abi,
            report.no_new_privs, report.landlock, report.seccomp, report.limits, report.notices, report.off);
    } else if (strcmp(name, "read") == 0) {
        result(read_file(operation[1]));
    } else if (strcmp(name, "readat") == 0) {
        int folder = open(operation[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
        int fd = folder < 0 ? -1 : openat(folder, operation[2], O_RDONLY | O_CLOEXEC);
        result(fd);
    } else if (strcmp(name, "write") == 0) {
        int fd = open(operation[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0 && write(fd, operation[2], strlen(operation[2])) < 0) fd = -1;
        result(fd);
    } else if (strcmp(name, "create") == 0) {
        result(open(operation[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    } else if (strcmp(name, "mkdir") == 0) {
        result(mkdir(operation[1], 0755));
    } else if (strcmp(name, "rename") == 0) {
        result(rename(operation[1], operation[2]));
    } else if (strcmp(name, "unlink") == 0) {
        result(unlink(operation[1]));
    } else if (strcmp(name, "connect") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in address = loopback(atoi(operation[1]));
        result(fd < 0 ? -1 : connect(fd, (struct sockaddr *)&address, sizeof address));
    } else if (strcmp(name, "socket") == 0) {
        int domain = strcmp(operation[1], "unix") == 0 ? AF_UNIX : strcmp(operation[1], "udp") == 0 ? AF_INET : -1;
        int fd = socket(domain, (domain == AF_UNIX ? SOCK_STREAM : SOCK_DGRAM) | SOCK_CLOEXEC, 0);
        result(fd);
    } else if (strcmp(name, "bind") == 0) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in address = loopback(0);
        result(fd < 0 ? -1 : bind(fd, (struct sockaddr *)&address, sizeof address));
    } else if (strcmp(name, "exec") == 0) {
        char *const arguments[] = {"sh", "-c", "echo escaped", NULL};
        execve("/bin/sh", arguments, NULL);
        result(-1);
    } else if (strcmp(name, "fork") == 0) {
        pid_t child = fork();
        if (child == 0) _exit(0);
        result(child);
    } else if (strcmp(name, "kill-parent") == 0) {
        result(kill(getppid(), 0));
    } else if (strcmp(name, "ptrace") == 0) {
        result((int)ptrace(PTRACE_ATTACH, getppid(), NULL, NULL));
    } else if (strcmp(name, "vm-read") == 0) {
        char buffer[16];
        struct iovec local = {buffer, sizeof buffer}, remote = {(void *)0x400000, sizeof buffer};
        result((int)process_vm_readv(getppid(), &local, 1, &remote, 1, 0));
    } else if (strcmp(name, "thread-read") == 0) {
        pthread_t thread;
        int started = pthread_create(&thread, NULL, thread_read, operation[1]);
        if (started != 0) {
            errno = started;
            result(-1);
        } else {
            pthread_join(thread, NULL);
        }
    } else if (strcmp(name, "io-uring") == 0) {
        char parameters[120] = {0}; /* struct io_uring_params */
        result((int)syscall(__NR_io_uring_setup, 4, parameters));
    } else if (strcmp(name, "thread-stat") == 0) {
        /* /proc/TID/stat of one of its own threads, as libdispatch reads its workers'. */
        sem_init(&tid_known, 0, 0);
        sem_init(&let_go, 0, 0);
        pthread_t thread;
        pthread_create(&thread, NULL, wait_to_be_read, NULL);
        sem_wait(&tid_known);
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/stat", (int)waiting_tid);
        result(read_file(path));
        sem_post(&let_go);
        pthread_join(thread, NULL);
    } else if (strcmp(name, "malloc") == 0) {
        void *memory = malloc((size_t)strtoull(operation[1], NULL, 10));
        say("%s\n", memory == NULL ? "null" : "allocated");
        free(memory);
    } else if (strcmp(name, "opens") == 0) {
        long count = atol(operation[1]), opened = 0;
        int last_error = 0;
        for (long attempt = 0; attempt < count; attempt++) {
            if (open(operation[2], O_RDONLY | O_CLOEXEC) < 0) {
                last_error = errno;
                break;
            }
            opened++;
        }
        say("opened %ld %s\n", opened, last_error == 0 ? "all" : errno_name(last_error));
    } else if (strcmp(name, "replace-sigsys") == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = SIG_IGN;
        result(sigaction(SIGSYS, &action, NULL));
    } else if (strcmp(name, "clone3") == 0) {
        result((int)syscall(435 /* __NR_clone3 on x86_64 and aarch64 */, NULL, 0));
    } else if (strcmp(name, "abort") == 0) {
        abort();
    } else if (strcmp(name, "exhaust-and-abort") == 0) {
        /* Touched megabytes until malloc fails (leaked on purpose), then the death a runtime's
         * failed allocation would be. */
        char *block;
        while ((block = malloc(1 << 20)) != NULL) memset(block, 1, 1 << 20);
        abort();
    } else if (strcmp(name, "core-limit") == 0) {
        struct rlimit limit;
        getrlimit(RLIMIT_CORE, &limit);
        say("core %llu %llu\n", (unsigned long long)limit.rlim_cur, (unsigned long long)limit.rlim_max);
    } else {
        say("unknown operation %s\n", name);
        return 64;
    }
    return 0;
}
