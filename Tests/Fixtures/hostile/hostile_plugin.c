/*
 * hostile_plugin.c - a plugin that tries what a worker's sandbox must refuse (issue 24), for the
 * sandbox's CLI tests (Tests/HostKitTests/HostileSandboxCLITests.swift). Built by the tests with
 * `cc -shared -fPIC` (FeatureTesting's HostilePlugin), in two variants:
 * - default: declares no needs;
 * - -DHOSTILE_NEEDS: its manifest declares
 *     "needs": {"connect": [{"setting": "port"}], "read": [{"setting": "read"}],
 *               "write": [{"setting": "write"}]}
 * Config, in both: {} or any of "read" and "write" (absolute paths) and "port" (integer 1-65535);
 * the plugin itself uses none of them (they name what the host's sandbox grants). Any other
 * setting is refused.
 *
 * One action a user types: attempt op=OP [target=T] [from=dispatch|effect]. The operation runs
 * during dispatch (default) or on an effect's thread (from=effect, bracketed by effect_began and
 * effect_ended), and its outcome comes back as {"type":"result","text":"..."}: a feedback from
 * dispatch, an effect's action from the thread. Only result changes the state, so a replay (reduce,
 * effects off) gives the same states without running any operation again. Ops:
 *   read T      open + read up to 64 bytes: "read T: ok 12 bytes: <data>" (so a test sees whether
 *               a secret's text reached the state)
 *   create T    O_CREAT|O_EXCL, write "x"        write T   O_WRONLY|O_APPEND, write "x"
 *   rename T    T -> T.moved                     delete T  unlink      mkdir T
 *   connect P   TCP to 127.0.0.1:P               bind      TCP 127.0.0.1 port 0, then listen
 *   exec        execve("/bin/sh", ["sh","-c","true"])   fork   child _exit(0)s at once, parent waits
 *   ptrace PID  PTRACE_ATTACH (then detach)      vm_read PID  process_vm_readv of 8 bytes
 *   kill PID    kill(PID, 0)                     alloc     malloc 8 GiB, untouched, freed
 *   fds         open /dev/null up to 100,000 times until one fails, then close them all
 *   local       connect to the unix socket at the target path
 *   exhaust     allocate and touch 16 MiB blocks until one fails, then abort() (a runaway leak)
 *   scribble    fill the memory the worker shares with the host with 0xA5 (positions and rings);
 *   scribble_data  the same past its first page (the rings' bytes only)
 * An outcome is "OP [T]: ok ..." or "OP [T]: ENAME" (errno by name): "create /x: EACCES",
 * "alloc: ENOMEM", "fds: EMFILE after 4093".
 *
 * State: {"log": ["outcome", ...]}, the outcomes in order (the oldest dropped past MAX_LOG). Every
 * entry is printable ASCII (other bytes are written \xNN), so render needs no escaping.
 *
 * Never attempt exec, fork, ptrace, vm_read, kill, alloc or fds with --isolation none: they would
 * act on the host's own process.
 *
 * Every function but the entry is static: the library exports only fh_plugin_entry_v1.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "feature_abi.h"

enum {
    MAX_LOG = 1000,        /* entries kept in the state */
    MAX_ENTRY = 2048,      /* bytes of one entry */
    MAX_EFFECTS = 64,      /* effect threads one instance starts */
    READ_KEPT = 64,        /* bytes of a read kept in its outcome */
    MAX_FDS = 100000,      /* descriptors the fds op opens at most */
    MAX_MEMBERS = 8,       /* members of an object the reader takes */
    MAX_ITEMS = MAX_LOG,   /* strings of an array the reader takes */
    MAX_KEY = 32,          /* bytes of a member name, with its NUL */
};

/* ---- A small strict JSON reader --------------------------------------------------------------
 * Objects whose members are strings, integers or arrays of strings: all that actions, configs and
 * states of this plugin hold. RFC 8259 syntax; no duplicate names, nothing after the object. */

typedef enum { JSON_STRING, JSON_INTEGER, JSON_STRINGS } json_kind;

typedef struct {
    char key[MAX_KEY];
    json_kind kind;
    char *text;        /* JSON_STRING, decoded UTF-8, owned */
    long long integer; /* JSON_INTEGER */
    char **items;      /* JSON_STRINGS, owned */
    int count;
} json_member;

typedef struct {
    json_member members[MAX_MEMBERS];
    int count;
} json_object;

typedef struct {
    const char *at;
    char *error;
    size_t error_size;
} json_reader;

static void json_free(json_object *object) {
    for (int i = 0; i < object->count; i++) {
        json_member *member = &object->members[i];
        free(member->text);
        for (int j = 0; j < member->count; j++) free(member->items[j]);
        free(member->items);
    }
    object->count = 0;
}

static int json_fail(json_reader *reader, const char *message) {
    snprintf(reader->error, reader->error_size, "%s", message);
    return -1;
}

static void json_space(json_reader *reader) {
    while (*reader->at == ' ' || *reader->at == '\t' || *reader->at == '\n' || *reader->at == '\r') reader->at++;
}

static int json_hex4(const char *at, unsigned *out) {
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = at[i];
        unsigned digit;
        if (c >= '0' && c <= '9') digit = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') digit = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') digit = (unsigned)(c - 'A' + 10);
        else return -1;
        value = value * 16 + digit;
    }
    *out = value;
    return 0;
}

