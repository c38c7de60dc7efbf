/// One frame of a flow's navigation stack, as a test asserts it: one feature pushed, or several
/// presented side by side with one of them focused.
///
///     "counter"                                         pushed alone
///     .present("counter", "levels", focus: "levels")    side by side, input to levels
///
/// A stack is a list of frames, bottom first: `["home", "counter"]`.
public struct FlowFrame: Sendable, Equatable, ExpressibleByStringLiteral, CustomStringConvertible {
  /// The feature ids of the frame, in the order the flow presented them.
  public var features: [String]
  /// The index in `features` of the feature input goes to.
  public var focus: Int

  public init(features: [String], focus: Int = 0) {
    self.features = features
    self.focus = focus
  }

  public init(stringLiteral id: String) { self.init(features: [id]) }

  /// Several features side by side; `focus` names the one input goes to (the first by default).
  public static func present(_ ids: String..., focus: String? = nil) -> FlowFrame {
    FlowFrame(features: ids, focus: focus.flatMap { ids.firstIndex(of: $0) } ?? 0)
  }

  /// `counter`, or `[counter, *levels]` with the focused one starred.
  public var description: String {
    guard features.count > 1 else { return features.first ?? "[]" }
    let named = features.enumerated().map { index, id in index == focus ? "*\(id)" : id }
    return "[\(named.joined(separator: ", "))]"
  }
}

extension [FlowFrame] {
  /// The stack in one line, bottom first: `home > [counter, *levels]`.
  var line: String { isEmpty ? "(empty)" : map(\.description).joined(separator: " > ") }

  /// The stack as Swift source a test can paste: `["home", .present("a", "b", focus: "b")]`.
  var literal: String {
    "["
      + map { frame in
        guard frame.features.count > 1 else { return "\"\(frame.features.first ?? "")\"" }
        let ids = frame.features.map { "\"\($0)\"" }.joined(separator: ", ")
        return ".present(\(ids), focus: \"\(frame.features[frame.focus])\")"
      }.joined(separator: ", ") + "]"
  }
}
