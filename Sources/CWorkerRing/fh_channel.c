#define _GNU_SOURCE
#include "fh_channel.h"

#include <errno.h>
#include <sched.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

static unsigned char *ring_data(const fh_channel *channel, int which) {
    return (unsigned char *)channel->shared + FH_HEADER_SIZE + (size_t)which * channel->capacity;
}

static struct fh_ring *out_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_worker : &channel->shared->to_host;
}

static struct fh_ring *in_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_host : &channel->shared->to_worker;
}

static long futex_timed(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    // Shared between processes: not FUTEX_PRIVATE_FLAG.
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value) { return futex_timed(word, op, value, NULL); }

static void wake(_Atomic uint32_t *word) {
    atomic_fetch_add(word, 1);
    futex(word, FUTEX_WAKE, 1);
}

static inline void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

static long long now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000000LL + now.tv_nsec;
}

int fh_channel_create(uint32_t capacity, fh_channel *channel) {
    if (capacity == 0 || (capacity & (capacity - 1)) != 0 || capacity > (1u << 30)) {
        errno = EINVAL;
        return -1;
    }
    int descriptor = memfd_create(FH_CHANNEL_NAME, MFD_CLOEXEC);
    if (descriptor < 0) return -1;
    size_t size = FH_HEADER_SIZE + FH_RINGS * (size_t)capacity;
    int sized = ftruncate(descriptor, (off_t)size);
    // A limit on file sizes (ulimit -f, meant for journals) counts the memfd too: smaller rings
    // then, down to 1 KiB each (frames stream through any size).
    while (sized != 0 && errno == EFBIG && capacity > 1024) {
        capacity /= 2;
        size = FH_HEADER_SIZE + FH_RINGS * (size_t)capacity;
        sized = ftruncate(descriptor, (off_t)size);
    }
    if (sized != 0) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0);
    if (base == MAP_FAILED) {
        int saved = errno;
        close(descriptor);
        errno = saved;
        return -1;
    }
    memset(channel, 0, sizeof *channel);
    channel->shared = base;
    channel->mapped = size;
    channel->capacity = capacity;
    channel->host = 1;
    channel->doorbell = -1;
    channel->shared->magic = FH_CHANNEL_MAGIC;
    channel->shared->capacity = capacity;
    return descriptor;
}

int fh_channel_attach(int descriptor, int doorbell, fh_channel *channel) {
    void *header = mmap(NULL, FH_HEADER_SIZE, PROT_READ, MAP_SHARED, descriptor, 0);
    if (header == MAP_FAILED) return -1;
    uint32_t magic = ((fh_channel_shared *)header)->magic;
    uint32_t capacity = ((fh_channel_shared *)header)->capacity;
    munmap(header, FH_HEADER_SIZE);
    if (magic != FH_CHANNEL_MAGIC || capacity == 0 || (capacity & (capacity - 1)) != 0) {
        errno = EINVAL;
        return -1;
    }
    size_t size = FH_HEADER_SIZE + FH_RINGS * (size_t)capacity;
    void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0);
    if (base == MAP_FAILED) return -1;
    memset(channel, 0, sizeof *channel);
    channel->shared = base;
    channel->mapped = size;
    channel->capacity = capacity;
    channel->host = 0;
    channel->doorbell = doorbell;
    channel->out_tail = atomic_load(&channel->shared->to_host.tail);
    channel->out_head_seen = atomic_load(&channel->shared->to_host.head);
    channel->out_published = channel->out_tail;
    channel->in_head = atomic_load(&channel->shared->to_worker.head);
    channel->callbacks_tail = atomic_load(&channel->shared->callbacks.tail);
    channel->callbacks_head_seen = atomic_load(&channel->shared->callbacks.head);
    return 0;
}

void fh_channel_unmap(fh_channel *channel) {
    if (channel->shared) munmap(channel->shared, channel->mapped);
    channel->shared = NULL;
}

