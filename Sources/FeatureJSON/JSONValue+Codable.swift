// `JSONValue` is itself Codable so a Swift type can carry an arbitrary JSON
// payload. With this module's encoder/decoder it is passed through as is;
// with any other coder it maps onto the standard containers.

extension JSONValue: Encodable {
  public func encode(to encoder: any Encoder) throws {
    if let encoder = encoder as? JSONEncoderImpl {
      encoder.setSingleValue(self)
      return
    }
    if let encoder = encoder as? ByteEncoder {
      encoder.write(self)
      return
    }
    switch self {
    case .null:
      var container = encoder.singleValueContainer()
      try container.encodeNil()
    case .bool(let flag):
      var container = encoder.singleValueContainer()
      try container.encode(flag)
    case .number(.int(let number)):
      var container = encoder.singleValueContainer()
      try container.encode(number)
    case .number(.double(let number)):
      var container = encoder.singleValueContainer()
      try container.encode(number)
    case .string(let string):
      var container = encoder.singleValueContainer()
      try container.encode(string)
    case .array(let elements):
      var container = encoder.unkeyedContainer()
      for element in elements {
        try container.encode(element)
      }
    case .object(let members):
      var container = encoder.container(keyedBy: JSONCodingKey.self)
      for (key, member) in members {
        try container.encode(member, forKey: JSONCodingKey(stringValue: key))
      }
    }
  }
}

extension JSONValue: Decodable {
  public init(from decoder: any Decoder) throws {
    if let decoder = decoder as? JSONDecoderImpl {
      self = decoder.value
      return
    }
    if let container = try? decoder.singleValueContainer() {
      if container.decodeNil() {
        self = .null
        return
      }
      if let flag = try? container.decode(Bool.self) {
        self = .bool(flag)
        return
      }
      if let number = try? container.decode(Int64.self) {
        self = .number(.int(number))
        return
      }
      if let number = try? container.decode(Double.self) {
        self = .number(.double(number))
        return
      }
      if let string = try? container.decode(String.self) {
        self = .string(string)
        return
      }
    }
    if let container = try? decoder.container(keyedBy: JSONCodingKey.self) {
      var members: [String: JSONValue] = [:]
      for key in container.allKeys {
        members[key.stringValue] = try container.decode(JSONValue.self, forKey: key)
      }
      self = .object(members)
      return
    }
    if var container = try? decoder.unkeyedContainer() {
      var elements: [JSONValue] = []
      while !container.isAtEnd {
        elements.append(try container.decode(JSONValue.self))
      }
      self = .array(elements)
      return
    }
    throw DecodingError.dataCorrupted(
      DecodingError.Context(
        codingPath: decoder.codingPath, debugDescription: "value has no JSON representation"))
  }
}
