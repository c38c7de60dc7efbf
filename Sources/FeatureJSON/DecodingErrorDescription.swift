// One-line, human-readable descriptions of coding errors, for logs and for
// error strings sent back across the plugin ABI.

/// Turns a decoding (or encoding, parse, tagged-coding) error into one line:
/// the path, then the reason, e.g.
/// `items[3].url: expected a string for "url", found number 5`.
public func describeDecodingError(_ error: any Error) -> String {
  switch error {
  case let error as DecodingError:
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context),
      .dataCorrupted(let context):
      return line(context.codingPath, context.debugDescription)
    case .keyNotFound(let key, let context):
      return line(context.codingPath + [key], context.debugDescription)
    @unknown default:
      return String(describing: error)
    }
  case let error as EncodingError:
    switch error {
    case .invalidValue(_, let context):
      return line(context.codingPath, context.debugDescription)
    @unknown default:
      return String(describing: error)
    }
  default:
    return String(describing: error)
  }
}

private func line(_ codingPath: [any CodingKey], _ reason: String) -> String {
  codingPath.isEmpty ? reason : "\(pathDescription(codingPath)): \(reason)"
}

/// Short description of a found value for "expected X, found Y" messages.
func describeFound(_ value: JSONValue) -> String {
  switch value {
  case .null: return "null"
  case .bool(let flag): return "boolean \(flag)"
  case .number(.int(let number)): return "number \(number)"
  case .number(.double(let number)): return "number \(number)"
  case .string(let string):
    let shown = string.count > 40 ? String(string.prefix(40)) + "..." : string
    return "string \"\(shown)\""
  case .array(let elements): return "an array of \(elements.count) elements"
  case .object(let members): return "an object with \(members.count) members"
  }
}
