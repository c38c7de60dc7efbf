import CWorkerRing
import FeatureABI

#if canImport(Glibc)
  import Glibc
#endif

// How a worker was lost: recorded once, blamed on the request it had begun, reaped.
extension WorkerConnection {
  /// Records how the worker was lost (the first account stands) and returns it.
  func lose(_ how: InstanceLoss) -> InstanceLoss {
    book.withLock { book in
      if book.loss == nil {
        book.loss = how
        lossRecorded.store(true, ordering: .releasing)
      }
      return book.loss ?? how
    }
  }

  /// Kills a worker that wrote what it cannot have meant into the replies ring: `what` it did.
  func broken(_ what: String) -> InstanceLoss {
    child.signalGroup(SIGKILL)
    _ = child.finish(until: nil)
    return .brokeChannel(what)
  }

  /// The error for a loss during an exchange of `replies` requests of which `answered` were
  /// answered, with `blamed` set to the request the worker had begun, if any: the requests
  /// after it never ran.
  func lost(
    _ call: String, _ how: InstanceLoss, replies: Int, answered: Int, blamed: inout Int?
  ) -> PluginCallError {
    let error = self.error(call, lose(how))
    // The worker counts the requests it began; a count past this exchange's is not believed.
    let base = answeredTotal - UInt64(answered)
    let begun = fh_channel_begun(channel)
    guard begun > answeredTotal, answered < replies else {
      blamed = nil
      return error.attributed(.notThisCall)
    }
    blamed = begun - base > UInt64(replies) ? replies - 1 : Int(begun - base) - 1
    return error
  }

  /// `loss`, once the worker is reaped, after making the answers it wrote and held back readable
  /// (`fh_channel_write_held`): a call it answered is neither blamed nor sent again.
  func takingAnswers(_ loss: InstanceLoss) -> InstanceLoss {
    if case .brokeChannel = loss { return loss }
    _ = fh_channel_take_committed(channel)
    return loss
  }

  /// Waits for a worker whose socket closed, killing it if it lingers; how it ended (the same
  /// once known: a call and then the listener may both ask). A worker that wrote over the
  /// channel's header or positions broke it, whatever it died of.
  func reap() -> InstanceLoss {
    if let reaped { return reaped }
    let loss = reapOnce()
    reaped = loss
    return loss
  }

  private func reapOnce() -> InstanceLoss {
    let termination = child.finish(until: ContinuousClock.now + .seconds(2)).termination
    // The listener found the callbacks ring broken and killed it.
    if let what = book.withLock({ $0.brokenBy }) { return .brokeChannel(what) }
    guard fh_channel_intact(channel) != 0 else { return .brokeChannel("wrote over the memory it shares with the host") }
    switch termination {
    case .exited(let status): return .exited(status)
    // The sandbox's handlers write their note before the signal ends the worker.
    case .signalled(let signal):
      return (sandbox.notes >= 0 ? SandboxNotes.loss(readingFrom: sandbox.notes) : nil) ?? .signalled(signal)
    case .timedOut: return .signalled(SIGKILL)
    }
  }

  func error(_ call: String, _ loss: InstanceLoss) -> PluginCallError {
    PluginCallError(call: call, status: fh_status(FH_ERR_INTERNAL), message: "feature '\(feature)' \(loss)", loss: loss)
  }
}