/* Reads a string literal at reader->at into a new buffer (*out, owned by the caller). */
static int json_string(json_reader *reader, char **out) {
    if (*reader->at != '"') return json_fail(reader, "expected a string");
    const char *at = reader->at + 1;
    size_t capacity = strlen(at) + 1, length = 0;
    char *text = malloc(capacity);
    if (!text) return json_fail(reader, "out of memory");
    while (*at != '"') {
        unsigned char c = (unsigned char)*at;
        if (c == '\0') {
            free(text);
            return json_fail(reader, "unterminated string");
        }
        if (c < 0x20) {
            free(text);
            return json_fail(reader, "a control character in a string");
        }
        if (c != '\\') {
            text[length++] = (char)c;
            at++;
            continue;
        }
        char escape = at[1];
        const char *simple = strchr("\"\\/bfnrt", escape);
        if (escape && simple) {
            text[length++] = "\"\\/\b\f\n\r\t"[simple - "\"\\/bfnrt"];
            at += 2;
            continue;
        }
        unsigned code;
        if (escape != 'u' || json_hex4(at + 2, &code) < 0) {
            free(text);
            return json_fail(reader, "a bad escape in a string");
        }
        at += 6;
        if (code >= 0xD800 && code <= 0xDBFF) {
            unsigned low;
            if (at[0] != '\\' || at[1] != 'u' || json_hex4(at + 2, &low) < 0 || low < 0xDC00 || low > 0xDFFF) {
                free(text);
                return json_fail(reader, "a lone surrogate in a string");
            }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            at += 6;
        } else if (code >= 0xDC00 && code <= 0xDFFF) {
            free(text);
            return json_fail(reader, "a lone surrogate in a string");
        }
        if (code == 0) {
            free(text);
            return json_fail(reader, "a NUL in a string");
        }
        /* An escape's UTF-8 (at most 4 bytes) is never longer than the escape (6 or 12). */
        if (code < 0x80) {
            text[length++] = (char)code;
        } else if (code < 0x800) {
            text[length++] = (char)(0xC0 | (code >> 6));
            text[length++] = (char)(0x80 | (code & 0x3F));
        } else if (code < 0x10000) {
            text[length++] = (char)(0xE0 | (code >> 12));
            text[length++] = (char)(0x80 | ((code >> 6) & 0x3F));
            text[length++] = (char)(0x80 | (code & 0x3F));
        } else {
            text[length++] = (char)(0xF0 | (code >> 18));
            text[length++] = (char)(0x80 | ((code >> 12) & 0x3F));
            text[length++] = (char)(0x80 | ((code >> 6) & 0x3F));
            text[length++] = (char)(0x80 | (code & 0x3F));
        }
    }
    text[length] = '\0';
    reader->at = at + 1;
    *out = text;
    return 0;
}

static int json_integer(json_reader *reader, long long *out) {
    const char *at = reader->at;
    int negative = *at == '-';
    if (negative) at++;
    if (*at < '0' || *at > '9') return json_fail(reader, "expected a value");
    if (*at == '0' && at[1] >= '0' && at[1] <= '9') return json_fail(reader, "a number with a leading zero");
    long long value = 0;
    for (; *at >= '0' && *at <= '9'; at++) {
        if (value > (999999999999999999LL - (*at - '0')) / 10) return json_fail(reader, "an integer too large");
        value = value * 10 + (*at - '0');
    }
    if (*at == '.' || *at == 'e' || *at == 'E') return json_fail(reader, "a number that is not an integer");
    reader->at = at;
    *out = negative ? -value : value;
    return 0;
}

static int json_value(json_reader *reader, json_member *member) {
    if (*reader->at == '"') {
        member->kind = JSON_STRING;
        return json_string(reader, &member->text);
    }
    if (*reader->at == '[') {
        member->kind = JSON_STRINGS;
        member->items = calloc(MAX_ITEMS, sizeof *member->items);
        if (!member->items) return json_fail(reader, "out of memory");
        reader->at++;
        json_space(reader);
        if (*reader->at == ']') {
            reader->at++;
            return 0;
        }
        for (;;) {
            if (member->count == MAX_ITEMS) return json_fail(reader, "an array too long");
            json_space(reader);
            if (json_string(reader, &member->items[member->count]) < 0) return -1;
            member->count++;
            json_space(reader);
            if (*reader->at == ']') {
                reader->at++;
                return 0;
            }
            if (*reader->at != ',') return json_fail(reader, "expected ',' or ']' in an array");
            reader->at++;
        }
    }
    if (*reader->at == '-' || (*reader->at >= '0' && *reader->at <= '9')) {
        member->kind = JSON_INTEGER;
        return json_integer(reader, &member->integer);
    }
    return json_fail(reader, "a value that is not a string, an integer or an array of strings");
}

/* Reads json into object. Returns 0, or -1 with a one-line reason in error (object then empty). */
static int json_read(const char *json, json_object *object, char *error, size_t error_size) {
    json_reader reader = {json, error, error_size};
    memset(object, 0, sizeof *object);
    if (!json) return json_fail(&reader, "no JSON (NULL)");
    json_space(&reader);
    if (*reader.at != '{') return json_fail(&reader, "not a JSON object");
    reader.at++;
    json_space(&reader);
    int status = 0;
    if (*reader.at == '}') {
        reader.at++;
    } else {
        for (;;) {
            if (object->count == MAX_MEMBERS) {
                status = json_fail(&reader, "too many members");
                break;
            }
            json_space(&reader);
            char *key = NULL;
            if (json_string(&reader, &key) < 0) {
                status = -1;
                break;
            }
            int bad_key = strlen(key) >= MAX_KEY;
            for (int i = 0; i < object->count && !bad_key; i++) bad_key = strcmp(object->members[i].key, key) == 0;
            if (!bad_key) snprintf(object->members[object->count].key, MAX_KEY, "%s", key);
            free(key);
            if (bad_key) {
                status = json_fail(&reader, "a member name too long or given twice");
                break;
            }
            json_member *member = &object->members[object->count++];
            json_space(&reader);
            if (*reader.at != ':') {
                status = json_fail(&reader, "expected ':' after a member name");
                break;
            }
            reader.at++;
            json_space(&reader);
            if (json_value(&reader, member) < 0) {
                status = -1;
                break;
            }
            json_space(&reader);
            if (*reader.at == '}') {
                reader.at++;
                break;
            }
            if (*reader.at != ',') {
                status = json_fail(&reader, "expected ',' or '}' in an object");
                break;
            }
            reader.at++;
        }
    }
    if (status == 0) {
        json_space(&reader);
        if (*reader.at != '\0') status = json_fail(&reader, "something after the object");
    }
    if (status < 0) json_free(object);
    return status;
}

