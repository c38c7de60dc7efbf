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
  checkFlatScans(bytes)
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

/// What the flat scans accept (an action's object, a state's) the parser reads to the same members.
func checkFlatScans(_ bytes: UnsafeRawBufferPointer) {
  guard !bytes.contains(0) else { return }
  var text = bytes.map { CChar(bitPattern: $0) }
  text.append(0)
  text.withUnsafeBufferPointer { buffer in
    let cString = buffer.baseAddress!
    for scan in [FlatActionScan(utf8CString: cString), FlatActionScan(objectAt: cString)] {
      guard let scan else { continue }
      guard
        let object = (try? JSONValue.parse(bytes: UnsafeRawBufferPointer(start: cString, count: bytes.count)))?
          .objectValue, object.count == scan.count
      else { fatalError("the flat scan read \(scan.count) members of what the parser does not read so") }
      let pairs: [(String, JSONValue?)] = [
        ("type", scan.value("type")), ("a", scan.value("a")), ("n", scan.value("n")),
        ("count", scan.value("count")), ("clicks", scan.value("clicks")),
      ]
      for (key, value) in pairs where value != object[key] {
        fatalError(
          "the flat scan read \(key) as \(String(describing: value)), the parser as \(String(describing: object[key]))")
      }
    }
  }
}
