import CounterFeature
import FeatureJSON
import FeatureKit
import LevelsFeature
import Testing

/// The build plugin's state writers of the shipped features give the bytes Codable gives.
@Suite("Generated state writers")
struct GeneratedStateWriterTests {
  /// Whether a value of a type known only at run time takes the direct way (as in the encoder).
  static func writesDirectly<T>(_ state: T) -> Bool { state is any JSONObjectWritable }

  static func same<T: Encodable>(_ state: T) throws -> Bool {
    let direct = try JSONBytesEncoder().encode(state)
    return String(decoding: direct, as: UTF8.self) == (try JSONValueEncoder().encode(state).serialized())
  }

  @Test("counter and levels write their states directly, as Codable would", arguments: [0, 1, -1, 7, .max, .min])
  func shippedStatesWriteAsCodable(_ value: Int) throws {
    #expect(Self.writesDirectly(CounterFeature.State()))
    #expect(Self.writesDirectly(LevelsFeature.State(left: 0, right: 0)))
    #expect(try Self.same(CounterFeature.State(count: value, clicks: value.magnitude > 9 ? 3 : 9)))
    #expect(try Self.same(LevelsFeature.State(left: value, right: -17)))
  }
}
