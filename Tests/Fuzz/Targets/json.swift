// libFuzzer target: the JSON parser, the serializer's round trip, and tagged decoding.
import FeatureJSON

enum Mode: String, Codable { case fast, slow }

/// Every shape synthesized enum coding produces.
enum Action: Codable {
  case increment
  case set(left: Int, right: Int)
  case loaded(urls: [String])
  case wrap(String)
  case pair(Int, String)
  case rename(name: String?, aliases: [String]?)
  case batch(items: [[Int]], note: String?)
  case configure(mode: Mode, ratio: Double)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func test(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
  guard let start else { return 0 }
  let bytes = UnsafeRawBufferPointer(start: start, count: count)
  guard let value = try? JSONValue.parse(bytes: bytes) else { return 0 }
  // What the serializer writes parses back to the same value.
  let text = value.serialized()
  guard let again = try? JSONValue.parse(text), again == value else {
    fatalError("round trip changed \(text)")
  }
  // A decoded action encodes back to a shape that decodes to the same encoding.
  if let action = try? JSONValueDecoder().decodeTagged(Action.self, from: value) {
    guard let flat = try? JSONValueEncoder().encodeTagged(action),
      let back = try? JSONValueDecoder().decodeTagged(Action.self, from: flat),
      (try? JSONValueEncoder().encodeTagged(back)) == flat
    else { fatalError("tagged round trip failed for \(text)") }
  }
  return 0
}
