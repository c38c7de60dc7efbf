/// Coding key for array positions and synthetic keys such as `super`.
///
/// Index keys render as `[3]` in error paths, which is why they are a
/// distinct type rather than any `CodingKey` with an `intValue`.
struct JSONCodingKey: CodingKey {
  let stringValue: String
  let intValue: Int?
  let isIndex: Bool

  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = nil
    self.isIndex = false
  }

  init(intValue: Int) {
    self.init(index: intValue)
  }

  init(index: Int) {
    self.stringValue = String(index)
    self.intValue = index
    self.isIndex = true
  }

  /// The key `superEncoder()` / `superDecoder()` use, as Foundation does.
  static let superKey = JSONCodingKey(stringValue: "super")
}
