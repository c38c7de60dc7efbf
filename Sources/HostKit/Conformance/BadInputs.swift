import FeatureJSON

/// The inputs the `bad-actions` and `restore-refuses-bad-state` checks send: malformed JSON,
/// JSON that is not an action (or state), oversized and deeply nested texts, and random JSON.
/// None of them can be valid, whatever the feature: actions carry a type no catalogue has.
public enum BadInputs {
  /// The size of the oversized inputs: large enough to find fixed buffers and recursion.
  public static let oversizedBytes = 10 * 1024 * 1024

  /// A type no feature uses.
  public static let unknownType = "zz-not-an-action"

  /// The bad actions for a feature with `catalogue`; `randomCount` random ones at the end.
  public static func actions(catalogue: [ActionSpec], randomCount: Int = 48) -> [BadInput] {
    // Malformed variants of a real action, so a plugin cannot refuse them for their type alone.
    let type = catalogue.first?.type ?? unknownType
    var inputs: [BadInput] = [
      BadInput("empty", ""),
      BadInput("whitespace", " \n\t "),
      BadInput("bare-word", type),
      BadInput("truncated", #"{"type":"\#(type)""#),
      BadInput("unclosed-string", #"{"type":"\#(type)}"#),
      BadInput("trailing-comma", #"{"type":"\#(type)",}"#),
      BadInput("single-quotes", "{'type':'\(type)'}"),
      BadInput("unquoted-name", #"{type:"\#(type)"}"#),
      BadInput("trailing-text", #"{"type":"\#(type)"} x"#),
      BadInput("two-objects", #"{"type":"\#(type)"}{"type":"\#(type)"}"#),
      BadInput("invalid-utf8", Array(#"{"type":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
      BadInput("lone-surrogate", #"{"type":"\ud800"}"#),
      BadInput("raw-control-character", Array(#"{"type":"a"#.utf8) + [0x01] + Array(#"b"}"#.utf8)),
      BadInput("array", #"[{"type":"\#(type)"}]"#),
      BadInput("number", "42"),
      BadInput("string", #""\#(type)""#),
      BadInput("null", "null"),
      BadInput("no-type", "{}"),
      BadInput("type-not-a-string", #"{"type":42}"#),
      BadInput("type-null", #"{"type":null}"#),
      BadInput("unknown-type", #"{"type":"\#(unknownType)"}"#),
    ]
    for action in catalogue {
      inputs += argumentCases(for: action)
    }
    inputs += oversized(type: unknownType)
    var generator = RandomJSON(seed: 0x5EED_F00D)
    let reserved = Set(catalogue.map(\.type)).union(Manifest.lifecycleTypes)
    for index in 0..<randomCount {
      inputs.append(BadInput("random-\(index + 1)", generator.action(avoiding: reserved)))
    }
    return inputs
  }

  /// Actions with a catalogued type but arguments no feature can take: a required one missing,
  /// one of the wrong kind, a fraction or an overflowing integer for an integer.
  static func argumentCases(for action: ActionSpec) -> [BadInput] {
    var inputs: [BadInput] = []
    let typical = Dictionary(
      action.arguments.map { ($0.name, ActionSamples.values(for: $0)[0]) }, uniquingKeysWith: { first, _ in first })
    func with(_ name: String, _ value: JSONValue?) -> String {
      var object = typical
      object[name] = value
      object["type"] = .string(action.type)
      return JSONValue.object(object).serialized()
    }
    for argument in action.arguments {
      let prefix = "\(action.type).\(argument.name)"
      if argument.required { inputs.append(BadInput("\(prefix)-missing", with(argument.name, nil))) }
      inputs.append(BadInput("\(prefix)-wrong-kind", with(argument.name, ["nested": true])))
      if argument.kind == .integer {
        inputs.append(BadInput("\(prefix)-fraction", with(argument.name, 1.5)))
        // Written by hand: 10^30 does not fit any integer type a plugin would use.
        let overflow = with(argument.name, 7_777_777).replacingOccurrences(
          of: "7777777", with: String(repeating: "9", count: 30))
        inputs.append(BadInput("\(prefix)-overflow", overflow))
      }
    }
    return inputs
  }

  /// Ten-megabyte actions: a huge type, a huge member, deep nesting (a recursive parser without a
  /// depth limit overflows its stack), and a huge number.
  static func oversized(type: String) -> [BadInput] {
    let size = oversizedBytes
    let depth = size / 2
    return [
      BadInput(
        "oversized-type", Array(#"{"type":""#.utf8) + [UInt8](repeating: 0x61, count: size) + Array(#""}"#.utf8)),
      BadInput(
        "oversized-member",
        Array(#"{"padding":""#.utf8) + [UInt8](repeating: 0x61, count: size) + Array(#"","type":"\#(type)"}"#.utf8)),
      BadInput(
        "oversized-nesting",
        Array(#"{"nested":"#.utf8) + [UInt8](repeating: 0x5B, count: depth) + [UInt8](repeating: 0x5D, count: depth)
          + Array(#","type":"\#(type)"}"#.utf8)),
      BadInput(
        "oversized-number",
        Array(#"{"number":"#.utf8) + [UInt8](repeating: 0x39, count: size) + Array(#","type":"\#(type)"}"#.utf8)),
    ]
  }

  /// States no feature can hold, built around its own valid `snapshot`: truncated, with text after
  /// it, with every member's value replaced by a nested array, and malformed or oversized texts.
  public static func states(validSnapshot snapshot: [UInt8]) -> [BadInput] {
    var inputs: [BadInput] = [
      BadInput("empty", ""),
      BadInput("not-json", "this is not a state"),
      BadInput("array", "[]"),
      BadInput("number", "42"),
      BadInput("null", "null"),
      BadInput("string", #""state""#),
      BadInput("invalid-utf8", [0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D]),
    ]
    if snapshot.count > 1 {
      inputs.append(BadInput("truncated", Array(snapshot.dropLast())))
      inputs.append(BadInput("trailing-text", snapshot + Array(" x".utf8)))
    }
    if let text = String(validating: snapshot, as: UTF8.self),
      let members = (try? JSONValue.parse(text))?.objectValue, !members.isEmpty
    {
      let scrambled = members.mapValues { _ in JSONValue.array([.array([.array(["?"])])]) }
      inputs.append(BadInput("wrong-member-types", JSONValue.object(scrambled).serialized()))
    }
    let depth = oversizedBytes / 2
    inputs.append(
      BadInput("oversized-nesting", [UInt8](repeating: 0x5B, count: depth) + [UInt8](repeating: 0x5D, count: depth)))
    inputs.append(
      BadInput("oversized-string", [0x22] + [UInt8](repeating: 0x61, count: oversizedBytes) + [0x22]))
    return inputs
  }
}
