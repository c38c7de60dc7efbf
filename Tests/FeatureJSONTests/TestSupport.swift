import FeatureJSON

/// Parses raw bytes (which may be invalid UTF-8) and returns the error, or
/// `nil` when the input was accepted.
func parseError(_ bytes: [UInt8]) -> JSONParseError? {
  do {
    _ = try bytes.withUnsafeBytes { buffer in try JSONValue.parse(bytes: buffer) }
    return nil
  } catch let error as JSONParseError {
    return error
  } catch {
    return JSONParseError(message: "unexpected error type: \(error)", offset: -1)
  }
}

/// Parses text that is known to be valid, failing the test otherwise.
func parsed(_ text: String) throws -> JSONValue {
  try JSONValue.parse(text)
}

/// Encodes then decodes `value`, going through text so the parser and the
/// serializer take part in every round trip.
func roundTrip<T: Codable>(_ value: T) throws -> T {
  let text = try JSONValueEncoder().encode(value).serialized()
  return try JSONValueDecoder().decode(T.self, from: JSONValue.parse(text))
}
