/*
 * fh_sandbox_notices.c - refusal notices: who tried what the sandbox refused.
 *
 * Landlock only returns EACCES, which nobody sees. So after Landlock and the base filter, apply
 * starts one supervisor thread (it inherits both), then installs on the calling thread alone a
 * filter that hands connect, bind and the file calls Landlock may refuse to the supervisor
 * (SECCOMP_RET_USER_NOTIF). Threads the calling thread starts later inherit it; the supervisor
 * does not have it.
 *
 * The supervisor shares the process's descriptors, folder and Landlock domain, so for a file call
 * it performs the same call with the same arguments (the strings copied out of the caller's memory
 * first, through /proc/self/mem), replies with its result, and calls the notice when the result
 * is EACCES or EPERM. It grants nothing the caller could not do itself: Landlock judges its call
 * as it would the caller's. connect is judged by port (a refusal is answered without connecting)
 * and otherwise continued by the kernel in the caller, so a blocking connect never blocks the
 * supervisor; Landlock checks it then. bind of an internet socket is refused (Landlock refuses
 * TCP bind anyway).
 */
#define _GNU_SOURCE
#include "fh_sandbox_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

/* The supervisor's state, written before it is started (the listener before `ready` is posted)
 * and only read afterwards. */
static struct {
    int listener;
    int mem_fd;
    long page_size;
    uint16_t *ports;
    size_t port_count;
    void (*notice)(void *context, int kind, const char *subject);
    void *context;
    sem_t ready;
    /* The thread whose call is being refused, while `notice` runs (only the supervisor writes it). */
    _Atomic int noticed_thread;
} supervisor = {.listener = -1, .mem_fd = -1};

/* Calls the notice callback for `request`'s thread. */
static void notify(const struct seccomp_notif *request, int kind, const char *subject) {
    atomic_store(&supervisor.noticed_thread, (int)request->pid);
    supervisor.notice(supervisor.context, kind, subject);
    atomic_store(&supervisor.noticed_thread, 0);
}

int fh_sandbox_noticed_thread(void) { return atomic_load(&supervisor.noticed_thread); }

int fh_sandbox_this_thread(void) { return (int)syscall(__NR_gettid); }

static int reply(const struct seccomp_notif *request, long long value, int error, unsigned int flags) {
    struct seccomp_notif_resp response = {.id = request->id, .val = value, .error = error, .flags = flags};
    return ioctl(supervisor.listener, SECCOMP_IOCTL_NOTIF_SEND, &response);
}

