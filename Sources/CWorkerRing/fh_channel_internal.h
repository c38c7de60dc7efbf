// fh_channel_internal.h: what the channel's files share: the layout of the memory both sides map,
// and the helpers every part uses. The calls: fh_channel.c (the rings, reads and writes),
// fh_channel_direct.c (a request and its answer where they lie), fh_channel_wait.c (spinning,
// sleeping, waking).
#pragma once

#include "fh_channel.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define FH_CHANNEL_MAGIC 0x6668636eu  // "fhcn"
#define FH_CHANNEL_NAME "featurehost-channel"

// One direction. Positions count bytes written and read, wrapping at 2^32. A sleeper waits on a
// `wake` word, read before it says it sleeps and bumped by whoever wakes it, so a wake between
// its last look and its sleep is not lost.
struct fh_ring {
    _Alignas(64) _Atomic uint32_t tail;
    // The reader sleeps waiting for `tail` to move.
    _Atomic uint32_t reader_sleeps;
    _Atomic uint32_t reader_wake;
    _Alignas(64) _Atomic uint32_t head;
    // The writer sleeps waiting for `head` to move.
    _Atomic uint32_t writer_sleeps;
    _Atomic uint32_t writer_wake;
};

struct fh_channel_shared {
    uint32_t magic;
    uint32_t capacity;
    _Atomic uint32_t closed;
    // A host caller sleeps on `caller_wake` waiting for its answer or for room (woken on any
    // progress); the listener sleeps in poll and wants the doorbell rung for callbacks. Both
    // stay untouched while calls are answered at once.
    _Alignas(64) _Atomic uint32_t caller_sleeps;
    _Atomic uint32_t caller_wake;
    _Atomic uint32_t listener_sleeps;
    _Alignas(64) _Atomic uint64_t begun;
    // The replies' tail as written, ahead of `to_host.tail` while answers are held; read by the
    // host only once the worker is gone (`fh_channel_take_committed`).
    _Atomic uint32_t committed;
    struct fh_ring to_worker;
    // Replies, with the callbacks made on the serving thread during the call.
    struct fh_ring to_host;
    // Callbacks made on the plugin's other threads.
    struct fh_ring callbacks;
};

#define FH_HEADER_SIZE 4096
#define FH_RINGS 3

enum { TO_WORKER = 0, TO_HOST = 1, CALLBACKS = 2 };

static inline unsigned char *ring_data(const fh_channel *channel, int which) {
    return (unsigned char *)channel->shared + FH_HEADER_SIZE + (size_t)which * channel->capacity;
}

static inline struct fh_ring *out_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_worker : &channel->shared->to_host;
}

static inline struct fh_ring *in_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_host : &channel->shared->to_worker;
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

// What one side keeps of one ring it writes: its tail and the reader's head as last seen.
struct lane_out {
    struct fh_ring *ring;
    unsigned char *data;
    uint32_t *tail;
    uint32_t *head_seen;
};

static inline long writable_in(const fh_channel *channel, const struct fh_ring *ring, uint32_t tail) {
    uint32_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    uint32_t used = tail - head;
    if (used > channel->capacity) return -1;
    return (long)(channel->capacity - used);
}

static inline long readable_in(const fh_channel *channel, const struct fh_ring *ring, uint32_t head) {
    uint32_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    uint32_t used = tail - head;
    if (used > channel->capacity) return -1;
    return (long)used;
}

static inline struct lane_out out_lane(fh_channel *channel, int callbacks) {
    if (channel->host) {
        return (struct lane_out){&channel->shared->to_worker, ring_data(channel, TO_WORKER), &channel->out_tail,
                                 &channel->out_head_seen};
    }
    if (callbacks) {
        return (struct lane_out){&channel->shared->callbacks, ring_data(channel, CALLBACKS), &channel->callbacks_tail,
                                 &channel->callbacks_head_seen};
    }
    return (struct lane_out){&channel->shared->to_host, ring_data(channel, TO_HOST), &channel->out_tail,
                             &channel->out_head_seen};
}

// Room by the peer's position last read: its line is read again only when that is not enough.
static inline long room_for(const fh_channel *channel, struct lane_out lane, size_t count) {
    uint32_t used = *lane.tail - *lane.head_seen;
    if (used <= channel->capacity && channel->capacity - used >= count) return (long)(channel->capacity - used);
    uint32_t head = atomic_load_explicit(&lane.ring->head, memory_order_acquire);
    used = *lane.tail - head;
    if (used > channel->capacity) return -1;
    *lane.head_seen = head;
    return (long)(channel->capacity - used);
}

// Copies `count` bytes into `lane` at `offset` past this side's tail, wrapping at the ring's end.
static inline void copy_at(const fh_channel *channel, struct lane_out lane, uint32_t offset, const void *bytes,
                           size_t count) {
    uint32_t mask = channel->capacity - 1;
    uint32_t at = (*lane.tail + offset) & mask;
    size_t first = channel->capacity - at < count ? channel->capacity - at : count;
    memcpy(lane.data + at, bytes, first);
    if (count > first) memcpy(lane.data, (const unsigned char *)bytes + first, count - first);
}

#define FH_HIDDEN __attribute__((visibility("hidden")))

// Defined in fh_channel.c (the sleeping and waking parts, out of the hot path).
FH_HIDDEN long ch_futex_timed(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout);
FH_HIDDEN long ch_futex(_Atomic uint32_t *word, int op, uint32_t value);
// Bumps `word` and wakes one sleeper on it.
FH_HIDDEN void ch_wake(_Atomic uint32_t *word);
FH_HIDDEN long long ch_now_ns(void);
// The worker wrote callbacks the host's listener may be sleeping on: rings once.
FH_HIDDEN void ch_ring_doorbell(fh_channel *channel);

// The worker has made progress a host caller may be sleeping on: wake it once.
static inline void ch_wake_caller(fh_channel *channel) {
    fh_channel_shared *shared = channel->shared;
    if (atomic_load(&shared->caller_sleeps) && atomic_exchange(&shared->caller_sleeps, 0)) {
        ch_wake(&shared->caller_wake);
    }
}

// This side read up to `head`: shown to the writer, which may sleep waiting for room.
static inline void ch_moved_head(fh_channel *channel, struct fh_ring *ring, uint32_t head) {
    atomic_store(&ring->head, head);
    if (channel->host) {
        if (atomic_load(&ring->writer_sleeps) && atomic_exchange(&ring->writer_sleeps, 0)) ch_wake(&ring->writer_wake);
    } else {
        ch_wake_caller(channel);
    }
}

// Shows the bytes copied into `lane` to the reader, waking it if it sleeps.
static inline void ch_publish(fh_channel *channel, struct lane_out lane, int listener) {
    struct fh_ring *ring = lane.ring;
    if (!channel->host && !listener) {
        atomic_store_explicit(&channel->shared->committed, *lane.tail, memory_order_release);
        channel->out_published = *lane.tail;
    }
    // Sequentially consistent with the sleeper's flag: either it sees the new tail or this sees
    // its flag.
    atomic_store(&ring->tail, *lane.tail);
    if (channel->host) {
        if (atomic_load(&ring->reader_sleeps) && atomic_exchange(&ring->reader_sleeps, 0)) {
            ch_wake(&ring->reader_wake);
            channel->woke_peer = 1;
        }
    } else if (listener) {
        ch_ring_doorbell(channel);
    } else {
        ch_wake_caller(channel);
    }
}
