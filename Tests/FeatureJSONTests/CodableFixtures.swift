// Types exercising the Codable bridge: synthesized, hand-written and
// deliberately misbehaving implementations.

import FeatureJSON

struct Inventory: Codable, Equatable {
  struct Item: Codable, Equatable {
    var name: String
    var url: String?
    var tags: [String]
    var price: Double
    var count: Int
  }

  var title: String
  var items: [Item]
  var owner: String?
  var ratings: [String: Int]
  var matrix: [[Int8]]
  var sections: [String: [Item]]
  var optionalList: [Int?]
  var extra: JSONValue
  var flag: Bool
  var ratio: Float
}

struct Widths: Codable, Equatable {
  var int8: Int8
  var int16: Int16
  var int32: Int32
  var int64: Int64
  var int: Int
  var uint8: UInt8
  var uint16: UInt16
  var uint32: UInt32
  var uint64: UInt64
  var uint: UInt
}

struct OptionalField: Codable, Equatable {
  var value: Int?
}

/// Exercises nested keyed/unkeyed containers by hand.
struct Shape: Codable, Equatable {
  var x: Int
  var y: Int
  var kind: String
  var rows: [[String]]

  enum Keys: String, CodingKey { case coords, meta, rows }
  enum MetaKeys: String, CodingKey { case kind }

  init(x: Int, y: Int, kind: String, rows: [[String]]) {
    self.x = x
    self.y = y
    self.kind = kind
    self.rows = rows
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    var coords = try container.nestedUnkeyedContainer(forKey: .coords)
    x = try coords.decode(Int.self)
    y = try coords.decode(Int.self)
    let meta = try container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
    kind = try meta.decode(String.self, forKey: .kind)
    var rowsContainer = try container.nestedUnkeyedContainer(forKey: .rows)
    var rows: [[String]] = []
    while !rowsContainer.isAtEnd {
      var row = try rowsContainer.nestedUnkeyedContainer()
      var cells: [String] = []
      while !row.isAtEnd {
        cells.append(try row.decode(String.self))
      }
      rows.append(cells)
    }
    self.rows = rows
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var coords = container.nestedUnkeyedContainer(forKey: .coords)
    try coords.encode(x)
    try coords.encode(y)
    var meta = container.nestedContainer(keyedBy: MetaKeys.self, forKey: .meta)
    try meta.encode(kind, forKey: .kind)
    var rowsContainer = container.nestedUnkeyedContainer(forKey: .rows)
    for row in rows {
      var cells = rowsContainer.nestedUnkeyedContainer()
      for cell in row {
        try cells.encode(cell)
      }
    }
  }
}

class Base: Codable {
  var id: Int

  init(id: Int) {
    self.id = id
  }
}

/// Class inheritance through `superEncoder()` / `superDecoder()`.
final class Derived: Base {
  var extra: String

  enum Keys: String, CodingKey { case extra }

  init(id: Int, extra: String) {
    self.extra = extra
    super.init(id: id)
  }

  required init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    extra = try container.decode(String.self, forKey: .extra)
    try super.init(from: container.superDecoder())
  }

  override func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(extra, forKey: .extra)
    try super.encode(to: container.superEncoder())
  }
}

/// Writes a keyed container and then a single value on the same encoder.
struct Misbehaving: Encodable {
  func encode(to encoder: any Encoder) throws {
    var keyed = encoder.container(keyedBy: Shape.Keys.self)
    try keyed.encode(1, forKey: .coords)
    var single = encoder.singleValueContainer()
    try single.encode(2)
  }
}

/// Encodes nothing at all.
struct Silent: Encodable {
  func encode(to encoder: any Encoder) throws {}
}

/// Reads three elements from whatever array it is given.
struct Triple: Decodable {
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    for _ in 0..<3 {
      _ = try container.decode(Int.self)
    }
  }
}