static const json_member *json_find(const json_object *object, const char *key) {
    for (int i = 0; i < object->count; i++) {
        if (strcmp(object->members[i].key, key) == 0) return &object->members[i];
    }
    return NULL;
}

/* The first member whose name is not in names (NULL-terminated), or NULL. */
static const char *json_unknown_member(const json_object *object, const char *const *names) {
    for (int i = 0; i < object->count; i++) {
        int known = 0;
        for (const char *const *name = names; *name && !known; name++) known = strcmp(*name, object->members[i].key) == 0;
        if (!known) return object->members[i].key;
    }
    return NULL;
}

/* ---- Text ------------------------------------------------------------------------------------ */

typedef struct {
    char *bytes;
    size_t length, capacity;
    int failed;
} text_buffer;

static void text_append(text_buffer *text, const char *bytes, size_t count) {
    if (text->failed) return;
    if (text->length + count + 1 > text->capacity) {
        size_t capacity = (text->length + count + 1) * 2;
        char *grown = realloc(text->bytes, capacity);
        if (!grown) {
            text->failed = 1;
            return;
        }
        text->bytes = grown;
        text->capacity = capacity;
    }
    memcpy(text->bytes + text->length, bytes, count);
    text->length += count;
    text->bytes[text->length] = '\0';
}

static void text_add(text_buffer *text, const char *string) { text_append(text, string, strlen(string)); }

/* Appends count bytes as printable ASCII: '\' as \\, other bytes outside ' '..'~' as \xNN. */
static void text_add_printable(text_buffer *text, const char *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) {
        unsigned char c = (unsigned char)bytes[i];
        char escaped[8];
        if (c == '\\') {
            text_add(text, "\\\\");
        } else if (c >= 0x20 && c < 0x7F) {
            text_append(text, (const char *)&c, 1);
        } else {
            snprintf(escaped, sizeof escaped, "\\x%02X", c);
            text_add(text, escaped);
        }
    }
}

/* Appends string as a JSON string literal. */
static void text_add_json_string(text_buffer *text, const char *string) {
    text_add(text, "\"");
    for (const char *at = string; *at; at++) {
        if (*at == '"' || *at == '\\') text_append(text, "\\", 1);
        text_append(text, at, 1);
    }
    text_add(text, "\"");
}

static int is_printable_ascii(const char *string) {
    for (const char *at = string; *at; at++) {
        if ((unsigned char)*at < 0x20 || (unsigned char)*at >= 0x7F) return 0;
    }
    return 1;
}

/* ---- The operations -------------------------------------------------------------------------- */

static const char *errno_name(int number) {
    static const struct { int number; const char *name; } names[] = {
        {EPERM, "EPERM"}, {ENOENT, "ENOENT"}, {ESRCH, "ESRCH"}, {EINTR, "EINTR"}, {EIO, "EIO"},
        {E2BIG, "E2BIG"}, {ENOEXEC, "ENOEXEC"}, {EBADF, "EBADF"}, {ECHILD, "ECHILD"}, {EAGAIN, "EAGAIN"},
        {ENOMEM, "ENOMEM"}, {EACCES, "EACCES"}, {EFAULT, "EFAULT"}, {EBUSY, "EBUSY"}, {EEXIST, "EEXIST"},
        {EXDEV, "EXDEV"}, {ENOTDIR, "ENOTDIR"}, {EISDIR, "EISDIR"}, {EINVAL, "EINVAL"}, {ENFILE, "ENFILE"},
        {EMFILE, "EMFILE"}, {ETXTBSY, "ETXTBSY"}, {ENOSPC, "ENOSPC"}, {EROFS, "EROFS"}, {EMLINK, "EMLINK"},
        {ENAMETOOLONG, "ENAMETOOLONG"}, {ENOSYS, "ENOSYS"}, {ENOTEMPTY, "ENOTEMPTY"}, {ELOOP, "ELOOP"},
        {ENOTSOCK, "ENOTSOCK"}, {EAFNOSUPPORT, "EAFNOSUPPORT"}, {EADDRINUSE, "EADDRINUSE"},
        {EADDRNOTAVAIL, "EADDRNOTAVAIL"}, {ENETUNREACH, "ENETUNREACH"}, {ECONNRESET, "ECONNRESET"},
        {ETIMEDOUT, "ETIMEDOUT"}, {ECONNREFUSED, "ECONNREFUSED"}, {EHOSTUNREACH, "EHOSTUNREACH"},
        {EINPROGRESS, "EINPROGRESS"}, {EOPNOTSUPP, "EOPNOTSUPP"}, {EPROTONOSUPPORT, "EPROTONOSUPPORT"},
    };
    static __thread char unknown[24];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].number == number) return names[i].name;
    }
    snprintf(unknown, sizeof unknown, "errno %d", number);
    return unknown;
}

