/// A terminal reader whose read another thread can cancel (Ctrl-C) or end, by waking the poll
/// the read waits in beside the terminal (a byte down a pipe).
protocol WakeableReader: AnyObject, Sendable {
  /// The pipe the read polls beside the terminal.
  var wakePipe: WakePipe { get }
  /// Marks the line being read cancelled; whether one was being read. Any thread.
  func cancelReading() -> Bool
  /// Marks every read from now on ended. Any thread.
  func markEnded()
}

extension WakeableReader {
  /// Ctrl-C: cancels the line being read (true), or does nothing when none is (false). Any thread.
  func interrupt() -> Bool {
    let reading = cancelReading()
    if reading { wake() }
    return reading
  }

  /// Ends the line being read and every later read with `.end`. Any thread.
  func end() {
    markEnded()
    wake()
  }

  /// Wakes the read's poll.
  func wake() { wakePipe.signal() }
}
