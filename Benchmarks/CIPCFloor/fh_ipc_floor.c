#define _GNU_SOURCE
#include "fh_ipc_floor.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

// The shared page: `turn` counts messages (odd: the parent's ping is out; even: the child's pong),
// `asleep[i]` says side i is in FUTEX_WAIT or about to be.
struct ring {
    _Atomic uint32_t turn;
    _Atomic uint32_t asleep[2];
};

static void futex_wait(_Atomic uint32_t *word, uint32_t value) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, value, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word) {
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Waits until `turn` is no longer `seen`, spinning for up to `spin_ns` first; returns the new
   value. The clock is read every 64 pauses: a pause takes from 10 to 150 cycles by processor. */
static uint32_t await_change(struct ring *ring, int side, uint32_t seen, double spin_ns) {
    double until = spin_ns > 0 ? now_ns() + spin_ns : 0;
    for (int i = 1; until > 0; i++) {
        uint32_t turn = atomic_load_explicit(&ring->turn, memory_order_acquire);
        if (turn != seen) return turn;
        cpu_relax();
        if (i % 64 == 0 && now_ns() > until) break;
    }
    for (;;) {
        // Said before the last look (both sequentially consistent), so a peer that moves `turn`
        // after that look sees the flag and wakes this side.
        atomic_store(&ring->asleep[side], 1);
        uint32_t turn = atomic_load(&ring->turn);
        if (turn != seen) {
            atomic_store(&ring->asleep[side], 0);
            return turn;
        }
        futex_wait(&ring->turn, seen);
        atomic_store(&ring->asleep[side], 0);
        turn = atomic_load(&ring->turn);
        if (turn != seen) return turn;
    }
}

static void pass_turn(struct ring *ring, int peer, uint32_t turn) {
    atomic_store(&ring->turn, turn);
    if (atomic_load(&ring->asleep[peer])) futex_wake(&ring->turn);
}

// The child answers until the parent sends the turn 0xFFFFFFFF.
static void futex_child(struct ring *ring, double spin_ns) {
    uint32_t seen = 0;
    for (;;) {
        uint32_t turn = await_change(ring, 1, seen, spin_ns);
        if (turn == UINT32_MAX) _exit(0);
        seen = turn + 1;
        pass_turn(ring, 0, seen);
    }
}

struct fh_ipc_floor_pair {
    struct ring *ring;
    pid_t child;
    uint32_t turn;
    double spin_ns;
};

fh_ipc_floor_pair *fh_ipc_floor_futex_start(double spin_ns) {
    struct ring *ring = mmap(NULL, sizeof *ring, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (ring == MAP_FAILED) return NULL;
    fh_ipc_floor_pair *pair = malloc(sizeof *pair);
    pid_t child = pair ? fork() : -1;
    if (child < 0) {
        free(pair);
        munmap(ring, sizeof *ring);
        return NULL;
    }
    if (child == 0) futex_child(ring, spin_ns);
    *pair = (fh_ipc_floor_pair){ring, child, 0, spin_ns};
    // One untimed round: the child has started and reached its loop.
    pass_turn(ring, 1, ++pair->turn);
    pair->turn = await_change(ring, 0, pair->turn, spin_ns);
    return pair;
}

double fh_ipc_floor_futex_run(fh_ipc_floor_pair *pair, long round_trips) {
    double start = now_ns();
    for (long i = 0; i < round_trips; i++) {
        pass_turn(pair->ring, 1, ++pair->turn);
        pair->turn = await_change(pair->ring, 0, pair->turn, pair->spin_ns);
    }
    return (now_ns() - start) / (double)round_trips;
}

void fh_ipc_floor_futex_stop(fh_ipc_floor_pair *pair) {
    pass_turn(pair->ring, 1, UINT32_MAX);
    // The child may be asleep on the old value: wake it whatever its flag says.
    futex_wake(&pair->ring->turn);
    int status;
    waitpid(pair->child, &status, 0);
    munmap(pair->ring, sizeof *pair->ring);
    free(pair);
}

double fh_ipc_floor_socket(long round_trips) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return -1;
    pid_t child = fork();
    if (child < 0) {
        close(pair[0]);
        close(pair[1]);
        return -1;
    }
    if (child == 0) {
        close(pair[0]);
        char byte;
        // Answers each byte with itself until the parent closes its end.
        while (read(pair[1], &byte, 1) == 1) {
            if (write(pair[1], &byte, 1) != 1) break;
        }
        _exit(0);
    }
    close(pair[1]);
    char byte = 'p';
    int failed = write(pair[0], &byte, 1) != 1 || read(pair[0], &byte, 1) != 1;
    double start = now_ns();
    for (long i = 0; i < round_trips && !failed; i++) {
        failed = write(pair[0], &byte, 1) != 1 || read(pair[0], &byte, 1) != 1;
    }
    double elapsed = now_ns() - start;
    close(pair[0]);
    int status;
    waitpid(child, &status, 0);
    return failed ? -1 : elapsed / (double)round_trips;
}