typedef enum {
    OP_READ, OP_CREATE, OP_WRITE, OP_RENAME, OP_DELETE, OP_MKDIR, OP_CONNECT, OP_BIND, OP_EXEC, OP_FORK,
    OP_PTRACE, OP_VM_READ, OP_KILL, OP_ALLOC, OP_FDS, OP_LOCAL, OP_EXHAUST,
    OP_SCRIBBLE, OP_SCRIBBLE_DATA, OP_COUNT
} op_code;

typedef enum { TARGET_NONE, TARGET_PATH, TARGET_PORT, TARGET_PID } target_kind;

static const struct { const char *name; target_kind target; } ops[OP_COUNT] = {
    [OP_READ] = {"read", TARGET_PATH},     [OP_CREATE] = {"create", TARGET_PATH},
    [OP_WRITE] = {"write", TARGET_PATH},   [OP_RENAME] = {"rename", TARGET_PATH},
    [OP_DELETE] = {"delete", TARGET_PATH}, [OP_MKDIR] = {"mkdir", TARGET_PATH},
    [OP_CONNECT] = {"connect", TARGET_PORT}, [OP_BIND] = {"bind", TARGET_NONE},
    [OP_EXEC] = {"exec", TARGET_NONE},     [OP_FORK] = {"fork", TARGET_NONE},
    [OP_PTRACE] = {"ptrace", TARGET_PID},  [OP_VM_READ] = {"vm_read", TARGET_PID},
    [OP_KILL] = {"kill", TARGET_PID},      [OP_ALLOC] = {"alloc", TARGET_NONE},
    [OP_FDS] = {"fds", TARGET_NONE},       [OP_LOCAL] = {"local", TARGET_PATH},
    [OP_EXHAUST] = {"exhaust", TARGET_NONE}, [OP_SCRIBBLE] = {"scribble", TARGET_NONE},
    [OP_SCRIBBLE_DATA] = {"scribble_data", TARGET_NONE},
};

#define OP_NAMES "read, create, write, rename, delete, mkdir, connect, bind, exec, fork, ptrace, vm_read, kill, alloc, fds, local, exhaust, scribble, scribble_data"

/* One operation to run: what attempt asked for, checked. */
typedef struct {
    op_code op;
    char target[4096]; /* "" when the op takes none */
    long number;       /* the port or pid of a TARGET_PORT or TARGET_PID op */
} attempt_request;

/* Where alloc's block goes, so the compiler cannot drop a malloc whose result is unused. */
static void *volatile alloc_sink;

/* Appends the errno outcome of a failed step: ": ENAME" or ": STEP ENAME". */
static void add_errno(text_buffer *outcome, const char *step, int number) {
    text_add(outcome, ": ");
    if (step) {
        text_add(outcome, step);
        text_add(outcome, " ");
    }
    text_add(outcome, errno_name(number));
}

static void run_file_op(const attempt_request *request, text_buffer *outcome) {
    const char *path = request->target;
    char line[160];
    int fd, result;
    switch (request->op) {
    case OP_READ: {
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) { add_errno(outcome, NULL, errno); return; }
        char data[READ_KEPT];
        ssize_t count = read(fd, data, sizeof data);
        int error = errno;
        close(fd);
        if (count < 0) { add_errno(outcome, "read", error); return; }
        snprintf(line, sizeof line, ": ok %zd bytes: ", count);
        text_add(outcome, line);
        text_add_printable(outcome, data, (size_t)count);
        return;
    }
    case OP_CREATE:
    case OP_WRITE: {
        int flags = request->op == OP_CREATE ? O_WRONLY | O_CREAT | O_EXCL : O_WRONLY | O_APPEND;
        fd = open(path, flags | O_CLOEXEC, 0600);
        if (fd < 0) { add_errno(outcome, NULL, errno); return; }
        ssize_t written = write(fd, "x", 1);
        int error = errno;
        close(fd);
        if (written != 1) { add_errno(outcome, "write", written < 0 ? error : EIO); return; }
        text_add(outcome, ": ok");
        return;
    }
    case OP_RENAME: {
        char moved[sizeof request->target + 8];
        snprintf(moved, sizeof moved, "%s.moved", path);
        result = rename(path, moved);
        break;
    }
    case OP_DELETE: result = unlink(path); break;
    case OP_MKDIR: result = mkdir(path, 0700); break;
    default: return;
    }
    if (result < 0) { add_errno(outcome, NULL, errno); return; }
    text_add(outcome, ": ok");
}

static void run_socket_op(const attempt_request *request, text_buffer *outcome) {
    int socket_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (socket_fd < 0) { add_errno(outcome, "socket", errno); return; }
    struct sockaddr_in address = {.sin_family = AF_INET};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(request->op == OP_CONNECT ? (uint16_t)request->number : 0);
    socklen_t length = sizeof address;
    if (request->op == OP_CONNECT) {
        if (connect(socket_fd, (struct sockaddr *)&address, length) < 0) add_errno(outcome, NULL, errno);
        else text_add(outcome, ": ok");
    } else if (bind(socket_fd, (struct sockaddr *)&address, length) < 0) {
        add_errno(outcome, NULL, errno);
    } else if (listen(socket_fd, 1) < 0) {
        add_errno(outcome, "listen", errno);
    } else {
        char line[40];
        getsockname(socket_fd, (struct sockaddr *)&address, &length);
        snprintf(line, sizeof line, ": ok port %u", ntohs(address.sin_port));
        text_add(outcome, line);
    }
    close(socket_fd);
}

/* local: connect to the unix socket at the target path (a session bus, a container engine's). */
static void run_local_op(const attempt_request *request, text_buffer *outcome) {
    int socket_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (socket_fd < 0) { add_errno(outcome, "socket", errno); return; }
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(request->target) >= sizeof address.sun_path) { add_errno(outcome, NULL, ENAMETOOLONG); close(socket_fd); return; }
    memcpy(address.sun_path, request->target, strlen(request->target) + 1);
    if (connect(socket_fd, (struct sockaddr *)&address, sizeof address) < 0) add_errno(outcome, NULL, errno);
    else text_add(outcome, ": ok");
    close(socket_fd);
}

