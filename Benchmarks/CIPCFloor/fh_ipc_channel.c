#define _GNU_SOURCE
#include "fh_ipc_floor.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fh_channel.h"

// The worker's channel with nothing but its own C on either side: the host's end writes a
// counter action as a request and takes its `done`; a forked child serves it where it lies and
// answers, as the worker's loop does without a plugin.

// `WorkerFrame.Request.dispatch`'s kind byte.
#define DISPATCH 3

struct fh_ipc_channel_pair {
    fh_channel host;
    pid_t child;
};

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void serve(int descriptor) {
    fh_channel worker;
    if (fh_channel_attach(descriptor, -1, &worker) != 0) _exit(1);
    unsigned char buffer[256];
    for (;;) {
        // The worker's request spin (`WorkerServer.requestSpin`).
        if (fh_channel_worker_wait_readable(&worker, 30000)) _exit(0);
        const unsigned char *frame;
        int more;
        long size = fh_channel_peek_request(&worker, 0, &frame, &more);
        if (size > 0) {
            fh_channel_consume(&worker, (uint32_t)size);
        } else if (fh_channel_read(&worker, buffer, sizeof buffer) < 0) {
            _exit(1);
        }
        if (!fh_channel_write_done(&worker, 1, 1)) _exit(1);
    }
}

fh_ipc_channel_pair *fh_ipc_channel_start(void) {
    fh_ipc_channel_pair *pair = calloc(1, sizeof *pair);
    if (!pair) return NULL;
    int descriptor = fh_channel_create(FH_WORKER_RING_CAPACITY, &pair->host);
    if (descriptor < 0) {
        free(pair);
        return NULL;
    }
    pair->child = fork();
    if (pair->child == 0) serve(descriptor);
    close(descriptor);
    if (pair->child < 0 || fh_ipc_channel_run(pair, 1) < 0) {
        if (pair->child > 0) fh_ipc_channel_stop(pair);
        else {
            fh_channel_unmap(&pair->host);
            free(pair);
        }
        return NULL;
    }
    return pair;
}

double fh_ipc_channel_run(fh_ipc_channel_pair *pair, long round_trips) {
    static const char action[] = "{\"type\":\"increment\"}";
    double start = now_ns();
    for (long i = 0; i < round_trips; i++) {
        if (fh_channel_write_request(&pair->host, DISPATCH, action, sizeof action - 1) != 1) return -1;
        // The host's call spin (`WorkerConnection.callSpin`), then as long as it takes.
        while (!fh_channel_spin(&pair->host, 0, 200000)) {}
        if (fh_channel_take_done(&pair->host) != 1) return -1;
    }
    return (now_ns() - start) / (double)round_trips;
}

void fh_ipc_channel_stop(fh_ipc_channel_pair *pair) {
    fh_channel_close(&pair->host);
    int status;
    waitpid(pair->child, &status, 0);
    fh_channel_unmap(&pair->host);
    free(pair);
}
