import CIPCFloor

// What a round trip between two processes costs at the least on this machine, to hold the
// worker's round trip against (issue 25: isolation at almost no cost).

/// How long each side of the futex floor spins before it sleeps: about 2,000 pauses on this
/// machine's processor. An answer from a peer that has a core of its own comes within it; a peer
/// that shares one core with the waiter gets it only once the waiter sleeps, so a longer spin
/// costs a loaded machine that much more a round trip.
let futexFloorSpin = 50_000.0

/// Nanoseconds per round trip through a futex in shared memory (Benchmarks/CIPCFloor).
func ipcFloorFutex(roundTrips: Int) -> Double {
  let nanoseconds = fh_ipc_floor_futex(roundTrips, futexFloorSpin)
  precondition(nanoseconds >= 0, "the futex floor's child could not be started")
  return nanoseconds
}

/// Nanoseconds per round trip of one byte each way over a socketpair.
func ipcFloorSocket(roundTrips: Int) -> Double {
  let nanoseconds = fh_ipc_floor_socket(roundTrips)
  precondition(nanoseconds >= 0, "the socket floor's child could not be started")
  return nanoseconds
}