static void run_process_op(const attempt_request *request, text_buffer *outcome) {
    pid_t pid = (pid_t)request->number;
    switch (request->op) {
    case OP_EXEC: {
        char *arguments[] = {"sh", "-c", "true", NULL};
        execve("/bin/sh", arguments, environ);
        { add_errno(outcome, NULL, errno); return; }
    }
    case OP_FORK: {
        pid_t child = fork();
        if (child < 0) { add_errno(outcome, NULL, errno); return; }
        if (child == 0) _exit(0);
        int status;
        if (waitpid(child, &status, 0) < 0) { add_errno(outcome, "waitpid", errno); return; }
        text_add(outcome, ": ok");
        return;
    }
    case OP_PTRACE: {
        if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) < 0) { add_errno(outcome, NULL, errno); return; }
        /* Reached only without a sandbox: let the process go at once. The attach's SIGSTOP may
         * have stopped its other threads too, hence the SIGCONT. */
        int status;
        waitpid(pid, &status, __WALL);
        ptrace(PTRACE_DETACH, pid, NULL, NULL);
        kill(pid, SIGCONT);
        text_add(outcome, ": ok");
        return;
    }
    case OP_VM_READ: {
        /* Any address will do: the call itself is what a sandbox stops. */
        uint64_t local = 0, probe = 0;
        struct iovec into = {&local, sizeof local}, from = {&probe, sizeof probe};
        ssize_t count = process_vm_readv(pid, &into, 1, &from, 1, 0);
        if (count < 0) { add_errno(outcome, NULL, errno); return; }
        char line[32];
        snprintf(line, sizeof line, ": ok %zd bytes", count);
        text_add(outcome, line);
        return;
    }
    case OP_KILL:
        if (kill(pid, 0) < 0) { add_errno(outcome, NULL, errno); return; }
        text_add(outcome, ": ok");
        return;
    default: return;
    }
}

static void run_limit_op(const attempt_request *request, text_buffer *outcome) {
    if (request->op == OP_EXHAUST) {
        for (;;) {
            char *block = malloc((size_t)16 << 20);
            if (block == NULL) abort();
            memset(block, 1, (size_t)16 << 20);
            alloc_sink = block; /* kept: a leak, as a runaway feature's */
        }
    }
    if (request->op == OP_ALLOC) {
        errno = 0;
        alloc_sink = malloc((size_t)8 << 30);
        int failed = alloc_sink == NULL, error = errno ? errno : ENOMEM;
        free(alloc_sink);
        alloc_sink = NULL;
        if (failed) { add_errno(outcome, NULL, error); return; }
        text_add(outcome, ": ok");
        return;
    }
    int *descriptors = malloc(MAX_FDS * sizeof *descriptors);
    if (!descriptors) { add_errno(outcome, NULL, ENOMEM); return; }
    int count = 0, error = 0;
    while (count < MAX_FDS) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            error = errno;
            break;
        }
        descriptors[count++] = fd;
    }
    for (int i = 0; i < count; i++) close(descriptors[i]);
    free(descriptors);
    char line[64];
    if (error) snprintf(line, sizeof line, ": %s after %d", errno_name(error), count);
    else snprintf(line, sizeof line, ": ok %d", count);
    text_add(outcome, line);
}

/* Finds the memory the worker shares with the host (the memfd "featurehost-channel") in
 * /proc/self/maps and fills it with 0xA5: all of it (scribble), or past its first page, the
 * positions' page, so only the rings' bytes (scribble_data). In process there is none. */
static void run_scribble_op(const attempt_request *request, text_buffer *outcome) {
    FILE *maps = fopen("/proc/self/maps", "r");
    if (maps == NULL) { add_errno(outcome, NULL, errno); return; }
    char line[512];
    int found = 0;
    while (fgets(line, sizeof line, maps)) {
        unsigned long start, end;
        if (strstr(line, "featurehost-channel") == NULL || sscanf(line, "%lx-%lx", &start, &end) != 2) continue;
        unsigned long from = request->op == OP_SCRIBBLE_DATA ? start + 4096 : start;
        if (from < end) memset((void *)from, 0xA5, end - from);
        found = 1;
    }
    fclose(maps);
    text_add(outcome, found ? ": ok" : ": no channel");
}

/* Runs the operation and returns its outcome (owned by the caller), or NULL without memory. */
static char *run_attempt(const attempt_request *request) {
    text_buffer outcome = {0};
    text_add(&outcome, ops[request->op].name);
    if (request->target[0]) {
        text_add(&outcome, " ");
        text_add_printable(&outcome, request->target, strlen(request->target));
    }
    switch (request->op) {
    case OP_READ: case OP_CREATE: case OP_WRITE: case OP_RENAME: case OP_DELETE: case OP_MKDIR:
        run_file_op(request, &outcome);
        break;
    case OP_CONNECT: case OP_BIND: run_socket_op(request, &outcome); break;
    case OP_EXEC: case OP_FORK: case OP_PTRACE: case OP_VM_READ: case OP_KILL: run_process_op(request, &outcome); break;
    case OP_ALLOC: case OP_FDS: case OP_EXHAUST: run_limit_op(request, &outcome); break;
    case OP_LOCAL: run_local_op(request, &outcome); break;
    case OP_SCRIBBLE: case OP_SCRIBBLE_DATA: run_scribble_op(request, &outcome); break;
    case OP_COUNT: break;
    }
    if (outcome.failed || outcome.length >= MAX_ENTRY) {
        free(outcome.bytes);
        return NULL;
    }
    return outcome.bytes;
}

