/// Encoder output that may still change: nested containers and super
/// encoders are handed out before their contents are written, so they are
/// kept as references and turned into `JSONValue` at the end.
enum EncodedNode {
  case value(JSONValue)
  case object(EncodedObject)
  case array(EncodedArray)
  case encoder(JSONEncoderImpl)

  var resolved: JSONValue {
    switch self {
    case .value(let value): return value
    case .object(let object): return .object(object.members.mapValues(\.resolved))
    case .array(let array): return .array(array.elements.map(\.resolved))
    case .encoder(let encoder): return encoder.resolvedValue ?? .object([:])
    }
  }
}
