import FeatureJSON

/// An action type that builds itself straight from a flat action object, with the meaning its
/// synthesized Codable gives the members. FeatureKit's `ActionDecoding` build plugin writes the
/// conformance for a feature's `Action` enum; a feature's author writes nothing.
///
/// Answering nil is always safe: the action then goes through Codable, which also says what is
/// wrong with it.
public protocol FlatActionDecodable {
  static func decodeFlat(tag: String, payload: ActionPayload) -> Self?
}

/// The members of a flat action besides `type`, read as synthesized Codable reads an enum
/// case's payload: an integer accepts `3` and `3.0`, an optional accepts a missing member or
/// `null`. Each read answers nil where Codable would throw.
public struct ActionPayload {
  @usableFromInline
  enum Source {
    /// Scanned in place: the common case.
    case scan(FlatActionScan)
    /// Parsed in full: any other valid object.
    case object(FlatObject)
  }

  @usableFromInline let source: Source

  @usableFromInline
  init(_ source: Source) { self.source = source }

  @usableFromInline
  func member(_ key: StaticString) -> JSONValue? {
    switch source {
    case .scan(let scan): return scan.value(key)
    case .object(let object): return object[key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }]
    }
  }

  /// The members, `type` included.
  public var memberCount: Int {
    switch source {
    case .scan(let scan): return scan.count
    case .object(let object): return object.members.count
    }
  }

  /// Whether every member but `type` is one of `keys` (feature_abi.h: an action with a member its
  /// type does not have is refused, never dropped). False sends the action the general way, which
  /// names the member.
  public func hasOnly(_ keys: StaticString...) -> Bool {
    var known = 1
    for key in keys where member(key) != nil { known += 1 }
    return known == memberCount
  }

  public func value(_ key: StaticString, as type: Int.Type) -> Int? {
    if case .scan(let scan) = source { return scan.integer(key).flatMap { Int(exactly: $0) } }
    guard case .number(let number)? = member(key) else { return nil }
    switch number {
    case .int(let value): return Int(exactly: value)
    case .double(let value): return Int(exactly: value)
    }
  }

  public func value(_ key: StaticString, as type: String.Type) -> String? {
    if case .scan(let scan) = source { return scan.string(key) }
    guard case .string(let value)? = member(key) else { return nil }
    return value
  }

  public func value(_ key: StaticString, as type: Bool.Type) -> Bool? {
    if case .scan(let scan) = source { return scan.bool(key) }
    guard case .bool(let value)? = member(key) else { return nil }
    return value
  }

  public func value(_ key: StaticString, as type: Double.Type) -> Double? {
    guard case .number(let number)? = member(key) else { return nil }
    return number.doubleValue
  }

  /// Any other Decodable payload, through Codable.
  public func value<T: Decodable>(_ key: StaticString, as type: T.Type) -> T? {
    guard let member = member(key) else { return nil }
    return try? JSONValueDecoder().decode(type, from: member)
  }

  /// An optional payload: `.some(nil)` when missing or null, nil when present and not a `T`.
  public func optional<T: Decodable>(_ key: StaticString, as type: T.Type) -> T?? {
    guard let member = member(key) else { return .some(nil) }
    if case .null = member { return .some(nil) }
    return (try? JSONValueDecoder().decode(type, from: member)).map { .some($0) }
  }
}
