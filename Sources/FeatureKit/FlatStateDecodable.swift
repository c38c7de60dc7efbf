import FeatureJSON

/// A state that builds itself straight from a flat JSON object, with the meaning its synthesized
/// Codable gives the members. FeatureKit's `ActionDecoding` build plugin writes the conformance
/// for a state of plain members (as it writes its `JSONObjectWritable`); restore then reads a
/// state with no tree and no decoder.
///
/// Answering nil is always safe: the state then goes through Codable, which also says what is
/// wrong with it.
public protocol FlatStateDecodable {
  init?(flatState members: StateMembers)
}

/// The members of a flat state object, read as synthesized Codable reads a struct's: every
/// member present, an optional missing or `null` read as nil. Each read answers nil where Codable
/// would throw, or where it might read more than the scan does (`3.0` for an `Int`).
public struct StateMembers {
  @usableFromInline let scan: FlatActionScan

  @usableFromInline
  init(_ scan: FlatActionScan) { self.scan = scan }

  /// Whether every member is one of `keys` (feature_abi.h: a state with a member its type does
  /// not have is refused). False sends the state the general way, which names the member.
  public func hasOnly(_ keys: StaticString...) -> Bool {
    var known = 0
    for key in keys where scan.contains(key) { known += 1 }
    return known == scan.count
  }

  public func value(_ key: StaticString, as type: Int.Type) -> Int? { scan.integer(key).flatMap { Int(exactly: $0) } }
  public func value(_ key: StaticString, as type: String.Type) -> String? { scan.string(key) }
  public func value(_ key: StaticString, as type: Bool.Type) -> Bool? { scan.bool(key) }

  // A present value of another type is nil (refused), never `.some(nil)`.
  public func optional(_ key: StaticString, as type: Int.Type) -> Int?? {
    absent(key) ? .some(nil) : value(key, as: type).map { .some($0) }
  }
  public func optional(_ key: StaticString, as type: String.Type) -> String?? {
    absent(key) ? .some(nil) : value(key, as: type).map { .some($0) }
  }
  public func optional(_ key: StaticString, as type: Bool.Type) -> Bool?? {
    absent(key) ? .some(nil) : value(key, as: type).map { .some($0) }
  }

  /// Missing or `null`: nil to an optional.
  private func absent(_ key: StaticString) -> Bool {
    guard let value = scan.value(key) else { return true }
    if case .null = value { return true }
    return false
  }
}

/// The generated reader of `State`, if it has one, as a function of a NUL-terminated document.
func generatedStateReader<State>(for type: State.Type) -> ((UnsafePointer<CChar>) -> State?)? {
  guard let decodable = type as? any FlatStateDecodable.Type else { return nil }
  func make<D: FlatStateDecodable>(_ decodable: D.Type) -> (UnsafePointer<CChar>) -> State? {
    precondition(D.self == State.self, "the conformance found is State's own")
    return { json in
      guard let scan = FlatActionScan(objectAt: json) else { return nil }
      // The same type, so the same layout: no dynamic cast on every restore.
      return unsafeBitCast(D(flatState: StateMembers(scan)), to: State?.self)
    }
  }
  return make(decodable)
}
