import FeatureJSON
import Testing

/// A state of plain members written as FeatureKit's build plugin writes one (keys in UTF-8
/// order, every stored member), beside the same type through `Encodable`'s containers.
struct PlainState: Codable, JSONObjectWritable {
  var count: Int
  var _zed: Bool
  var label: String
  var note: String?
  var limit: Int?
  var done: Bool?

  func writeJSONObject(into writer: inout JSONObjectWriter) {
    writer.member("_zed", _zed)
    writer.member("count", count)
    writer.member("done", done)
    writer.member("label", label)
    writer.member("limit", limit)
    writer.member("note", note)
  }
}

/// A member whose key is longer than the writer puts together on the stack, and a flag after it.
struct LongKeyed: Codable, JSONObjectWritable {
  var aKeyLongerThanTheWriterPutsTogetherAtOnce: Int
  var b: Bool

  func writeJSONObject(into writer: inout JSONObjectWriter) {
    writer.member("aKeyLongerThanTheWriterPutsTogetherAtOnce", aKeyLongerThanTheWriterPutsTogetherAtOnce)
    writer.member("b", b)
  }
}

@Suite("JSONObjectWriter")
struct JSONObjectWriterTests {
  /// Every length of number, both signs, and the extremes, as the only member and after another.
  @Test(arguments: [
    0, 1, -1, 9, -9, 10, -10, 99, 100, -100, 12_345, -12_345, 999_999_999, 1_000_000_000, -1_000_000_000, .max,
    .min, .min + 1,
  ])
  func numbersAndLongKeysAreWrittenAsTheContainersWriteThem(_ number: Int) throws {
    for value in [
      PlainState(count: number, _zed: true, label: "x", note: nil, limit: number / 3, done: false),
      PlainState(count: 0, _zed: false, label: "", note: nil, limit: number, done: nil),
    ] {
      let direct = String(decoding: try JSONBytesEncoder().encode(value), as: UTF8.self)
      #expect(direct == (try JSONValueEncoder().encode(value).serialized()))
    }
    let long = LongKeyed(aKeyLongerThanTheWriterPutsTogetherAtOnce: number, b: number % 2 == 0)
    let direct = String(decoding: try JSONBytesEncoder().encode(long), as: UTF8.self)
    #expect(direct == (try JSONValueEncoder().encode(long).serialized()))
  }

  static let samples: [PlainState] = [
    PlainState(count: 0, _zed: false, label: "", note: nil, limit: nil, done: nil),
    PlainState(
      count: -9_223_372_036_854_775_807 - 1, _zed: true, label: "tab\there \"q\" \\ é \u{1}", note: "", limit: 0,
      done: false),
    PlainState(count: .max, _zed: false, label: "line\nnext\r\u{1F}", note: "ok", limit: -12, done: true),
  ]

  /// Strings around and past what the writer keeps on the stack (512 bytes), escapes included:
  /// the bytes move to an array partway through.
  @Test(arguments: [60, 80, 83, 84, 85, 90, 100, 500, 1_000])
  func longStringsAreWrittenAsTheContainersWriteThem(_ length: Int) throws {
    let label = String(repeating: "ab\"\u{1}é", count: length / 5) + String(repeating: "x", count: length % 5)
    for value in [
      PlainState(count: 7, _zed: true, label: label, note: label, limit: -3, done: true),
      PlainState(count: 0, _zed: false, label: "", note: String(label.prefix(length / 2)), limit: nil, done: nil),
    ] {
      let direct = String(decoding: try JSONBytesEncoder().encode(value), as: UTF8.self)
      #expect(direct == (try JSONValueEncoder().encode(value).serialized()))
    }
  }

  @Test("writes the bytes Encodable's containers write", arguments: samples.indices)
  func writesWhatTheContainersWrite(_ index: Int) throws {
    let value = Self.samples[index]
    let direct = String(decoding: try JSONBytesEncoder().encode(value), as: UTF8.self)
    #expect(direct == (try JSONValueEncoder().encode(value).serialized()))
  }

  /// Writes something its Codable encoding does not: shows which way the encoder went.
  struct Marked: Codable, JSONObjectWritable {
    var level = 1
    func writeJSONObject(into writer: inout JSONObjectWriter) { writer.member("via", "writer") }
  }

  @Test func theEncoderWritesAWritableValueThroughItsWriterAndItsStructureThroughCodable() throws {
    #expect(String(decoding: try JSONBytesEncoder().encode(Marked()), as: UTF8.self) == #"{"via":"writer"}"#)
    #expect(String(decoding: try JSONBytesEncoder().encodeStructure(Marked()), as: UTF8.self) == #"{"level":0}"#)
  }

  @Test func aNilOptionalIsLeftOutAsSynthesizedEncodableLeavesIt() throws {
    let bytes = try JSONBytesEncoder().encode(Self.samples[0])
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"_zed":false,"count":0,"label":""}"#)
  }
}
