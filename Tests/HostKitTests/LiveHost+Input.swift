import FeatureTesting

extension LiveHost {
  /// Writes `input` to the host's stdin, then reads stdout until it holds `marker`, as
  /// `read(through:)` does; returns what came before the marker.
  @discardableResult
  func send(_ input: String, thenReadThrough marker: String) throws -> String {
    send(input)
    return try read(through: marker)
  }
}
