#ifndef FH_CHANNEL_H
#define FH_CHANNEL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

// The channel between the host and one worker: three byte rings in a memfd both map: requests to
// the worker, replies to the host (with the callbacks the serving thread made during the call),
// and the callbacks the plugin's other threads make, read by the host's listener thread alone so
// that it can hold them back. A side spins briefly while it waits for its peer, then sleeps on a
// futex in the shared memory; the listener sleeps in poll on the socket, which the worker rings
// with one byte (a doorbell) only when the listener said it sleeps. The host trusts nothing the
// worker can write: it keeps its own positions and checks the worker's against them.

// What a worker is started with: the descriptors it finds its socket to the host, its note pipe
// and its channel on, the size of each of the channel's rings, and the version of the protocol the
// two speak (`WorkerLaunch`).
#define FH_WORKER_SOCKET_FD 3
#define FH_WORKER_NOTES_FD 4
#define FH_WORKER_CHANNEL_FD 5
#define FH_WORKER_RING_CAPACITY (256u << 10)
#define FH_WORKER_PROTOCOL 4

typedef struct fh_channel_shared fh_channel_shared;

typedef struct fh_channel {
    fh_channel_shared *shared;
    size_t mapped;
    uint32_t capacity;
    // 1: the host's end; 0: the worker's.
    int host;
    // The worker's end: the socket it rings the host's doorbell on.
    int doorbell;
    // This side's own positions: the tail of the ring it writes, the head of the one it reads.
    uint32_t out_tail;
    uint32_t in_head;
    // The peer's read position as last seen: room is known without reading its line each time.
    uint32_t out_head_seen;
    // The callbacks ring: the worker's tail and the host's head as last seen (the worker's other
    // threads), the host's head (its listener).
    uint32_t callbacks_tail;
    uint32_t callbacks_head_seen;
    uint32_t callbacks_head;
    // The host's end: set when a write woke the worker from its futex (it answers after a wake-up,
    // not at once: not worth spinning for), cleared by the caller.
    int woke_peer;
    // The worker's end: how long it spins for the next request now (0: not yet set). It follows
    // the waits seen: a spin that a request would not have ended burns a CPU the host may need.
    long spin_budget;
    // The worker's end: the replies ring's tail as last shown to the host.
    uint32_t out_published;
} fh_channel;

// Host: a memfd of three rings of `capacity` bytes each (a power of two), mapped. Returns its
// descriptor (close-on-exec), or -1 with errno set.
int fh_channel_create(uint32_t capacity, fh_channel *channel);
// Worker: maps the channel on `descriptor`; `doorbell` is the socket to the host. 0 or -1.
int fh_channel_attach(int descriptor, int doorbell, fh_channel *channel);
void fh_channel_unmap(fh_channel *channel);

// Copies up to `count` bytes into the outgoing ring; the count copied (0 when full), or -1
// when the peer's position is impossible (the worker scribbled over the ring). The worker's
// `listener`: the bytes are callbacks from a thread other than the serving one, written to the
// callbacks ring (which rings the listener); otherwise to the replies ring (which wakes a caller
// that sleeps). One thread at a time writes each ring.
long fh_channel_write(fh_channel *channel, const void *bytes, size_t count, int listener);
// The kind byte of a `done` frame (`WorkerFrame.Message.done`): an answer with status OK, no text.
#define FH_FRAME_DONE 29

// Host: writes one request frame whole (a kind, and for an action its text with a NUL, as
// `FrameWriter.frame(_:_:)` does) and shows it: 1; 0 when the ring has no room for it now or
// it is large (the caller writes it the general way); -1 as for write.
long fh_channel_write_request(fh_channel *channel, uint8_t kind, const void *text, size_t count);
// Host: takes the next reply when it is a whole `done` frame: its changed byte (0 or 1); -1,
// with nothing read, for anything else or nothing yet. The caller holds no bytes read before.
int fh_channel_take_done(fh_channel *channel);
// Worker: writes a `done` answer (`changed` 0 or 1) into the replies ring, shown or held as by
// `fh_channel_write` and `fh_channel_write_held`: 1; 0 when not written (no room now, or the
// shown position is not this side's), to be written the general way.
int fh_channel_write_done(fh_channel *channel, int changed, int shown);
// Worker: the request `offset` bytes past this side's read position, where it lies in the ring,
// when it is whole and in one piece: its address (its length word's) and its size, length word
// included, and in `more` whether another whole request follows it; 0 when not so (read it the
// general way). `fh_channel_consume` takes what was served.
long fh_channel_peek_request(const fh_channel *channel, uint32_t offset, const unsigned char **frame, int *more);
// Either end: takes `count` bytes of the incoming ring as read (after a peek).
void fh_channel_consume(fh_channel *channel, uint32_t count);

