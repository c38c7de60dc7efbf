import CIPCFloor
import WorkerKit

// What a round trip between two processes costs at the least on this machine, to hold the
// worker's round trip against (issue 25: isolation at almost no cost).

/// How long each side of the futex floor spins before it sleeps: about 2,000 pauses on this
/// machine's processor. An answer from a peer that has a core of its own comes within it; a peer
/// that shares one core with the waiter gets it only once the waiter sleeps, so a longer spin
/// costs a loaded machine that much more a round trip.
let futexFloorSpin = 50_000.0

/// Nanoseconds per round trip of one byte each way over a socketpair.
func ipcFloorSocket(roundTrips: Int) -> Double {
  let nanoseconds = fh_ipc_floor_socket(roundTrips)
  precondition(nanoseconds >= 0, "the socket floor's child could not be started")
  return nanoseconds
}

/// The futex floor, the channel's C alone (`fh_ipc_channel_run`) and the worker's round trip in
/// short blocks, taking turns, with one floor pair and one worker kept throughout, both warm: a freshly forked
/// pair's first 2,000 round trips took 400-12,000 ns each on this machine (the child most likely
/// on its parent's core until the scheduler moves it), the next 60-90 ns, so a whole 20,000-trip
/// run of a fresh pair read 170-780 ns. Nanoseconds per round trip, a pair per block
/// (BENCHMARK_BLOCKS=1 prints them).
func ipcFloorBlocks(_ blocks: Int, roundTrips: Int) throws -> [(floor: Double, channel: Double, worker: Double)] {
  guard let pair = fh_ipc_floor_futex_start(futexFloorSpin) else {
    preconditionFailure("the futex floor's child could not be started")
  }
  defer { fh_ipc_floor_futex_stop(pair) }
  guard let channel = fh_ipc_channel_start() else { preconditionFailure("the channel's child could not be started") }
  defer { fh_ipc_channel_stop(channel) }
  let instance = try workerFactory.makeInstance(of: loadPlugin("Counter"), config: "{}", target: SilentTarget())
  try instance.start()
  defer { instance.destroy() }
  // feature_abi.h: the lifecycle action comes first.
  _ = try instance.dispatch(#"{"type":"created"}"#)
  let increment = #"{"type":"increment"}"#
  func worker() throws -> Double {
    try seconds { for _ in 0..<roundTrips { _ = try instance.dispatch(increment) } } * 1e9 / Double(roundTrips)
  }
  func channelRun() -> Double {
    let nanoseconds = fh_ipc_channel_run(channel, roundTrips)
    precondition(nanoseconds >= 0, "the channel's child did not answer as expected")
    return nanoseconds
  }
  // The three take turns, each first in every third block.
  return try (0..<blocks).map { block in
    var times = [0.0, 0.0, 0.0]
    for turn in 0..<3 {
      let which = (block + turn) % 3
      times[which] = which == 0 ? fh_ipc_floor_futex_run(pair, roundTrips) : which == 1 ? channelRun() : try worker()
    }
    return (times[0], times[1], times[2])
  }
}