static int still_waiting(const struct seccomp_notif *request) {
    __u64 id = request->id;
    return ioctl(supervisor.listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* Copies `size` bytes at `address` in this process; 0, or -1 when they are not all readable. */
static int read_memory(uint64_t address, void *buffer, size_t size) {
    return pread(supervisor.mem_fd, buffer, size, (off_t)address) == (ssize_t)size ? 0 : -1;
}

/* Copies the string at `address` into `buffer` (PATH_MAX bytes), a page at most per read so a
 * string ending just before an unmapped page is read; 0, or the errno the kernel would give. */
static int read_string(uint64_t address, char *buffer) {
    size_t used = 0;
    while (used < PATH_MAX) {
        size_t in_page = (size_t)(supervisor.page_size - (long)((address + used) % (uint64_t)supervisor.page_size));
        size_t chunk = PATH_MAX - used < in_page ? PATH_MAX - used : in_page;
        ssize_t got = pread(supervisor.mem_fd, buffer + used, chunk, (off_t)(address + used));
        if (got <= 0) return EFAULT;
        void *end = memchr(buffer + used, '\0', (size_t)got);
        if (end != NULL) return 0;
        used += (size_t)got;
    }
    return ENAMETOOLONG;
}

/* `path` as an absolute path: relative to `dirfd` (its /proc/self/fd link) or to the folder. */
static void absolute_path(int dirfd, const char *path, char *out, size_t size) {
    if (path[0] == '/') {
        snprintf(out, size, "%s", path);
        return;
    }
    char base[PATH_MAX] = ".";
    if (dirfd == AT_FDCWD) {
        if (getcwd(base, sizeof base) == NULL) snprintf(base, sizeof base, ".");
    } else {
        char link[40];
        snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
        ssize_t length = readlink(link, base, sizeof base - 1);
        if (length < 0)
            snprintf(base, sizeof base, "(descriptor %d)", dirfd);
        else
            base[length] = '\0';
    }
    if (path[0] == '\0')
        snprintf(out, size, "%s", base);
    else
        snprintf(out, size, "%s%s%s", base, strcmp(base, "/") == 0 ? "" : "/", path);
}

static int open_writes(uint64_t flags) {
    return (flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) != 0;
}

/* connect and bind: judged by the address's port. */
static void answer_socket(const struct seccomp_notif *request) {
    const struct seccomp_data *data = &request->data;
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    size_t length = data->args[2] < sizeof address ? (size_t)data->args[2] : sizeof address;
    if (length < sizeof(sa_family_t) + sizeof(in_port_t) || read_memory(data->args[1], &address, length) != 0 ||
        (address.ss_family != AF_INET && address.ss_family != AF_INET6)) {
        reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
        return;
    }
    /* sin_port and sin6_port are at the same place. */
    unsigned port = ntohs(((const struct sockaddr_in *)&address)->sin_port);
    int kind = FH_SANDBOX_NOTICE_BIND;
    if (data->nr == __NR_connect) {
        /* Only TCP is confined to the declared ports (a resolver's UDP connect to port 53 is not). */
        int type = 0;
        socklen_t type_size = sizeof type;
        if (getsockopt((int)data->args[0], SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM) {
            reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
            return;
        }
        for (size_t index = 0; index < supervisor.port_count; index++) {
            if (supervisor.ports[index] == port) {
                /* The kernel then connects in the caller, and Landlock checks the port again. */
                reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
                return;
            }
        }
        kind = FH_SANDBOX_NOTICE_CONNECT;
    }
    if (!still_waiting(request)) return;
    char subject[8];
    snprintf(subject, sizeof subject, "%u", port);
    notify(request, kind, subject);
    reply(request, 0, -EACCES, 0);
}

/* Where a file call's paths are among its arguments. */
struct file_call {
    int path[2];      /* argument indexes of the paths, -1 for none */
    int dirfd[2];     /* argument indexes of their folders' descriptors, -1 for the current folder */
    int text;         /* a string that is copied but is no path looked up (symlink's target), or -1 */
    int opens;        /* returns a descriptor */
    int writes;       /* writes, creates, removes or renames */
};

/* The call's layout, or 0 when it is none the supervisor performs. */
static int describe(const struct seccomp_data *data, struct file_call *call) {
    *call = (struct file_call){.path = {-1, -1}, .dirfd = {-1, -1}, .text = -1, .opens = 0, .writes = 1};
    switch (data->nr) {
#ifdef __NR_open
    case __NR_open: *call = (struct file_call){{0, -1}, {-1, -1}, -1, 1, open_writes(data->args[1])}; return 1;
    case __NR_creat: *call = (struct file_call){{0, -1}, {-1, -1}, -1, 1, 1}; return 1;
    case __NR_mkdir:
    case __NR_mknod:
    case __NR_unlink:
    case __NR_rmdir: call->path[0] = 0; return 1;
    case __NR_rename:
    case __NR_link: call->path[0] = 0; call->path[1] = 1; return 1;
    case __NR_symlink: call->text = 0; call->path[0] = 1; return 1;
#endif
    case __NR_openat: *call = (struct file_call){{1, -1}, {0, -1}, -1, 1, open_writes(data->args[2])}; return 1;
    case __NR_openat2: *call = (struct file_call){{1, -1}, {0, -1}, -1, 1, 0}; return 1; /* flags: see below */
    case __NR_truncate: call->path[0] = 0; return 1;
    case __NR_mkdirat:
    case __NR_mknodat:
    case __NR_unlinkat: call->path[0] = 1; call->dirfd[0] = 0; return 1;
    case __NR_renameat:
    case __NR_renameat2:
    case __NR_linkat: *call = (struct file_call){{1, 3}, {0, 2}, -1, 0, 1}; return 1;
    case __NR_symlinkat: *call = (struct file_call){{2, -1}, {1, -1}, 0, 0, 1}; return 1;
    default: return 0;
    }
}

/* /proc/TID/... of one of this process's threads, as /proc/PID/task/TID/...: the same files, in the
 * one /proc folder Landlock grants. (libdispatch reads /proc/TID/stat of its worker threads, and
 * crashes when it cannot.) Leaves any other path as it is. */
static void thread_proc_path(char *path) {
    if (strncmp(path, "/proc/", 6) != 0) return;
    char *end;
    long tid = strtol(path + 6, &end, 10);
    if (end == path + 6 || (*end != '/' && *end != '\0') || tid == (long)getpid() || tid <= 0) return;
    char task[64];
    snprintf(task, sizeof task, "/proc/%ld/task/%ld", (long)getpid(), tid);
    struct stat status;
    if (stat(task, &status) != 0) return; /* not a thread of this process */
    char rewritten[PATH_MAX];
    if ((size_t)snprintf(rewritten, sizeof rewritten, "%s%s", task, end) >= sizeof rewritten) return;
    memcpy(path, rewritten, strlen(rewritten) + 1);
}

static int folder_of(const struct seccomp_data *data, int index) {
    return index < 0 ? AT_FDCWD : (int)data->args[index];
}

static void answer_file(const struct seccomp_notif *request) {
    const struct seccomp_data *data = &request->data;
    struct file_call call;
    if (!describe(data, &call)) {
        reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
        return;
    }
    uint64_t arguments[6];
    memcpy(arguments, data->args, sizeof arguments);
    static char paths[3][PATH_MAX]; /* the supervisor's alone */
    int failure = 0;
    for (int side = 0; side < 2 && failure == 0; side++) {
        if (call.path[side] < 0) continue;
        failure = read_string(data->args[call.path[side]], paths[side]);
        if (failure == 0) thread_proc_path(paths[side]);
        arguments[call.path[side]] = (uint64_t)(uintptr_t)paths[side];
    }
    if (failure == 0 && call.text >= 0) {
        failure = read_string(data->args[call.text], paths[2]);
        arguments[call.text] = (uint64_t)(uintptr_t)paths[2];
    }
    struct open_how how;
    if (failure == 0 && data->nr == __NR_openat2) {
        /* A size this code does not know is the kernel's to judge, in the caller. */
        if (data->args[3] != sizeof how) {
            reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
            return;
        }
        failure = read_memory(data->args[2], &how, sizeof how) == 0 ? 0 : EFAULT;
        arguments[2] = (uint64_t)(uintptr_t)&how;
        call.writes = open_writes(how.flags);
    }
    if (!still_waiting(request)) return;
    if (failure != 0) {
        reply(request, 0, -failure, 0);
        return;
    }
    /* Opening a FIFO waits for its other end: the caller waits for it, not the supervisor. */
    struct stat status;
    if (call.opens && fstatat(folder_of(data, call.dirfd[0]), paths[0], &status, 0) == 0 && S_ISFIFO(status.st_mode)) {
        reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
        return;
    }

    long result = syscall((long)data->nr, arguments[0], arguments[1], arguments[2], arguments[3], arguments[4],
                          arguments[5]);
    int error = result < 0 ? errno : 0;
    if ((error == EACCES || error == EPERM) && supervisor.notice != NULL) {
        char subject[2 * PATH_MAX + 8];
        absolute_path(folder_of(data, call.dirfd[0]), paths[0], subject, PATH_MAX);
        if (call.path[1] >= 0) {
            size_t used = strlen(subject);
            snprintf(subject + used, sizeof subject - used, " -> ");
            used = strlen(subject);
            absolute_path(folder_of(data, call.dirfd[1]), paths[1], subject + used, sizeof subject - used);
        }
        notify(request, call.writes ? FH_SANDBOX_NOTICE_WRITE : FH_SANDBOX_NOTICE_READ, subject);
    }
    if (reply(request, result < 0 ? 0 : result, -error, 0) != 0 && call.opens && result >= 0) {
        /* The caller went away (a signal ended its call): nobody will close what was opened for it. */
        close((int)result);
    }
}

/* socket: the families fh_sandbox_socket_allowed allows are made by the kernel in the caller. */
static void answer_socket_creation(const struct seccomp_notif *request) {
    uint64_t domain = request->data.args[0] & 0xffffffffU;
    if (fh_sandbox_socket_allowed(domain, supervisor.port_count > 0)) {
        reply(request, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
        return;
    }
    if (!still_waiting(request)) return;
    notify(request, FH_SANDBOX_NOTICE_SOCKET, domain == AF_UNIX ? "local" : "network");
    reply(request, 0, -EACCES, 0);
}

static void *supervise(void *unused) {
    (void)unused;
    while (sem_wait(&supervisor.ready) != 0) {
    }
    if (supervisor.listener < 0) return NULL;
    for (;;) {
        struct seccomp_notif request;
        memset(&request, 0, sizeof request);
        if (ioctl(supervisor.listener, SECCOMP_IOCTL_NOTIF_RECV, &request) != 0) {
            if (errno == EINTR || errno == ENOENT) continue;
            break;
        }
        if (request.data.nr == __NR_socket)
            answer_socket_creation(&request);
        else if (request.data.nr == __NR_connect || request.data.nr == __NR_bind)
            answer_socket(&request);
        else
            answer_file(&request);
    }
    /* Closing the listener makes the noticed calls fail with ENOSYS rather than wait forever. */
    close(supervisor.listener);
    return NULL;
}

int fh_sandbox_start_notices(const fh_sandbox_policy *policy, int mem_fd, char *why, size_t why_size) {
    if (policy->notice == NULL) {
        snprintf(why, why_size, "notices: no notice callback given");
        return -1;
    }
    if (mem_fd < 0) {
        snprintf(why, why_size, "notices: /proc/self/mem could not be opened");
        return -1;
    }
    supervisor.mem_fd = mem_fd;
    long page_size = sysconf(_SC_PAGESIZE);
    supervisor.page_size = page_size > 0 ? page_size : 4096;
    supervisor.notice = policy->notice;
    supervisor.context = policy->notice_context;
    if (policy->port_count > 0) {
        supervisor.ports = malloc(policy->port_count * sizeof *supervisor.ports);
        if (supervisor.ports == NULL) {
            snprintf(why, why_size, "notices: out of memory");
            return -1;
        }
        memcpy(supervisor.ports, policy->connect_ports, policy->port_count * sizeof *supervisor.ports);
        supervisor.port_count = policy->port_count;
    }
    if (sem_init(&supervisor.ready, 0, 0) != 0) {
        snprintf(why, why_size, "notices: sem_init: %s", strerror(errno));
        return -1;
    }

    /* The supervisor starts with every signal blocked: signals are for the plugin's threads. */
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    pthread_t thread;
    int started = pthread_create(&thread, NULL, supervise, NULL);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (started != 0) {
        snprintf(why, why_size, "notices: cannot start the supervisor thread: %s", strerror(started));
        return -1;
    }

    int listener = fh_sandbox_notice_filter();
    if (listener < 0) {
        snprintf(why, why_size, "notices: seccomp user notification is unavailable: %s", strerror(errno));
        sem_post(&supervisor.ready);
        pthread_join(thread, NULL);
        return -1;
    }
    supervisor.listener = listener;
    sem_post(&supervisor.ready);
    pthread_detach(thread);
    return 0;
}