// Worker: copies up to `count` bytes into the replies ring without showing them to the host yet
// (a batch's answers, shown together by the next `fh_channel_write` of a reply, or before the
// worker waits for room); they count as written for blame (`fh_channel_take_committed`). The
// count copied, 0 when full, -1 as for write. The worker shows them before it waits for a request.
// Written and shown at once when the shown position is not the one the worker last showed (its
// plugin wrote over the shared memory).
long fh_channel_write_held(fh_channel *channel, const void *bytes, size_t count);
// Host, once the worker is gone: makes what it wrote into the replies ring and held back readable,
// when its position is believable; 1 when there was any.
int fh_channel_take_committed(fh_channel *channel);
// Copies up to `count` bytes out of the incoming ring (the host's: replies); the count copied
// (0 when empty), or -1 as for write.
long fh_channel_read(fh_channel *channel, void *buffer, size_t count);
// Host, the listener: the same from the callbacks ring.
long fh_channel_read_callbacks(fh_channel *channel, void *buffer, size_t count);
// Bytes waiting in the incoming ring (-1: impossible), and room in the outgoing one.
long fh_channel_readable(const fh_channel *channel);
long fh_channel_callbacks_readable(const fh_channel *channel);
long fh_channel_writable(const fh_channel *channel);

// Spins at most `nanoseconds` until bytes are waiting to be read or, when `room` > 0, the
// outgoing ring has that much room (or any, when less than its size); 1 when so, 0 when not.
int fh_channel_spin(const fh_channel *channel, long room, long nanoseconds);

// Host, the listener: spins at most `nanoseconds` until callbacks are waiting; 1 when so.
int fh_channel_callbacks_spin(const fh_channel *channel, long nanoseconds);

// Host, a caller: the wake count to sleep against, read before it last looks for work (a wake
// after it, from the worker or from `fh_channel_wake_caller`, is then not lost).
uint32_t fh_channel_caller_wake_count(const fh_channel *channel);
// Host, a caller: says it sleeps waiting for its answer (or room), so the worker wakes it on its
// next progress, checks once more, then sleeps at most `timeout_nanoseconds` (-1: no limit)
// unless woken since `seen`. 1 when there was already something to do; 0 after the sleep.
int fh_channel_caller_sleep(fh_channel *channel, long room, uint32_t seen, long timeout_nanoseconds);
// Host: wakes a caller sleeping in `fh_channel_caller_sleep` (the worker is gone).
void fh_channel_wake_caller(fh_channel *channel);
// Host, the listener: says it sleeps until callbacks come (the worker clears the flag as it
// rings), then checks once more; 1 when bytes are already waiting.
int fh_channel_listener_sleeps(fh_channel *channel);
// Host: asks the worker to leave and wakes it.
void fh_channel_close(fh_channel *channel);

// Worker: waits (spinning first, then on a futex) until a request is waiting or the host closed
// the channel; 1 when closed. It spins at most `spin_nanoseconds`: the whole of it while requests
// come within that time, less and less while they come later (a stream's pauses, a person).
int fh_channel_worker_wait_readable(fh_channel *channel, long spin_nanoseconds);
// Host: 1 while the worker sleeps on its futex for a request.
int fh_channel_worker_sleeps(const fh_channel *channel);
// Worker: waits until the outgoing ring (the callbacks ring for `listener`) has room for `room`
// bytes (or any, if larger than the ring); 1 when the host closed the channel.
int fh_channel_worker_wait_writable(fh_channel *channel, long room, long spin_nanoseconds, int listener);
// Worker: records that it begins its `count`-th request (for blame after a crash).
void fh_channel_worker_begins(fh_channel *channel, uint64_t count);
// Host: how many requests the worker said it began (untrusted: a crash's blame only).
uint64_t fh_channel_begun(const fh_channel *channel);
// Host: whether the header and the worker's positions are as the host left them (else the worker
// wrote over them). Asked after a worker is gone, before it is said how.
int fh_channel_intact(const fh_channel *channel);

#endif
