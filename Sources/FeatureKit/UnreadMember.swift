import FeatureJSON

/// The strict-input rule of feature_abi.h for Swift features: a member of an action or a state
/// that decoding dropped is refused, not ignored.
///
/// Decoding into Codable types ignores members it does not know. So the decoded value is encoded
/// again and the two are compared: a member of the input missing from the encoding was dropped.
/// A `null` member may be missing (an absent optional encodes as nothing).
enum UnreadMember {
  /// The path of the first member of `input` that `encoded` lacks (`left`, `rows[2].name`), or nil.
  /// `encoded` may come from `JSONValue.parseMembers`: an array of scalars there is empty, and
  /// nothing is looked for in it, as nothing is in a scalar.
  static func find(in input: JSONValue, comparedTo encoded: JSONValue, at path: String = "") -> String? {
    switch (input, encoded) {
    case (.object(let given), .object(let kept)):
      for key in given.keys.sorted() {
        let inner = path.isEmpty ? key : "\(path).\(key)"
        guard let keptValue = kept[key] else {
          if given[key] == .null { continue }
          return inner
        }
        if let deeper = find(in: given[key] ?? .null, comparedTo: keptValue, at: inner) { return deeper }
      }
      return nil
    case (.array(let given), .array(let kept)) where given.count == kept.count:
      for (index, (one, two)) in zip(given, kept).enumerated() {
        if let deeper = find(in: one, comparedTo: two, at: "\(path)[\(index)]") { return deeper }
      }
      return nil
    default:
      return nil
    }
  }
}
