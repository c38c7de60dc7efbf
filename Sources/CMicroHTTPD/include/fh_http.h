/*
 * fh_http.h - a loopback HTTP server for the devtools page, on libmicrohttpd (libmicrohttpd12),
 * loaded with dlopen at first use and never linked: a machine without it builds and runs the host,
 * and only starting a server fails, saying what to install.
 *
 * Threads: the server runs a thread per connection (libmicrohttpd's own). The handler is called
 * on those threads, several at once; a stream's read may block (it is its connection's thread).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fh_http_server fh_http_server;
/* One request, valid only during the handler call that receives it. */
typedef struct fh_http_request fh_http_request;

/* What the handler answers. body, content_type, header_name and header_value are malloc'd by the
 * handler (or NULL); the server frees them. With `stream` set, the body is instead produced by the server's stream_read until it returns -1;
 * stream_free is called once the connection is done with it. */
typedef struct fh_http_response {
    int status;
    const char *content_type;
    uint8_t *body;
    size_t body_size;
    /* One more header (Content-Disposition, Cache-Control), or NULL. */
    const char *header_name;
    const char *header_value;
    void *stream;
} fh_http_response;

/* Answers a request [any connection thread]. `response` starts zeroed. */
typedef void (*fh_http_handler)(void *context, fh_http_request *request, fh_http_response *response);
/* Writes at most `max` bytes of a stream into `buffer`; returns the count, or -1 at its end. May
 * block [the stream's connection thread]. */
typedef ssize_t (*fh_http_stream_read)(void *stream, char *buffer, size_t max);
/* The connection is done with a stream [a connection thread]. */
typedef void (*fh_http_stream_free)(void *stream);

/* Whether libmicrohttpd could be loaded (loads it on the first call). */
int fh_http_available(void);

/* Starts a server on 127.0.0.1 at a free port (written to *port). Requests with a body larger
 * than max_body bytes get 413 without reaching the handler. NULL on failure, with `reason` (one
 * line). `context` is handed to every callback; it must outlive the server. */
fh_http_server *fh_http_start(fh_http_handler handler, fh_http_stream_read read, fh_http_stream_free free_stream,
                              void *context, size_t max_body, uint16_t *port, char *reason, size_t reason_size);

/* Stops accepting, waits for every connection thread to end (streams must end: make their reads
 * return -1 first), and frees the server. */
void fh_http_stop(fh_http_server *server);

/* The request's method ("GET"), path (without the query), a header, a cookie or a query argument
 * (decoded), each NULL when absent; borrowed for the handler call. */
const char *fh_http_method(const fh_http_request *request);
const char *fh_http_path(const fh_http_request *request);
const char *fh_http_header(const fh_http_request *request, const char *name);
const char *fh_http_cookie(const fh_http_request *request, const char *name);
const char *fh_http_argument(const fh_http_request *request, const char *name);
/* The request's body (not NUL-terminated; size 0 when none). */
const uint8_t *fh_http_body(const fh_http_request *request, size_t *size);

#ifdef __cplusplus
}
#endif
