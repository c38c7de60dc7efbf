/// Why a page could not be loaded: one line naming the offending value, shown in the view.
public struct KittenLoadError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The reason, always a single line.
  public let reason: String

  public init(_ reason: String) {
    // The view shows one line per reason; a server's multi-line text must not break it.
    self.reason = reason.split(whereSeparator: \.isNewline).joined(separator: " ")
  }

  public var description: String { reason }
}
