/// Conversions of primitives to `JSONValue`, shared by all containers.
enum PrimitiveBox {
  static func integer<T: BinaryInteger>(
    _ value: T, at codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> JSONValue {
    guard let exact = Int64(exactly: value) else {
      let path = codingPath()
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: path,
          debugDescription:
            "\(T.self) value \(value)\(locationPhrase(path)) does not fit in a 64-bit JSON integer"
        ))
    }
    return .number(.int(exact))
  }

  static func double(
    _ value: Double, at codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> JSONValue {
    guard value.isFinite else {
      let path = codingPath()
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(
          codingPath: path,
          debugDescription: "\(value)\(locationPhrase(path)) has no JSON representation"))
    }
    return .number(.double(value))
  }

  /// Goes through the shortest `Float` text so `0.1 as Float` encodes as
  /// `0.1`, not `0.10000000149011612`.
  static func float(
    _ value: Float, at codingPath: @autoclosure () -> [any CodingKey]
  ) throws -> JSONValue {
    let widened = value.isFinite ? Double(value.description) ?? Double(value) : Double(value)
    return try double(widened, at: codingPath())
  }
}
