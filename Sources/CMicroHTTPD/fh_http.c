// The devtools page's HTTP server: libmicrohttpd (libmicrohttpd12) does the HTTP; this file loads
// it with dlopen at first use, binds the listening socket to loopback itself, gathers a request's
// body and hands whole requests to one handler. Its calls are declared here: the option numbers
// and signatures below are libmicrohttpd's stable 0.9 ABI (so.12).
#include "fh_http.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum {
    MHD_NO = 0,
    MHD_YES = 1,
    MHD_USE_THREAD_PER_CONNECTION = 4,
    MHD_USE_INTERNAL_POLLING_THREAD = 8,
    MHD_USE_POLL = 64,
    MHD_USE_ITC = 1024,
    MHD_OPTION_END = 0,
    MHD_OPTION_CONNECTION_TIMEOUT = 3,
    MHD_OPTION_NOTIFY_COMPLETED = 4,
    MHD_OPTION_LISTEN_SOCKET = 12,
    MHD_HEADER_KIND = 1,
    MHD_COOKIE_KIND = 2,
    MHD_GET_ARGUMENT_KIND = 8,
    MHD_RESPMEM_MUST_FREE = 1,
};
#define MHD_SIZE_UNKNOWN ((uint64_t)-1)

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;
typedef int (*access_handler)(void *, struct MHD_Connection *, const char *, const char *, const char *,
                              const char *, size_t *, void **);
typedef void (*completed_callback)(void *, struct MHD_Connection *, void **, int);
typedef ssize_t (*reader_callback)(void *, uint64_t, char *, size_t);
typedef void (*reader_free_callback)(void *);

static struct {
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, void *, void *, access_handler, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const char *(*lookup)(struct MHD_Connection *, int, const char *);
    struct MHD_Response *(*from_buffer)(size_t, void *, int);
    struct MHD_Response *(*from_callback)(uint64_t, size_t, reader_callback, void *, reader_free_callback);
    int (*add_header)(struct MHD_Response *, const char *, const char *);
    int (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy)(struct MHD_Response *);
} mhd;
static int mhd_loaded;
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;

