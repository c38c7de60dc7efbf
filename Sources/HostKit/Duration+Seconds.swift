extension Duration {
  /// The duration in seconds, as a `Date` deadline needs it.
  public var seconds: Double {
    Double(components.seconds) + Double(components.attoseconds) / 1e18
  }
}
