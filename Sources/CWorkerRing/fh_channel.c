#define _GNU_SOURCE
#include "fh_channel_internal.h"

#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

long ch_futex_timed(_Atomic uint32_t *word, int op, uint32_t value, const struct timespec *timeout) {
    // Shared between processes: not FUTEX_PRIVATE_FLAG.
    return syscall(SYS_futex, (uint32_t *)word, op, value, timeout, NULL, 0);
}

long ch_futex(_Atomic uint32_t *word, int op, uint32_t value) { return ch_futex_timed(word, op, value, NULL); }

void ch_wake(_Atomic uint32_t *word) {
    atomic_fetch_add(word, 1);
    ch_futex(word, FUTEX_WAKE, 1);
}

long long ch_now_ns(void) {
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

// The worker wrote callbacks the host's listener may be sleeping on: ring once.
void ch_ring_doorbell(fh_channel *channel) {
    fh_channel_shared *shared = channel->shared;
    if (channel->doorbell < 0 || !atomic_load(&shared->listener_sleeps)) return;
    if (!atomic_exchange(&shared->listener_sleeps, 0)) return;
    char byte = 1;
    // A full socket already holds a ring the host has not read.
    (void)send(channel->doorbell, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

long fh_channel_writable(const fh_channel *channel) {
    return writable_in(channel, out_ring(channel), channel->out_tail);
}

long fh_channel_readable(const fh_channel *channel) { return readable_in(channel, in_ring(channel), channel->in_head); }

long fh_channel_callbacks_readable(const fh_channel *channel) {
    return readable_in(channel, &channel->shared->callbacks, channel->callbacks_head);
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

long fh_channel_write(fh_channel *channel, const void *bytes, size_t count, int listener) {
    struct lane_out lane = out_lane(channel, listener);
    long n = copy_in(channel, lane, bytes, count);
    if (n > 0) ch_publish(channel, lane, listener);
    return n;
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
    ch_moved_head(channel, ring, *head);
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
