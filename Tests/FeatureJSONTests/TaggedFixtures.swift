// Enums with synthesized and hand-written Codable for tagged coding tests.

import FeatureJSON

enum Mode: String, Codable, Equatable {
  case fast, slow
}

enum Inner: Codable, Equatable {
  case on
  case level(Int)
}

/// Covers each shape synthesized enum coding produces.
enum Action: Codable, Equatable {
  case increment
  case set(left: Int, right: Int)
  case loaded(urls: [String])
  case wrap(String)
  case pair(Int, String)
  case rename(name: String?, aliases: [String]?)
  case batch(items: [[Int]], note: String?)
  case configure(mode: Mode, inner: Inner)
}

/// A hand-written decoder that asks for more than synthesized code does.
enum Command: Decodable, Equatable {
  struct Move: Decodable, Equatable {
    var dx: Int
  }

  case move(Move)
  case other([String])

  enum Keys: String, CodingKey { case move }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    if container.contains(.move) {
      self = .move(try container.decode(Move.self, forKey: .move))
    } else {
      let whole = try decoder.singleValueContainer().decode(JSONValue.self)
      self = .other(whole.objectValue?.keys.sorted() ?? [])
    }
  }
}
