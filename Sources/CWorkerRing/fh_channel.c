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

// One direction. Positions count bytes written and read, wrapping at 2^32. Only the worker
// sleeps on a futex (the host sleeps in poll): on a `wake` word, read before it says it sleeps
// and bumped by whoever wakes it, so a wake between its last look and its sleep is not lost.
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
    // The host sleeps in poll and wants the doorbell rung: a caller waiting for its answer or
    // for room (on any progress), the listener between calls (on a callback made outside a
    // call). Both stay untouched while calls are answered at once.
    _Alignas(64) _Atomic uint32_t caller_sleeps;
    _Atomic uint32_t listener_sleeps;
    _Alignas(64) _Atomic uint64_t begun;
    struct fh_ring to_worker;
    struct fh_ring to_host;
};

#define FH_HEADER_SIZE 4096

static unsigned char *ring_data(const fh_channel *channel, int to_worker) {
    unsigned char *base = (unsigned char *)channel->shared + FH_HEADER_SIZE;
    return to_worker ? base : base + channel->capacity;
}

static struct fh_ring *out_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_worker : &channel->shared->to_host;
}

static struct fh_ring *in_ring(const fh_channel *channel) {
    return channel->host ? &channel->shared->to_host : &channel->shared->to_worker;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t value) {
    // Shared between processes: not FUTEX_PRIVATE_FLAG.
    return syscall(SYS_futex, (uint32_t *)word, op, value, NULL, NULL, 0);
}

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
    size_t size = FH_HEADER_SIZE + 2 * (size_t)capacity;
    int sized = ftruncate(descriptor, (off_t)size);
    // A limit on file sizes (ulimit -f, meant for journals) counts the memfd too: smaller rings
    // then, down to 1 KiB each (frames stream through any size).
    while (sized != 0 && errno == EFBIG && capacity > 1024) {
        capacity /= 2;
        size = FH_HEADER_SIZE + 2 * (size_t)capacity;
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
    size_t size = FH_HEADER_SIZE + 2 * (size_t)capacity;
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
    channel->in_head = atomic_load(&channel->shared->to_worker.head);
    return 0;
}

void fh_channel_unmap(fh_channel *channel) {
    if (channel->shared) munmap(channel->shared, channel->mapped);
    channel->shared = NULL;
}

