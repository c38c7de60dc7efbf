/// Where a line renderer writes: a terminal, a pipe, a test's recording.
public protocol LineSink: AnyObject, Sendable {
  /// Writes `text` and a line end in one piece (no other output cuts into it). Any thread.
  func writeLines(_ text: String)
  /// `text` styled as a heading where the output can (bold at a terminal), else as it is.
  func heading(_ text: String) -> String
}
