#define _GNU_SOURCE
#include "fh_early_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int fh_early_worker_wanted(int count, const char *const *words, const char *isolation) {
    // The options before a command that take a value (`CommandTable.global`'s).
    int first = 0;
    while (first + 1 < count && (strcmp(words[first], "--plugins") == 0 || strcmp(words[first], "--scan-timeout") == 0)) {
        first += 2;
    }
    if (first < count && strcmp(words[first], "run") != 0) return 0;
    if (isolation != NULL && strcmp(isolation, "process") != 0) return 0;
    for (int index = 0; index < count; index++) {
        if (strcmp(words[index], "--help") == 0 || strcmp(words[index], "-h") == 0) return 0;
        if (strcmp(words[index], "--isolation") == 0 && index + 1 < count && strcmp(words[index + 1], "none") == 0) {
            return 0;
        }
    }
    return 1;
}

// Closes `*descriptor` if open, keeping errno.
static void release(int *descriptor) {
    if (*descriptor < 0) return;
    int saved = errno;
    close(*descriptor);
    errno = saved;
    *descriptor = -1;
}

// A copy of `descriptor` numbered 10 or above (close-on-exec), so that no dup2 onto 3...9 in the
// child meets it.
static int high_copy(int descriptor) { return fcntl(descriptor, F_DUPFD_CLOEXEC, 10); }

int fh_early_worker_start(const char *executable, int protocol, char *const *environment, fh_early_worker *worker) {
    memset(worker, 0, sizeof *worker);
    worker->socket = -1;
    worker->notes = -1;
    int ends[2] = {-1, -1};
    int notes[2] = {-1, -1};
    int copies[3] = {-1, -1, -1};
    int memory = -1;
    int status = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) goto done;
    if (pipe2(notes, O_CLOEXEC) != 0) goto done;
    memory = fh_channel_create(FH_WORKER_RING_CAPACITY, &worker->channel);
    if (memory < 0) goto done;
    copies[0] = high_copy(ends[1]);
    copies[1] = high_copy(notes[1]);
    copies[2] = high_copy(memory);
    if (copies[0] < 0 || copies[1] < 0 || copies[2] < 0) goto done;

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, copies[0], FH_WORKER_SOCKET_FD);
    posix_spawn_file_actions_adddup2(&actions, copies[1], FH_WORKER_NOTES_FD);
    posix_spawn_file_actions_adddup2(&actions, copies[2], FH_WORKER_CHANNEL_FD);
    // Nothing else of this process: a descriptor opened without close-on-exec must not outlive
    // its owner's close in the worker.
    posix_spawn_file_actions_addclosefrom_np(&actions, FH_WORKER_CHANNEL_FD + 1);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own process group (a timeout kills what it started too), and signals as a shell leaves them.
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    char parent[24], version[24];
    snprintf(parent, sizeof parent, "%d", (int)getpid());
    snprintf(version, sizeof version, "%d", protocol);
    char *const arguments[] = {(char *)executable, "__worker", parent, version, NULL};
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, executable, &actions, &attributes, arguments, environment);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    if (spawned != 0) {
        errno = spawned;
        goto done;
    }
    fcntl(ends[0], F_SETFL, fcntl(ends[0], F_GETFL) | O_NONBLOCK);
    fcntl(notes[0], F_SETFL, fcntl(notes[0], F_GETFL) | O_NONBLOCK);
    worker->pid = pid;
    worker->socket = ends[0];
    worker->notes = notes[0];
    ends[0] = -1;
    notes[0] = -1;
    status = 0;
done:
    if (status != 0 && worker->channel.shared != NULL) fh_channel_unmap(&worker->channel);
    release(&ends[0]);
    release(&ends[1]);
    release(&notes[0]);
    release(&notes[1]);
    release(&memory);
    for (int index = 0; index < 3; index++) release(&copies[index]);
    return status;
}

void fh_early_worker_discard(fh_early_worker *worker) {
    if (worker->pid <= 0) return;
    fh_channel_close(&worker->channel);
    kill(-worker->pid, SIGKILL);
    kill(worker->pid, SIGKILL);
    while (waitpid(worker->pid, NULL, 0) < 0 && errno == EINTR) {}
    release(&worker->socket);
    release(&worker->notes);
    fh_channel_unmap(&worker->channel);
    worker->pid = 0;
}

static fh_early_worker early;
static atomic_int early_kept;

int fh_early_worker_take(fh_early_worker *worker) {
    if (!atomic_exchange(&early_kept, 0)) return 0;
    *worker = early;
    return 1;
}

// Sanitizer runtimes start in this same phase: the worker waits for `main` there.
extern void __asan_init(void) __attribute__((weak));
extern void __tsan_init(void) __attribute__((weak));

// Runs before the initializers of every library (DT_PREINIT_ARRAY), on the main thread, which lives
// as long as the process. Only for the executable named `host` with `host-worker` beside it: tests
// and benchmarks link this too.
static void fh_early_worker_preinit(int argc, char **argv, char **envp) {
    (void)envp;
    if (__asan_init != NULL || __tsan_init != NULL || argc < 1) return;
    char executable[4096];
    ssize_t length = readlink("/proc/self/exe", executable, sizeof executable - 16);
    if (length <= 0) return;
    executable[length] = 0;
    char *name = strrchr(executable, '/');
    if (name == NULL || strcmp(name + 1, "host") != 0) return;
    if (!fh_early_worker_wanted(argc - 1, (const char *const *)argv + 1, getenv("FEATUREHOST_ISOLATION"))) return;
    strcpy(name + 1, "host-worker");
    if (access(executable, X_OK) != 0) return;
    // What the worker's start reads (the loader, the Swift runtime); the rest comes with `create`.
    static char library_path[4096], backtrace[256];
    char *environment[3] = {NULL, NULL, NULL};
    int count = 0;
    const char *libraries = getenv("LD_LIBRARY_PATH");
    if (libraries != NULL && snprintf(library_path, sizeof library_path, "LD_LIBRARY_PATH=%s", libraries) <
                                 (int)sizeof library_path) {
        environment[count++] = library_path;
    }
    const char *asked = getenv("SWIFT_BACKTRACE");
    snprintf(backtrace, sizeof backtrace, "SWIFT_BACKTRACE=%s", asked != NULL ? asked : "enable=no");
    environment[count++] = backtrace;
    if (fh_early_worker_start(executable, FH_WORKER_PROTOCOL, environment, &early) == 0) {
        atomic_store(&early_kept, 1);
    }
}

__attribute__((section(".preinit_array"), used)) static void (*const fh_early_worker_entry)(int, char **, char **) =
    fh_early_worker_preinit;
