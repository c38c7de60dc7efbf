#define _GNU_SOURCE
#include "fh_channel_internal.h"

// A request and its answer where they lie in the ring: a call made one at a time, a batch's
// actions served in place (fh_channel.h says what each does).

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
    ch_publish(channel, lane, 0);
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
    ch_moved_head(channel, ring, channel->in_head);
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
        ch_publish(channel, lane, 0);
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
    uint32_t length =
        (uint32_t)start[0] | (uint32_t)start[1] << 8 | (uint32_t)start[2] << 16 | (uint32_t)start[3] << 24;
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
    ch_moved_head(channel, in_ring(channel), channel->in_head);
}
