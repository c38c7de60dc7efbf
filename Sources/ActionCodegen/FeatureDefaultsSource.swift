import Foundation

/// The members of a feature that FeatureKit can write for its author, and what the author wrote.
/// Read from the module's sources with their comments blanked out.
struct FeatureDefaultsSource {
  /// The module's code, comments blanked out.
  let code: String
  let feature: String

  /// Whether the feature is a struct (a class's initializers need more than a default can say).
  var isStruct: Bool { matches(#"\bstruct\s+\#(feature)\b"#) }

  /// Whether the module's manifest lists its actions by hand (`actions:` in a `Manifest(...)` call).
  var writesCatalogue: Bool {
    var rest = code[...]
    while let call = rest.range(of: #"\bManifest\s*\("#, options: .regularExpression) {
      let inside = arguments(from: call.upperBound)
      if inside.range(of: #"(^|[,(\s])actions\s*:"#, options: .regularExpression) != nil { return true }
      rest = code[call.upperBound...]
    }
    return false
  }

  /// The text of a call's arguments, from just after its `(` to its `)`.
  private func arguments(from start: String.Index) -> Substring {
    var depth = 1
    var index = start
    while index < code.endIndex {
      switch code[index] {
      case "(", "[": depth += 1
      case ")", "]":
        depth -= 1
        if depth == 0 { return code[start..<index] }
      default: break
      }
      index = code.index(after: index)
    }
    return code[start...]
  }

  /// The defaults, as lines of Swift: `init(config:)` from `init()` (a feature with no settings),
  /// `initialState()` from `State()`; and a build error when no reducer is written, as the two
  /// `reduce` requirements default to each other.
  var lines: [String] {
    var members: [String] = []
    if isStruct, !matches(#"\binit\s*\(\s*config\b"#) {
      members.append(
        "  public init(config: FeatureConfig) throws { self.init() }  // a feature without settings; write init(config:) to read some"
      )
    }
    if !matches(#"\bfunc\s+initialState\s*\("#) {
      members.append(
        "  public func initialState() -> State { State() }  // a fresh instance starts at State(); write initialState() to start elsewhere"
      )
    }
    var lines = members.isEmpty ? [] : ["extension \(feature) {"] + members + ["}"]
    if !matches(#"\bfunc\s+reduce\s*\(\s*into\b"#) {
      lines.append(
        #"#error("\#(feature) has no reducer: write 'func reduce(into state: inout State, action: Action) throws -> Effect<Action>' (or the one with 'changed: inout Bool')")"#
      )
    }
    return lines
  }

  private func matches(_ pattern: String) -> Bool { code.range(of: pattern, options: .regularExpression) != nil }
}
