#ifndef FH_EARLY_WORKER_H
#define FH_EARLY_WORKER_H

#include "fh_channel.h"

// A worker process started at the top of the host's start, before its libraries' initializers, the
// Swift runtime and Foundation run (about 6 ms): its own loading (5-8 ms) then overlaps them,
// where a worker started from `main` kept the host waiting for its first feature. Nothing in it
// names a plugin or an environment: both come with the worker's `create` request. The host's
// Swift side takes it (`fh_early_worker_take`) when it runs the executable the run's settings
// start, and ends it otherwise.

typedef struct fh_early_worker {
    // 0: none.
    int pid;
    // The host's end of the socketpair (close-on-exec, non-blocking).
    int socket;
    // The read end of the note pipe (close-on-exec, non-blocking).
    int notes;
    // The host's end of the channel, mapped.
    fh_channel channel;
} fh_early_worker;

// Whether `words` (the command line after the executable's name) run features in workers with
// the default settings, read without the host's command table: `host` alone and `host run ...`
// (after `--plugins DIR` and `--scan-timeout S`, if any), unless they or `isolation`
// (FEATUREHOST_ISOLATION's value, NULL when unset) choose no isolation or ask for help. 1 or 0.
int fh_early_worker_wanted(int count, const char *const *words, const char *isolation);

// Starts `executable` (`host-worker`) as a worker of this process, `WorkerLaunch`'s arguments for
// protocol `protocol`, with `environment` (NULL-terminated), its own process group, default
// signals, stdin /dev/null, the socket, note pipe and channel on their descriptors and no other
// descriptor. Spawned from the calling thread, which must live as long as the worker (its
// PR_SET_PDEATHSIG follows that thread). 0, or -1 with errno set and nothing left open.
int fh_early_worker_start(const char *executable, int protocol, char *const *environment, fh_early_worker *worker);

// Ends a worker `fh_early_worker_start` started that nobody served: closes its channel, kills its
// process group and reaps it, and releases what it held.
void fh_early_worker_discard(fh_early_worker *worker);

// The worker started as this process started, handed over once: 1 with `*worker` filled, or 0.
int fh_early_worker_take(fh_early_worker *worker);

#endif