// The worker has made progress a host caller may be sleeping on: wake it once.
static void wake_caller(fh_channel *channel) {
    fh_channel_shared *shared = channel->shared;
    if (atomic_load(&shared->caller_sleeps) && atomic_exchange(&shared->caller_sleeps, 0)) wake(&shared->caller_wake);
}

// The worker wrote callbacks the host's listener may be sleeping on: ring once.
static void ring_doorbell(fh_channel *channel) {
    fh_channel_shared *shared = channel->shared;
    if (channel->doorbell < 0 || !atomic_load(&shared->listener_sleeps)) return;
    if (!atomic_exchange(&shared->listener_sleeps, 0)) return;
    char byte = 1;
    // A full socket already holds a ring the host has not read.
    (void)send(channel->doorbell, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

// This side read up to `head`: shown to the writer, which may sleep waiting for room.
static void moved_head(fh_channel *channel, struct fh_ring *ring, uint32_t head) {
    atomic_store(&ring->head, head);
    if (channel->host) {
        if (atomic_load(&ring->writer_sleeps) && atomic_exchange(&ring->writer_sleeps, 0)) wake(&ring->writer_wake);
    } else {
        wake_caller(channel);
    }
}

// What one side keeps of one ring it writes: its tail and the reader's head as last seen.
struct lane_out {
    struct fh_ring *ring;
    unsigned char *data;
    uint32_t *tail;
    uint32_t *head_seen;
};

static struct lane_out out_lane(fh_channel *channel, int callbacks) {
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

static long writable_in(const fh_channel *channel, const struct fh_ring *ring, uint32_t tail) {
    uint32_t head = atomic_load_explicit(&ring->head, memory_order_acquire);
    uint32_t used = tail - head;
    if (used > channel->capacity) return -1;
    return (long)(channel->capacity - used);
}

long fh_channel_writable(const fh_channel *channel) { return writable_in(channel, out_ring(channel), channel->out_tail); }

// Room by the peer's position last read: its line is read again only when that is not enough.
static long room_for(const fh_channel *channel, struct lane_out lane, size_t count) {
    uint32_t used = *lane.tail - *lane.head_seen;
    if (used <= channel->capacity && channel->capacity - used >= count) return (long)(channel->capacity - used);
    uint32_t head = atomic_load_explicit(&lane.ring->head, memory_order_acquire);
    used = *lane.tail - head;
    if (used > channel->capacity) return -1;
    *lane.head_seen = head;
    return (long)(channel->capacity - used);
}

static long readable_in(const fh_channel *channel, const struct fh_ring *ring, uint32_t head) {
    uint32_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    uint32_t used = tail - head;
    if (used > channel->capacity) return -1;
    return (long)used;
}

long fh_channel_readable(const fh_channel *channel) { return readable_in(channel, in_ring(channel), channel->in_head); }

long fh_channel_callbacks_readable(const fh_channel *channel) {
    return readable_in(channel, &channel->shared->callbacks, channel->callbacks_head);
}

// Copies `count` bytes into `lane` at `offset` past this side's tail, wrapping at the ring's end.
static void copy_at(const fh_channel *channel, struct lane_out lane, uint32_t offset, const void *bytes, size_t count) {
    uint32_t mask = channel->capacity - 1;
    uint32_t at = (*lane.tail + offset) & mask;
    size_t first = channel->capacity - at < count ? channel->capacity - at : count;
    memcpy(lane.data + at, bytes, first);
    if (count > first) memcpy(lane.data, (const unsigned char *)bytes + first, count - first);
}

// Copies what fits into `lane` and moves this side's own tail: the count, or -1 as for write.
static long copy_in(const fh_channel *channel, struct lane_out lane, const void *bytes, size_t count) {
    long room = room_for(channel, lane, count);
    if (room < 0) return -1;
    size_t n = count < (size_t)room ? count : (size_t)room;
    if (n == 0) return 0;
    copy_at(channel, lane, 0, bytes, n);
    *lane.tail += (uint32_t)n;
    return (long)n;
}

// Shows the bytes copied into `lane` to the reader, waking it if it sleeps.
static void publish(fh_channel *channel, struct lane_out lane, int listener) {
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
            wake(&ring->reader_wake);
            channel->woke_peer = 1;
        }
    } else if (listener) {
        ring_doorbell(channel);
    } else {
        wake_caller(channel);
    }
}

long fh_channel_write(fh_channel *channel, const void *bytes, size_t count, int listener) {
    struct lane_out lane = out_lane(channel, listener);
    long n = copy_in(channel, lane, bytes, count);
    if (n > 0) publish(channel, lane, listener);
    return n;
}

long fh_channel_write_request(fh_channel *channel, uint8_t kind, const void *text, size_t count) {
    if (!channel->host || count > channel->capacity / 4) return 0;
    struct lane_out lane = out_lane(channel, 0);
    // The frame: its length, its kind, and for a text the field's length (the NUL counted).
    uint32_t field = (uint32_t)count + 1;
    uint32_t length = text ? 1 + 4 + field : 1;
    size_t whole = 4 + (size_t)length;
    long room = room_for(channel, lane, whole);
    if (room < 0) return -1;
    if ((size_t)room < whole) return 0;
    unsigned char head[9] = {(unsigned char)length, (unsigned char)(length >> 8), (unsigned char)(length >> 16),
                             (unsigned char)(length >> 24), kind, (unsigned char)field, (unsigned char)(field >> 8),
                             (unsigned char)(field >> 16), (unsigned char)(field >> 24)};
    uint32_t at = *lane.tail & (channel->capacity - 1);
    if (channel->capacity - at >= whole) {
        // In one piece, as most are.
        memcpy(lane.data + at, head, text ? 9 : 5);
        if (text) {
            memcpy(lane.data + at + 9, text, count);
            lane.data[at + 9 + count] = 0;
        }
    } else if (text) {
        unsigned char nul = 0;
        copy_at(channel, lane, 0, head, 9);
        copy_at(channel, lane, 9, text, count);
        copy_at(channel, lane, 9 + (uint32_t)count, &nul, 1);
    } else {
        copy_at(channel, lane, 0, head, 5);
    }
    *lane.tail += (uint32_t)whole;
    publish(channel, lane, 0);
    return 1;
}

int fh_channel_take_done(fh_channel *channel) {
    if (!channel->host) return -1;
    struct fh_ring *ring = &channel->shared->to_host;
    long waiting = readable_in(channel, ring, channel->in_head);
    if (waiting < 6) return -1;
    const unsigned char *data = ring_data(channel, TO_HOST);
    uint32_t mask = channel->capacity - 1;
    unsigned char frame[6];
    for (uint32_t i = 0; i < 6; i++) frame[i] = data[(channel->in_head + i) & mask];
    // A `done` frame: length 2, its kind, the changed byte.
    if (frame[0] != 2 || frame[1] != 0 || frame[2] != 0 || frame[3] != 0 || frame[4] != FH_FRAME_DONE) return -1;
    channel->in_head += 6;
    moved_head(channel, ring, channel->in_head);
    return frame[5] != 0;
}

int fh_channel_write_done(fh_channel *channel, int changed, int shown) {
    if (channel->host) return 0;
    struct lane_out lane = out_lane(channel, 0);
    if (atomic_load_explicit(&channel->shared->to_host.tail, memory_order_relaxed) != channel->out_published) return 0;
    long room = room_for(channel, lane, 6);
    if (room < 6) return 0;
    unsigned char frame[6] = {2, 0, 0, 0, FH_FRAME_DONE, changed ? 1 : 0};
    copy_at(channel, lane, 0, frame, 6);
    *lane.tail += 6;
    if (shown) {
        publish(channel, lane, 0);
    } else {
        atomic_store_explicit(&channel->shared->committed, *lane.tail, memory_order_release);
    }
    return 1;
}

long fh_channel_peek_request(const fh_channel *channel, uint32_t offset, const unsigned char **frame, int *more) {
    *more = 0;
    if (channel->host) return 0;
    long waiting = readable_in(channel, &channel->shared->to_worker, channel->in_head);
    if (waiting < 0 || (uint64_t)waiting < (uint64_t)offset + 5) return 0;
    waiting -= (long)offset;
    const unsigned char *data = ring_data(channel, TO_WORKER);
    uint32_t mask = channel->capacity - 1;
    uint32_t at = (channel->in_head + offset) & mask;
    // Not when its length word wraps: read the general way.
    if (channel->capacity - at < 4) return 0;
    const unsigned char *start = data + at;
    uint32_t length = (uint32_t)start[0] | (uint32_t)start[1] << 8 | (uint32_t)start[2] << 16 | (uint32_t)start[3] << 24;
    if (length < 1 || (uint64_t)length + 4 > (uint64_t)waiting || length + 4 > channel->capacity - at) return 0;
    *frame = start;
    // Whether the next frame is whole too, in one piece or not.
    long rest = waiting - (long)(length + 4);
    if (rest >= 4) {
        uint32_t next = at + length + 4;
        uint32_t following = 0;
        for (uint32_t i = 0; i < 4; i++) following |= (uint32_t)data[(next + i) & mask] << (8 * i);
        *more = following >= 1 && (uint64_t)following + 4 <= (uint64_t)rest;
    }
    return (long)length + 4;
}

void fh_channel_consume(fh_channel *channel, uint32_t count) {
    channel->in_head += count;
    moved_head(channel, in_ring(channel), channel->in_head);
}

long fh_channel_write_held(fh_channel *channel, const void *bytes, size_t count) {
    if (channel->host) return -1;
    // A shown position this side did not show (the plugin wrote over the shared memory) is put
    // right at once, as a shown write would, not left for the host to find.
    if (atomic_load_explicit(&channel->shared->to_host.tail, memory_order_relaxed) != channel->out_published)
        return fh_channel_write(channel, bytes, count, 0);
    struct lane_out lane = out_lane(channel, 0);
    long n = copy_in(channel, lane, bytes, count);
    // After the bytes: a host that takes `committed` once the worker is gone finds them whole.
    if (n > 0) atomic_store_explicit(&channel->shared->committed, *lane.tail, memory_order_release);
    return n;
}

int fh_channel_take_committed(fh_channel *channel) {
    if (!channel->host) return 0;
    struct fh_ring *ring = &channel->shared->to_host;
    uint32_t committed = atomic_load_explicit(&channel->shared->committed, memory_order_acquire);
    uint32_t tail = atomic_load_explicit(&ring->tail, memory_order_acquire);
    // Believed only ahead of what was shown and within a ring of what the host read.
    if (committed == tail || committed - tail > channel->capacity || committed - channel->in_head > channel->capacity)
        return 0;
    atomic_store(&ring->tail, committed);
    return 1;
}

static long read_from(fh_channel *channel, struct fh_ring *ring, const unsigned char *data, uint32_t *head,
                      void *buffer, size_t count) {
    long waiting = readable_in(channel, ring, *head);
    if (waiting < 0) return -1;
    size_t n = count < (size_t)waiting ? count : (size_t)waiting;
    if (n == 0) return 0;
    uint32_t mask = channel->capacity - 1;
    uint32_t at = *head & mask;
    size_t first = channel->capacity - at < n ? channel->capacity - at : n;
    memcpy(buffer, data + at, first);
    if (n > first) memcpy((unsigned char *)buffer + first, data, n - first);
    *head += (uint32_t)n;
    moved_head(channel, ring, *head);
    return (long)n;
}

long fh_channel_read(fh_channel *channel, void *buffer, size_t count) {
    const unsigned char *data = ring_data(channel, channel->host ? TO_HOST : TO_WORKER);
    return read_from(channel, in_ring(channel), data, &channel->in_head, buffer, count);
}

long fh_channel_read_callbacks(fh_channel *channel, void *buffer, size_t count) {
    if (!channel->host) return -1;
    return read_from(channel, &channel->shared->callbacks, ring_data(channel, CALLBACKS), &channel->callbacks_head,
                     buffer, count);
}

static int ready(const fh_channel *channel, long room) {
    long readable = fh_channel_readable(channel);
    if (readable != 0) return 1;  // bytes, or an impossible position the caller must see
    // The line the next bytes will be in, asked for while the tail is not yet seen to move: its
    // fetch overlaps the tail's instead of following it (a C ping-pong of this channel: 7% less a
    // round trip, BENCHMARKS.md).
    __builtin_prefetch(ring_data(channel, channel->host ? TO_HOST : TO_WORKER) + (channel->in_head & (channel->capacity - 1)));
    if (room <= 0) return 0;
    long writable = fh_channel_writable(channel);
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
    long long deadline = now_ns() + nanoseconds;
    for (unsigned spins = 1;; spins++) {
        relax();
        if (done(channel, argument)) return 1;
        if (spins >= 64) sched_yield();
        if ((spins & 63) == 0 && now_ns() >= deadline) return 0;
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
    futex_timed(&shared->caller_wake, FUTEX_WAIT, seen, timeout_nanoseconds >= 0 ? &timeout : NULL);
    if (atomic_load_explicit(&shared->caller_sleeps, memory_order_relaxed)) atomic_store(&shared->caller_sleeps, 0);
    return 0;
}

void fh_channel_wake_caller(fh_channel *channel) { wake(&channel->shared->caller_wake); }

int fh_channel_listener_sleeps(fh_channel *channel) {
    atomic_store(&channel->shared->listener_sleeps, 1);
    return fh_channel_callbacks_readable(channel) != 0;
}

void fh_channel_close(fh_channel *channel) {
    atomic_store(&channel->shared->closed, 1);
    // Whether or not it sleeps now: it sees `closed` before it sleeps again.
    wake(&channel->shared->to_worker.reader_wake);
    wake(&channel->shared->to_host.writer_wake);
    wake(&channel->shared->callbacks.writer_wake);
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
        if (!slept_at) slept_at = now_ns();
        uint32_t seen = atomic_load(&ring->reader_wake);
        atomic_store(&ring->reader_sleeps, 1);
        if (fh_channel_readable(channel) != 0 || closed(channel)) {
            atomic_store(&ring->reader_sleeps, 0);
            continue;
        }
        // Returns at once when woken since `seen` was read.
        futex(&ring->reader_wake, FUTEX_WAIT, seen);
        atomic_store(&ring->reader_sleeps, 0);
    }
    if (slept_at && spin_nanoseconds > 0) {
        // Woken soon after it slept: a longer spin would have caught the request. Long asleep:
        // spinning would have been wasted.
        long waited = (long)(now_ns() - slept_at) + budget;
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
        wake_caller(channel);
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
        futex(&ring->writer_wake, FUTEX_WAIT, seen);
        atomic_store(&ring->writer_sleeps, 0);
    }
}

void fh_channel_worker_begins(fh_channel *channel, uint64_t count) {
    atomic_store_explicit(&channel->shared->begun, count, memory_order_relaxed);
}

uint64_t fh_channel_begun(const fh_channel *channel) {
    return atomic_load_explicit(&channel->shared->begun, memory_order_relaxed);
}

int fh_channel_intact(const fh_channel *channel) {
    const fh_channel_shared *shared = channel->shared;
    if (shared->magic != FH_CHANNEL_MAGIC || shared->capacity != channel->capacity) return 0;
    if (channel->host && atomic_load(&shared->closed) != 0) return 0;
    if (fh_channel_readable(channel) < 0 || fh_channel_writable(channel) < 0) return 0;
    return !channel->host || fh_channel_callbacks_readable(channel) >= 0;
}