// The worker has made progress the host may be sleeping on: ring once.
static void ring_doorbell(fh_channel *channel, int listener) {
    if (channel->host || channel->doorbell < 0) return;
    fh_channel_shared *shared = channel->shared;
    int ring = atomic_load(&shared->caller_sleeps) && atomic_exchange(&shared->caller_sleeps, 0);
    if (listener && atomic_load(&shared->listener_sleeps) && atomic_exchange(&shared->listener_sleeps, 0)) ring = 1;
    if (!ring) return;
    char byte = 1;
    // A full socket already holds a ring the host has not read.
    (void)send(channel->doorbell, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

long fh_channel_writable(const fh_channel *channel) {
    uint32_t head = atomic_load_explicit(&out_ring(channel)->head, memory_order_acquire);
    uint32_t used = channel->out_tail - head;
    if (used > channel->capacity) return -1;
    return (long)(channel->capacity - used);
}

// Room by the peer's position last read: its line is read again only when that is not enough.
static long room_for(fh_channel *channel, size_t count) {
    uint32_t used = channel->out_tail - channel->out_head_seen;
    if (used <= channel->capacity && channel->capacity - used >= count) return (long)(channel->capacity - used);
    uint32_t head = atomic_load_explicit(&out_ring(channel)->head, memory_order_acquire);
    used = channel->out_tail - head;
    if (used > channel->capacity) return -1;
    channel->out_head_seen = head;
    return (long)(channel->capacity - used);
}

long fh_channel_readable(const fh_channel *channel) {
    uint32_t tail = atomic_load_explicit(&in_ring(channel)->tail, memory_order_acquire);
    uint32_t used = tail - channel->in_head;
    if (used > channel->capacity) return -1;
    return (long)used;
}

long fh_channel_write(fh_channel *channel, const void *bytes, size_t count, int listener) {
    long room = room_for(channel, count);
    if (room < 0) return -1;
    size_t n = count < (size_t)room ? count : (size_t)room;
    if (n == 0) return 0;
    uint32_t mask = channel->capacity - 1;
    uint32_t at = channel->out_tail & mask;
    unsigned char *data = ring_data(channel, channel->host);
    size_t first = channel->capacity - at < n ? channel->capacity - at : n;
    memcpy(data + at, bytes, first);
    if (n > first) memcpy(data, (const unsigned char *)bytes + first, n - first);
    channel->out_tail += (uint32_t)n;
    struct fh_ring *ring = out_ring(channel);
    // Sequentially consistent with the sleeper's flag: either it sees the new tail or this sees
    // its flag.
    atomic_store(&ring->tail, channel->out_tail);
    if (channel->host) {
        if (atomic_load(&ring->reader_sleeps) && atomic_exchange(&ring->reader_sleeps, 0)) {
            wake(&ring->reader_wake);
            channel->woke_peer = 1;
        }
    } else {
        ring_doorbell(channel, listener);
    }
    return (long)n;
}

long fh_channel_read(fh_channel *channel, void *buffer, size_t count) {
    long waiting = fh_channel_readable(channel);
    if (waiting < 0) return -1;
    size_t n = count < (size_t)waiting ? count : (size_t)waiting;
    if (n == 0) return 0;
    uint32_t mask = channel->capacity - 1;
    uint32_t at = channel->in_head & mask;
    const unsigned char *data = ring_data(channel, !channel->host);
    size_t first = channel->capacity - at < n ? channel->capacity - at : n;
    memcpy(buffer, data + at, first);
    if (n > first) memcpy((unsigned char *)buffer + first, data, n - first);
    channel->in_head += (uint32_t)n;
    struct fh_ring *ring = in_ring(channel);
    atomic_store(&ring->head, channel->in_head);
    if (channel->host) {
        if (atomic_load(&ring->writer_sleeps) && atomic_exchange(&ring->writer_sleeps, 0)) wake(&ring->writer_wake);
    } else {
        ring_doorbell(channel, 0);
    }
    return (long)n;
}

static int ready(const fh_channel *channel, long room) {
    long readable = fh_channel_readable(channel);
    if (readable != 0) return 1;  // bytes, or an impossible position the caller must see
    if (room <= 0) return 0;
    long writable = fh_channel_writable(channel);
    if (writable < 0) return 1;
    return writable >= (room < (long)channel->capacity ? room : (long)channel->capacity);
}

int fh_channel_spin(const fh_channel *channel, long room, long nanoseconds) {
    if (ready(channel, room)) return 1;
    if (nanoseconds <= 0) return 0;
    long long deadline = now_ns() + nanoseconds;
    for (unsigned spins = 1;; spins++) {
        relax();
        if (ready(channel, room)) return 1;
        // The clock is read every 64 turns (a turn is a few tens of nanoseconds). Past the first
        // 64 the peer is likely waiting for a CPU this side holds (two cores, a busy machine):
        // each turn then yields it.
        if (spins >= 64) sched_yield();
        if ((spins & 63) == 0 && now_ns() >= deadline) return 0;
    }
}

int fh_channel_caller_sleeps(fh_channel *channel, long room) {
    atomic_store(&channel->shared->caller_sleeps, 1);
    if (ready(channel, room)) {
        atomic_store(&channel->shared->caller_sleeps, 0);
        return 1;
    }
    return 0;
}

void fh_channel_caller_wakes(fh_channel *channel) {
    if (atomic_load_explicit(&channel->shared->caller_sleeps, memory_order_relaxed))
        atomic_store(&channel->shared->caller_sleeps, 0);
}

int fh_channel_listener_sleeps(fh_channel *channel) {
    atomic_store(&channel->shared->listener_sleeps, 1);
    return fh_channel_readable(channel) != 0;
}

void fh_channel_close(fh_channel *channel) {
    atomic_store(&channel->shared->closed, 1);
    // Whether or not it sleeps now: it sees `closed` before it sleeps again.
    wake(&channel->shared->to_worker.reader_wake);
    wake(&channel->shared->to_host.writer_wake);
}

static int closed(const fh_channel *channel) { return atomic_load(&channel->shared->closed) != 0; }

int fh_channel_worker_wait_readable(fh_channel *channel, long spin_nanoseconds) {
    struct fh_ring *ring = in_ring(channel);
    for (;;) {
        if (closed(channel)) return 1;
        if (fh_channel_spin(channel, 0, spin_nanoseconds)) return 0;
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
}

int fh_channel_worker_wait_writable(fh_channel *channel, long room, long spin_nanoseconds) {
    struct fh_ring *ring = out_ring(channel);
    long wanted = room < (long)channel->capacity ? room : (long)channel->capacity;
    for (;;) {
        if (closed(channel)) return 1;
        long writable = fh_channel_writable(channel);
        if (writable >= wanted) return 0;
        if (fh_channel_spin(channel, wanted, spin_nanoseconds) && fh_channel_writable(channel) >= wanted) return 0;
        uint32_t seen = atomic_load(&ring->writer_wake);
        atomic_store(&ring->writer_sleeps, 1);
        if (fh_channel_writable(channel) >= wanted || closed(channel)) {
            atomic_store(&ring->writer_sleeps, 0);
            continue;
        }
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
    return fh_channel_readable(channel) >= 0 && fh_channel_writable(channel) >= 0;
}