/* {"type":"result","text":outcome} in a new buffer (owned by the caller), or NULL. */
static char *result_action(const char *outcome) {
    text_buffer action = {0};
    text_add(&action, "{\"type\":\"result\",\"text\":");
    text_add_json_string(&action, outcome);
    text_add(&action, "}");
    if (action.failed) {
        free(action.bytes);
        return NULL;
    }
    return action.bytes;
}

/* ---- The instance ---------------------------------------------------------------------------- */

typedef enum { PHASE_BROKEN, PHASE_CREATED, PHASE_STARTED, PHASE_STOPPED } phase;

struct fh_instance {
    const fh_host *host;
    phase phase;
    int lifecycle_sent; /* dispatch has taken created or restored: it comes first, and once */
    char **log;         /* the state: MAX_LOG entries at most, printable ASCII */
    int log_count;
    pthread_t effects[MAX_EFFECTS]; /* started by dispatch, joined by stop (store thread only) */
    int effect_count;
    char *output; /* the last snapshot or view, owned */
    char error[512];
};

typedef struct {
    const fh_host *host;
    attempt_request request;
} effect_work;

static fh_status fail(fh_instance *instance, fh_status status, const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    int length = snprintf(instance->error, sizeof instance->error, "hostile: ");
    vsnprintf(instance->error + length, sizeof instance->error - (size_t)length, format, arguments);
    va_end(arguments);
    return status;
}

static void free_log(char **log, int count) {
    for (int i = 0; i < count; i++) free(log[i]);
    free(log);
}

/* Appends a copy of entry to the log, dropping the oldest entry when it is full. */
static int log_append(fh_instance *instance, const char *entry) {
    char *copy = strdup(entry);
    if (!copy) return -1;
    if (!instance->log) {
        instance->log = calloc(MAX_LOG, sizeof *instance->log);
        if (!instance->log) {
            free(copy);
            return -1;
        }
    }
    if (instance->log_count == MAX_LOG) {
        free(instance->log[0]);
        memmove(instance->log, instance->log + 1, (MAX_LOG - 1) * sizeof *instance->log);
        instance->log_count--;
    }
    instance->log[instance->log_count++] = copy;
    return 0;
}

static void *effect_thread(void *argument) {
    effect_work *work = argument;
    char *outcome = run_attempt(&work->request);
    char *action = outcome ? result_action(outcome) : NULL;
    work->host->emit(action ? action : "{\"type\":\"result\",\"text\":\"out of memory\"}", FH_ORIGIN_EFFECT);
    work->host->effect_ended();
    free(action);
    free(outcome);
    free(work);
    return NULL;
}

/* Checks an attempt's arguments into request; FH_OK or FH_ERR_BAD_ACTION (nothing applied). */
static fh_status read_attempt(fh_instance *instance, const json_object *action, attempt_request *request,
                              int *from_effect) {
    static const char *const members[] = {"type", "op", "target", "from", NULL};
    const char *unknown = json_unknown_member(action, members);
    if (unknown) return fail(instance, FH_ERR_BAD_ACTION, "attempt takes no argument '%s' (op, target, from)", unknown);
    const json_member *op = json_find(action, "op"), *target = json_find(action, "target"),
                      *from = json_find(action, "from");
    if (!op || op->kind != JSON_STRING) return fail(instance, FH_ERR_BAD_ACTION, "attempt needs op=<string>: " OP_NAMES);
    memset(request, 0, sizeof *request);
    request->op = OP_COUNT;
    for (int i = 0; i < OP_COUNT; i++) {
        if (strcmp(op->text, ops[i].name) == 0) request->op = (op_code)i;
    }
    if (request->op == OP_COUNT) return fail(instance, FH_ERR_BAD_ACTION, "unknown op '%.64s': " OP_NAMES, op->text);
    *from_effect = 0;
    if (from) {
        if (from->kind != JSON_STRING || (strcmp(from->text, "dispatch") && strcmp(from->text, "effect"))) {
            return fail(instance, FH_ERR_BAD_ACTION, "from is dispatch or effect");
        }
        *from_effect = strcmp(from->text, "effect") == 0;
    }
    target_kind kind = ops[request->op].target;
    if (kind == TARGET_NONE) {
        if (target) return fail(instance, FH_ERR_BAD_ACTION, "op %s takes no target", ops[request->op].name);
        return FH_OK;
    }
    if (!target || target->kind != JSON_STRING || !target->text[0]) {
        return fail(instance, FH_ERR_BAD_ACTION, "op %s needs target=<%s>", ops[request->op].name,
                    kind == TARGET_PATH ? "path" : kind == TARGET_PORT ? "port" : "pid");
    }
    if (strlen(target->text) >= sizeof request->target) return fail(instance, FH_ERR_BAD_ACTION, "target too long");
    snprintf(request->target, sizeof request->target, "%s", target->text);
    if (kind == TARGET_PATH) return FH_OK;
    char *end;
    errno = 0;
    request->number = strtol(target->text, &end, 10);
    long most = kind == TARGET_PORT ? 65535 : 0x7FFFFFFF;
    if (errno || *end || request->number < 1 || request->number > most) {
        return fail(instance, FH_ERR_BAD_ACTION, "op %s needs a %s from 1 to %ld as target", ops[request->op].name,
                    kind == TARGET_PORT ? "port" : "pid", most);
    }
    return FH_OK;
}

/* Applies one action: with effects (dispatch) the attempt's operation runs; without (reduce) it
 * is checked only. */
