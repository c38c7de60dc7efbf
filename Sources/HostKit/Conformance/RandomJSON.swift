import FeatureJSON

/// Random JSON texts that are never a valid action: a value that is not an object, or an object
/// without a string type, or with a type outside the catalogue. Seeded (SplitMix64), so a failure
/// the validator reports comes back the same on the next run.
public struct RandomJSON {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  /// One random text that is not a valid action; `reserved` holds the types it must not use.
  public mutating func action(avoiding reserved: Set<String>) -> String {
    guard below(10) >= 3 else { return scalarOrArray(depth: 0).serialized() }
    var members: [String: JSONValue] = [:]
    for _ in 0..<below(5) {
      let key = string(maxLength: 8)
      if key != "type" { members[key] = value(depth: 1) }
    }
    switch below(3) {
    case 0: break
    case 1:
      let value = scalarOrArray(depth: 2)
      members["type"] = value.stringValue == nil ? value : 7
    default:
      let type = string(maxLength: 12)
      members["type"] = .string(reserved.contains(type) ? "zz-" + type : type)
    }
    return JSONValue.object(members).serialized()
  }

  /// Any JSON value, nested at most three deep.
  mutating func value(depth: Int) -> JSONValue {
    guard depth < 3, below(4) == 0 else { return scalarOrArray(depth: depth) }
    var members: [String: JSONValue] = [:]
    for _ in 0..<below(4) { members[string(maxLength: 6)] = value(depth: depth + 1) }
    return .object(members)
  }

  private mutating func scalarOrArray(depth: Int) -> JSONValue {
    switch below(7) {
    case 0: return .null
    case 1: return .bool(below(2) == 0)
    case 2: return .number(.int(Int64(bitPattern: next()) >> Int64(below(60))))
    case 3: return .number(.double(Double(Int64(bitPattern: next()) >> 20) / Double(1 << below(40))))
    case 4, 5: return .string(string(maxLength: 16))
    default:
      guard depth < 3 else { return .null }
      return .array((0..<below(4)).map { _ in value(depth: depth + 1) })
    }
  }

  /// Letters, digits, punctuation that needs escaping, control characters and non-ASCII text.
  private static let alphabet: [Character] = Array("abcxyzAZ09 _-.:\"\\/\n\t\u{1}\u{7F}éß猫🐈\u{2028}{}[],")

  private mutating func string(maxLength: Int) -> String {
    String((0..<below(maxLength + 1)).map { _ in Self.alphabet[below(Self.alphabet.count)] })
  }

  private mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

  private mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