static void load_mhd(void) {
    // FEATUREHOST_LIBMICROHTTPD names another file: tests name a missing one.
    const char *name = getenv("FEATUREHOST_LIBMICROHTTPD");
    void *handle = dlopen(name && *name ? name : "libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return;
    *(void **)&mhd.start_daemon = dlsym(handle, "MHD_start_daemon");
    *(void **)&mhd.stop_daemon = dlsym(handle, "MHD_stop_daemon");
    *(void **)&mhd.lookup = dlsym(handle, "MHD_lookup_connection_value");
    *(void **)&mhd.from_buffer = dlsym(handle, "MHD_create_response_from_buffer");
    *(void **)&mhd.from_callback = dlsym(handle, "MHD_create_response_from_callback");
    *(void **)&mhd.add_header = dlsym(handle, "MHD_add_response_header");
    *(void **)&mhd.queue = dlsym(handle, "MHD_queue_response");
    *(void **)&mhd.destroy = dlsym(handle, "MHD_destroy_response");
    mhd_loaded = mhd.start_daemon && mhd.stop_daemon && mhd.lookup && mhd.from_buffer && mhd.from_callback &&
                 mhd.add_header && mhd.queue && mhd.destroy;
}

int fh_http_available(void) {
    pthread_once(&mhd_once, load_mhd);
    return mhd_loaded;
}

struct fh_http_server {
    struct MHD_Daemon *daemon;
    fh_http_handler handler;
    fh_http_stream_read read;
    fh_http_stream_free free_stream;
    void *context;
    size_t max_body;
};

struct fh_http_request {
    struct MHD_Connection *connection;
    const char *method;
    const char *path;
    const uint8_t *body;
    size_t body_size;
};

/* A request's body as it arrives, kept between the calls of one request. */
typedef struct {
    uint8_t *bytes;
    size_t count;
    int too_large;
} gathered;

/* A stream's reader state: the server (for its callbacks) and the handler's stream. */
typedef struct {
    fh_http_server *server;
    void *stream;
} streaming;

static ssize_t read_stream(void *cls, uint64_t position, char *buffer, size_t max) {
    (void)position;
    streaming *s = cls;
    ssize_t count = s->server->read(s->stream, buffer, max);
    return count < 0 ? (ssize_t)-1 /* MHD_CONTENT_READER_END_OF_STREAM */ : count;
}

static void free_streaming(void *cls) {
    streaming *s = cls;
    s->server->free_stream(s->stream);
    free(s);
}

static int answer(struct MHD_Connection *connection, int status, const char *text) {
    size_t size = strlen(text);
    char *copy = malloc(size + 1);
    if (!copy) return MHD_NO;
    memcpy(copy, text, size + 1);
    struct MHD_Response *response = mhd.from_buffer(size, copy, MHD_RESPMEM_MUST_FREE);
    if (!response) {
        free(copy);
        return MHD_NO;
    }
    mhd.add_header(response, "Content-Type", "text/plain; charset=utf-8");
    int queued = mhd.queue(connection, (unsigned)status, response);
    mhd.destroy(response);
    return queued;
}

static void free_response_parts(fh_http_response *r) {
    free((void *)r->content_type);
    free((void *)r->header_name);
    free((void *)r->header_value);
}

static int handle_request(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                  const char *version, const char *upload, size_t *upload_size, void **slot) {
    (void)version;
    fh_http_server *server = cls;
    gathered *body = *slot;
    if (!body) {
        body = calloc(1, sizeof *body);
        if (!body) return MHD_NO;
        *slot = body;
        return MHD_YES;
    }
    if (*upload_size) {
        if (!body->too_large && body->count + *upload_size <= server->max_body) {
            uint8_t *grown = realloc(body->bytes, body->count + *upload_size);
            if (!grown) return MHD_NO;
            memcpy(grown + body->count, upload, *upload_size);
            body->bytes = grown;
            body->count += *upload_size;
        } else {
            body->too_large = 1;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (body->too_large) return answer(connection, 413, "the request's body is too large\n");
    fh_http_request request = {connection, method, url, body->bytes, body->count};
    fh_http_response out;
    memset(&out, 0, sizeof out);
    server->handler(server->context, &request, &out);
    struct MHD_Response *response;
    if (out.stream) {
        streaming *s = malloc(sizeof *s);
        if (!s) {
            server->free_stream(out.stream);
            free(out.body);
            free_response_parts(&out);
            return MHD_NO;
        }
        s->server = server;
        s->stream = out.stream;
        response = mhd.from_callback(MHD_SIZE_UNKNOWN, 4096, read_stream, s, free_streaming);
        if (!response) free_streaming(s);
        free((void *)out.body);
    } else {
        response = mhd.from_buffer(out.body_size, (void *)out.body, MHD_RESPMEM_MUST_FREE);
        if (!response) free((void *)out.body);
    }
    if (!response) {
        free_response_parts(&out);
        return MHD_NO;
    }
    mhd.add_header(response, "Content-Type", out.content_type ? out.content_type : "text/plain; charset=utf-8");
    mhd.add_header(response, "Cache-Control", "no-store");
    mhd.add_header(response, "X-Content-Type-Options", "nosniff");
    if (out.header_name && out.header_value) mhd.add_header(response, out.header_name, out.header_value);
    int queued = mhd.queue(connection, (unsigned)(out.status ? out.status : 200), response);
    mhd.destroy(response);
    free_response_parts(&out);
    return queued;
}

static void completed(void *cls, struct MHD_Connection *connection, void **slot, int code) {
    (void)cls;
    (void)connection;
    (void)code;
    gathered *body = *slot;
    if (!body) return;
    free(body->bytes);
    free(body);
    *slot = NULL;
}

fh_http_server *fh_http_start(fh_http_handler handler, fh_http_stream_read read, fh_http_stream_free free_stream,
                              void *context, size_t max_body, uint16_t *port, char *reason, size_t reason_size) {
    if (!fh_http_available()) {
        snprintf(reason, reason_size, "libmicrohttpd.so.12 is not installed");
        return NULL;
    }
    // Bound here, to 127.0.0.1 only: libmicrohttpd gets a socket that cannot hear another address.
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(reason, reason_size, "socket: %s", strerror(errno));
        return NULL;
    }
    struct sockaddr_in address;
    memset(&address, 0, sizeof address);
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
        snprintf(reason, reason_size, "binding 127.0.0.1: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    fh_http_server *server = calloc(1, sizeof *server);
    if (!server) {
        close(fd);
        snprintf(reason, reason_size, "out of memory");
        return NULL;
    }
    server->handler = handler;
    server->read = read;
    server->free_stream = free_stream;
    server->context = context;
    server->max_body = max_body;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_ITC;
    server->daemon = mhd.start_daemon(flags, 0, NULL, NULL, handle_request, server, MHD_OPTION_LISTEN_SOCKET, fd,
                                      MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
                                      (unsigned)60, MHD_OPTION_END);
    if (!server->daemon) {
        snprintf(reason, reason_size, "libmicrohttpd did not start on 127.0.0.1:%u", ntohs(address.sin_port));
        close(fd);
        free(server);
        return NULL;
    }
    *port = ntohs(address.sin_port);
    return server;
}

void fh_http_stop(fh_http_server *server) {
    if (!server) return;
    mhd.stop_daemon(server->daemon);
    free(server);
}

const char *fh_http_method(const fh_http_request *request) { return request->method; }
const char *fh_http_path(const fh_http_request *request) { return request->path; }
const char *fh_http_header(const fh_http_request *request, const char *name) {
    return mhd.lookup(request->connection, MHD_HEADER_KIND, name);
}
const char *fh_http_cookie(const fh_http_request *request, const char *name) {
    return mhd.lookup(request->connection, MHD_COOKIE_KIND, name);
}
const char *fh_http_argument(const fh_http_request *request, const char *name) {
    return mhd.lookup(request->connection, MHD_GET_ARGUMENT_KIND, name);
}
const uint8_t *fh_http_body(const fh_http_request *request, size_t *size) {
    *size = request->body_size;
    return request->body;
}