static fh_status apply(fh_instance *instance, const char *json, uint32_t *flags, int effects) {
    json_object action;
    char reason[160];
    if (json_read(json, &action, reason, sizeof reason) < 0) return fail(instance, FH_ERR_BAD_ACTION, "%s", reason);
    const json_member *type = json_find(&action, "type");
    fh_status status = FH_OK;
    uint32_t changed = 0;
    if (!type || type->kind != JSON_STRING) {
        status = fail(instance, FH_ERR_BAD_ACTION, "the action has no string type");
    } else if (strcmp(type->text, "created") == 0 || strcmp(type->text, "restored") == 0) {
        if (action.count != 1) status = fail(instance, FH_ERR_BAD_ACTION, "%s takes no argument", type->text);
        else if (effects && instance->lifecycle_sent) status = fail(instance, FH_ERR_LIFECYCLE, "a second lifecycle action");
        else if (effects) instance->lifecycle_sent = 1;
    } else if (effects && !instance->lifecycle_sent) {
        status = fail(instance, FH_ERR_LIFECYCLE, "'%.32s' before the lifecycle action", type->text);
    } else if (strcmp(type->text, "result") == 0) {
        static const char *const members[] = {"type", "text", NULL};
        const json_member *text = json_find(&action, "text");
        const char *unknown = json_unknown_member(&action, members);
        if (unknown) status = fail(instance, FH_ERR_BAD_ACTION, "result takes no argument '%s' (text)", unknown);
        else if (!text || text->kind != JSON_STRING || !is_printable_ascii(text->text) || strlen(text->text) >= MAX_ENTRY)
            status = fail(instance, FH_ERR_BAD_ACTION, "result needs text=<printable ASCII, under %d bytes>", MAX_ENTRY);
        else if (log_append(instance, text->text) < 0) status = fail(instance, FH_ERR_INTERNAL, "out of memory");
        else changed = FH_DISPATCH_STATE_CHANGED;
    } else if (strcmp(type->text, "attempt") == 0) {
        attempt_request request;
        int from_effect = 0;
        status = read_attempt(instance, &action, &request, &from_effect);
        if (status == FH_OK && effects && from_effect) {
            effect_work *work = malloc(sizeof *work);
            if (!work || instance->effect_count == MAX_EFFECTS) {
                free(work);
                status = fail(instance, FH_ERR_INTERNAL, "no room for another effect");
            } else {
                work->host = instance->host;
                work->request = request;
                instance->host->effect_began();
                if (pthread_create(&instance->effects[instance->effect_count], NULL, effect_thread, work) != 0) {
                    instance->host->effect_ended();
                    free(work);
                    status = fail(instance, FH_ERR_INTERNAL, "cannot start an effect thread");
                } else {
                    instance->effect_count++;
                }
            }
        } else if (status == FH_OK && effects) {
            char *outcome = run_attempt(&request);
            char *result = outcome ? result_action(outcome) : NULL;
            if (result) instance->host->emit(result, FH_ORIGIN_FEEDBACK);
            else status = fail(instance, FH_ERR_INTERNAL, "out of memory");
            free(result);
            free(outcome);
        }
    } else {
        status = fail(instance, FH_ERR_BAD_ACTION, "unknown action type '%.32s' (attempt, result)", type->text);
    }
    json_free(&action);
    if (status == FH_OK) {
        instance->error[0] = '\0';
        if (flags) *flags = changed;
    }
    return status;
}

/* ---- The ABI --------------------------------------------------------------------------------- */

static fh_status create(const fh_host *host, const char *config, fh_instance **out) {
    fh_instance *instance = calloc(1, sizeof *instance);
    *out = instance;
    if (!instance) return FH_ERR_INTERNAL;
    instance->host = host;
    json_object settings;
    char reason[160];
    if (json_read(config, &settings, reason, sizeof reason) < 0) return fail(instance, FH_ERR_BAD_CONFIG, "config: %s", reason);
    static const char *const names[] = {"read", "write", "port", NULL};
    const char *unknown = json_unknown_member(&settings, names);
    const json_member *read_path = json_find(&settings, "read"), *write_path = json_find(&settings, "write"),
                      *port = json_find(&settings, "port");
    fh_status status = FH_OK;
    if (unknown) {
        status = fail(instance, FH_ERR_BAD_CONFIG, "unknown setting '%s'; hostile reads read, write and port", unknown);
    } else if ((read_path && (read_path->kind != JSON_STRING || read_path->text[0] != '/'))
               || (write_path && (write_path->kind != JSON_STRING || write_path->text[0] != '/'))) {
        status = fail(instance, FH_ERR_BAD_CONFIG, "settings read and write are absolute paths");
    } else if (port && (port->kind != JSON_INTEGER || port->integer < 1 || port->integer > 65535)) {
        status = fail(instance, FH_ERR_BAD_CONFIG, "setting port is an integer from 1 to 65535");
    }
    json_free(&settings);
    if (status == FH_OK) instance->phase = PHASE_CREATED;
    return status;
}

static fh_status start(fh_instance *instance) {
    if (instance->phase != PHASE_CREATED) return fail(instance, FH_ERR_LIFECYCLE, "start: not a fresh instance");
    instance->phase = PHASE_STARTED;
    instance->error[0] = '\0';
    return FH_OK;
}

static fh_status dispatch(fh_instance *instance, const char *json, uint32_t *flags) {
    if (instance->phase != PHASE_STARTED) return fail(instance, FH_ERR_LIFECYCLE, "dispatch: not started");
    return apply(instance, json, flags, 1);
}

static fh_status reduce(fh_instance *instance, const char *json, uint32_t *flags) {
    if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
        return fail(instance, FH_ERR_LIFECYCLE, "reduce: not created or started");
    }
    return apply(instance, json, flags, 0);
}

