// The cheapest round trip two processes can make on this machine, for the benchmarks to compare
// the worker's with: a child is forked and answers each ping with a pong, touching nothing but
// the shared word or the socket and ending with _exit, so forking a threaded process is safe.
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

/// A pair of processes ping-ponging through a futex word in memory shared with a forked child;
/// each side spins up to `spin_ns` nanoseconds, then sleeps in FUTEX_WAIT and is woken only when
/// it said it sleeps. Started (NULL when the child cannot be), run for `round_trips` (returns
/// nanoseconds per round trip), and stopped (the child reaped, the pair freed).
typedef struct fh_ipc_floor_pair fh_ipc_floor_pair;
fh_ipc_floor_pair *fh_ipc_floor_futex_start(double spin_ns);
double fh_ipc_floor_futex_run(fh_ipc_floor_pair *pair, long round_trips);
void fh_ipc_floor_futex_stop(fh_ipc_floor_pair *pair);

/// The worker's channel (Sources/CWorkerRing) between this process and a forked child, with no
/// Swift and no plugin on either side: a counter action written as a request, served where it
/// lies, answered `done` and taken. Started (NULL when it cannot be), run for `round_trips`
/// (nanoseconds per round trip; negative when an answer was not as expected), stopped.
typedef struct fh_ipc_channel_pair fh_ipc_channel_pair;
fh_ipc_channel_pair *fh_ipc_channel_start(void);
double fh_ipc_channel_run(fh_ipc_channel_pair *pair, long round_trips);
void fh_ipc_channel_stop(fh_ipc_channel_pair *pair);

/// Nanoseconds per round trip of one byte each way over a socketpair with a forked child,
/// blocking reads and writes. Returns a negative value when the child cannot be started.
double fh_ipc_floor_socket(long round_trips);

#ifdef __cplusplus
}
#endif
