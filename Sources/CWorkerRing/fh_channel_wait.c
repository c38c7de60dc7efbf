#define _GNU_SOURCE
#include "fh_channel_internal.h"

#include <linux/futex.h>
#include <sched.h>

// Spinning, sleeping and waking: a caller waiting for its answer, the worker for a request or for
// room, the listener for callbacks.

static int ready(const fh_channel *channel, long room) {
    long readable = readable_in(channel, in_ring(channel), channel->in_head);
    if (readable != 0) return 1;  // bytes, or an impossible position the caller must see
    // The line the next bytes will be in, asked for while the tail is not yet seen to move: its
    // fetch overlaps the tail's instead of following it (a C ping-pong of this channel: 7% less a
    // round trip, BENCHMARKS.md).
    const unsigned char *next = ring_data(channel, channel->host ? TO_HOST : TO_WORKER);
    __builtin_prefetch(next + (channel->in_head & (channel->capacity - 1)));
    if (room <= 0) return 0;
    long writable = writable_in(channel, out_ring(channel), channel->out_tail);
    if (writable < 0) return 1;
    return writable >= (room < (long)channel->capacity ? room : (long)channel->capacity);
}

// Spins about `nanoseconds` until `done(channel, argument)`; 1 when so, 0 when not. The clock
// is read every 64 turns (a turn is a few tens of nanoseconds). Past the first 64 the peer is
// likely waiting for a CPU this side holds (two cores, a busy machine): each turn then yields it,
// so a loaded machine stretches the spin by up to 64 yields. Kept: ending it at the budget (the
// clock every turn once yielding) made exploring in a worker 12% slower (BENCHMARKS.md).
static inline int spin_until(const fh_channel *channel, long argument, long nanoseconds,
                             int (*done)(const fh_channel *, long)) {
    if (done(channel, argument)) return 1;
    if (nanoseconds <= 0) return 0;
    long long deadline = ch_now_ns() + nanoseconds;
    for (unsigned spins = 1;; spins++) {
        relax();
        if (done(channel, argument)) return 1;
        if (spins >= 64) sched_yield();
        if ((spins & 63) == 0 && ch_now_ns() >= deadline) return 0;
    }
}

int fh_channel_spin(const fh_channel *channel, long room, long nanoseconds) {
    return spin_until(channel, room, nanoseconds, ready);
}

static int callbacks_waiting(const fh_channel *channel, long unused) {
    (void)unused;
    return fh_channel_callbacks_readable(channel) != 0;
}

int fh_channel_callbacks_spin(const fh_channel *channel, long nanoseconds) {
    return spin_until(channel, 0, nanoseconds, callbacks_waiting);
}

uint32_t fh_channel_caller_wake_count(const fh_channel *channel) {
    return atomic_load(&channel->shared->caller_wake);
}

int fh_channel_caller_sleep(fh_channel *channel, long room, uint32_t seen, long timeout_nanoseconds) {
    fh_channel_shared *shared = channel->shared;
    atomic_store(&shared->caller_sleeps, 1);
    if (ready(channel, room)) {
        atomic_store(&shared->caller_sleeps, 0);
        return 1;
    }
    struct timespec timeout = {timeout_nanoseconds / 1000000000L, timeout_nanoseconds % 1000000000L};
    // Returns at once when woken since `seen` was read.
    ch_futex_timed(&shared->caller_wake, FUTEX_WAIT, seen, timeout_nanoseconds >= 0 ? &timeout : NULL);
    if (atomic_load_explicit(&shared->caller_sleeps, memory_order_relaxed)) atomic_store(&shared->caller_sleeps, 0);
    return 0;
}

void fh_channel_wake_caller(fh_channel *channel) { ch_wake(&channel->shared->caller_wake); }

int fh_channel_listener_sleeps(fh_channel *channel) {
    atomic_store(&channel->shared->listener_sleeps, 1);
    return fh_channel_callbacks_readable(channel) != 0;
}