static fh_status keep_output(fh_instance *instance, text_buffer *text, const char **out) {
    if (text->failed) {
        free(text->bytes);
        return fail(instance, FH_ERR_INTERNAL, "out of memory");
    }
    free(instance->output);
    instance->output = text->bytes;
    *out = instance->output;
    instance->error[0] = '\0';
    return FH_OK;
}

static fh_status snapshot(fh_instance *instance, const char **out) {
    if (instance->phase == PHASE_BROKEN) return fail(instance, FH_ERR_LIFECYCLE, "snapshot: not created");
    /* One member, entries in order, no spaces: the same state always gives the same bytes. */
    text_buffer text = {0};
    text_add(&text, "{\"log\":[");
    for (int i = 0; i < instance->log_count; i++) {
        if (i) text_add(&text, ",");
        text_add_json_string(&text, instance->log[i]);
    }
    text_add(&text, "]}");
    return keep_output(instance, &text, out);
}

static fh_status restore(fh_instance *instance, const char *json) {
    if (instance->phase != PHASE_CREATED && instance->phase != PHASE_STARTED) {
        return fail(instance, FH_ERR_LIFECYCLE, "restore: not created or started");
    }
    json_object state;
    char reason[160];
    if (json_read(json, &state, reason, sizeof reason) < 0) return fail(instance, FH_ERR_BAD_STATE, "state: %s", reason);
    static const char *const members[] = {"log", NULL};
    const char *unknown = json_unknown_member(&state, members);
    const json_member *log = json_find(&state, "log");
    fh_status status = FH_OK;
    if (unknown) {
        status = fail(instance, FH_ERR_BAD_STATE, "a state has no member '%s' (log)", unknown);
    } else if (!log || log->kind != JSON_STRINGS) {
        status = fail(instance, FH_ERR_BAD_STATE, "a state is {\"log\": [strings]}");
    } else {
        for (int i = 0; i < log->count && status == FH_OK; i++) {
            if (!is_printable_ascii(log->items[i]) || strlen(log->items[i]) >= MAX_ENTRY) {
                status = fail(instance, FH_ERR_BAD_STATE, "log entry %d is not printable ASCII under %d bytes", i, MAX_ENTRY);
            }
        }
    }
    if (status == FH_OK) {
        json_member *taken = (json_member *)log;
        free_log(instance->log, instance->log_count);
        instance->log = taken->items;
        instance->log_count = taken->count;
        taken->items = NULL;
        taken->count = 0;
        instance->error[0] = '\0';
    }
    json_free(&state);
    return status;
}

static fh_status render(fh_instance *instance, const char **out) {
    if (instance->phase == PHASE_BROKEN) return fail(instance, FH_ERR_LIFECYCLE, "render: not created");
    text_buffer text = {0};
    char headline[64];
    snprintf(headline, sizeof headline, "Hostile: %d attempt(s)", instance->log_count);
    text_add(&text, headline);
    for (int i = 0; i < instance->log_count; i++) {
        text_add(&text, "\n  ");
        text_add(&text, instance->log[i]);
    }
    return keep_output(instance, &text, out);
}

static fh_status stop(fh_instance *instance) {
    if (instance->phase != PHASE_STARTED) return fail(instance, FH_ERR_LIFECYCLE, "stop: not started");
    /* Join the effects' threads: once stop returns the plugin makes no callback. */
    for (int i = 0; i < instance->effect_count; i++) pthread_join(instance->effects[i], NULL);
    instance->effect_count = 0;
    instance->phase = PHASE_STOPPED;
    instance->error[0] = '\0';
    return FH_OK;
}

static void destroy(fh_instance *instance) {
    if (!instance) return;
    if (instance->phase == PHASE_STARTED) stop(instance);
    free_log(instance->log, instance->log_count);
    free(instance->output);
    free(instance);
}

static const char *last_error(const fh_instance *instance) { return instance->error; }

static const void *get_extension(const char *id) {
    (void)id;
    return NULL;
}

#ifdef HOSTILE_NEEDS
#define NEEDS \
    ",\"needs\":{\"connect\":[{\"setting\":\"port\"}],\"read\":[{\"setting\":\"read\"}],\"write\":[{\"setting\":\"write\"}]}"
#else
#define NEEDS ""
#endif

#define MANIFEST                                                                                              \
    "{\"id\":\"hostile\",\"name\":\"Hostile\",\"version\":\"1.0.0\","                                         \
    "\"description\":\"Tries what a worker's sandbox must refuse, and records what happened.\","             \
    "\"actions\":[{\"type\":\"attempt\",\"help\":\"Try one operation and record its outcome\","                \
    "\"arguments\":[{\"name\":\"op\",\"type\":\"string\",\"help\":\"" OP_NAMES "\"},"                        \
    "{\"name\":\"target\",\"type\":\"string\",\"help\":\"the path, port or pid the op takes\","              \
    "\"required\":false},"                                                                                    \
    "{\"name\":\"from\",\"type\":\"string\",\"help\":\"dispatch (default), or effect: on a thread\","        \
    "\"required\":false}]}]" NEEDS "}"

static const fh_plugin descriptor = {
    .struct_size = sizeof(fh_plugin),
    .abi_major = FH_ABI_MAJOR,
    .abi_minor = 1,
    .manifest_json = MANIFEST,
    .create = create,
    .start = start,
    .dispatch = dispatch,
    .reduce = reduce,
    .snapshot = snapshot,
    .restore = restore,
    .render = render,
    .stop = stop,
    .destroy = destroy,
    .last_error = last_error,
    .get_extension = get_extension,
};

FH_EXPORT const fh_plugin *fh_plugin_entry_v1(void) { return &descriptor; }