void fh_channel_close(fh_channel *channel) {
    atomic_store(&channel->shared->closed, 1);
    // Whether or not it sleeps now: it sees `closed` before it sleeps again.
    ch_wake(&channel->shared->to_worker.reader_wake);
    ch_wake(&channel->shared->to_host.writer_wake);
    ch_wake(&channel->shared->callbacks.writer_wake);
}

static int closed(const fh_channel *channel) { return atomic_load(&channel->shared->closed) != 0; }

int fh_channel_worker_sleeps(const fh_channel *channel) {
    return atomic_load(&channel->shared->to_worker.reader_sleeps) != 0;
}

// The least the worker's spin budget falls to: under the 64 turns after which a spin yields.
#define FH_MIN_SPIN 1000L

int fh_channel_worker_wait_readable(fh_channel *channel, long spin_nanoseconds) {
    struct fh_ring *ring = in_ring(channel);
    long budget = channel->spin_budget;
    if (budget <= 0 || budget > spin_nanoseconds) budget = spin_nanoseconds;
    long long slept_at = 0;
    for (;;) {
        if (closed(channel)) return 1;
        if (fh_channel_spin(channel, 0, slept_at ? 0 : budget)) break;
        if (!slept_at) slept_at = ch_now_ns();
        uint32_t seen = atomic_load(&ring->reader_wake);
        atomic_store(&ring->reader_sleeps, 1);
        if (fh_channel_readable(channel) != 0 || closed(channel)) {
            atomic_store(&ring->reader_sleeps, 0);
            continue;
        }
        // Returns at once when woken since `seen` was read.
        ch_futex(&ring->reader_wake, FUTEX_WAIT, seen);
        atomic_store(&ring->reader_sleeps, 0);
    }
    if (slept_at && spin_nanoseconds > 0) {
        // Woken soon after it slept: a longer spin would have caught the request. Long asleep:
        // spinning would have been wasted.
        long waited = (long)(ch_now_ns() - slept_at) + budget;
        budget = waited < spin_nanoseconds ? budget * 2 : budget / 2;
        if (budget < FH_MIN_SPIN) budget = FH_MIN_SPIN;
        if (budget > spin_nanoseconds) budget = spin_nanoseconds;
    }
    channel->spin_budget = budget;
    return 0;
}

// The worker's rooms, for `spin_until`: `wanted` bytes free in the replies ring, or in the callbacks
// ring (or an impossible position, which the write then reports).
static int room_in(const fh_channel *channel, long wanted, int callbacks) {
    const struct fh_ring *ring = callbacks ? &channel->shared->callbacks : &channel->shared->to_host;
    long writable = writable_in(channel, ring, callbacks ? channel->callbacks_tail : channel->out_tail);
    return writable < 0 || writable >= wanted;
}

static int room_in_replies(const fh_channel *channel, long wanted) { return room_in(channel, wanted, 0); }

static int room_in_callbacks(const fh_channel *channel, long wanted) { return room_in(channel, wanted, 1); }

int fh_channel_worker_wait_writable(fh_channel *channel, long room, long spin_nanoseconds, int listener) {
    struct fh_ring *ring = listener ? &channel->shared->callbacks : &channel->shared->to_host;
    int (*has_room)(const fh_channel *, long) = listener ? room_in_callbacks : room_in_replies;
    // The host frees room only by reading what it can see: every reply is shown first.
    if (!listener && channel->out_published != channel->out_tail) {
        atomic_store(&channel->shared->to_host.tail, channel->out_published = channel->out_tail);
        ch_wake_caller(channel);
    }
    long wanted = room < (long)channel->capacity ? room : (long)channel->capacity;
    for (;;) {
        if (closed(channel)) return 1;
        if (spin_until(channel, wanted, spin_nanoseconds, has_room)) return 0;
        uint32_t seen = atomic_load(&ring->writer_wake);
        atomic_store(&ring->writer_sleeps, 1);
        if (has_room(channel, wanted) || closed(channel)) {
            atomic_store(&ring->writer_sleeps, 0);
            continue;
        }
        // Returns at once when woken since `seen` was read.
        ch_futex(&ring->writer_wake, FUTEX_WAIT, seen);
        atomic_store(&ring->writer_sleeps, 0);
    }
}
