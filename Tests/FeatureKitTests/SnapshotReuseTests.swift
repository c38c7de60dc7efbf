import CounterFeature
import FeatureABI
import FeatureJSON
import Testing

@testable import FeatureKit

/// A snapshot writes over the storage of the encoding an action let go: each text handed out is
/// still the state's own, whatever came between.
@Suite("Snapshots over reused storage")
struct SnapshotReuseTests {
  func text(_ call: (inout UnsafePointer<CChar>?) -> fh_status) -> String {
    var out: UnsafePointer<CChar>?
    #expect(call(&out) == FH_OK)
    return String(cString: out!)
  }

  @Test func everySnapshotIsTheStateWhateverCameBetween() throws {
    let counter = GeneratedStateReaderTests.instance(CounterFeature())
    #expect(counter.start() == FH_OK)
    var flags: UInt32 = 0
    #expect(#"{"type":"created"}"#.withCString { counter.dispatch($0, flags: &flags) } == FH_OK)
    var random = SystemRandomNumberGenerator()
    var texts: [String] = []
    for round in 0..<2_000 {
      switch Int.random(in: 0..<5, using: &random) {
      case 0, 1:
        let action = Bool.random(using: &random) ? #"{"type":"increment"}"# : #"{"type":"decrement"}"#
        #expect(action.withCString { counter.dispatch($0, flags: &flags) } == FH_OK)
      case 2:
        // Back to a state seen before (a travel), or to one of another size.
        let state = texts.randomElement(using: &random) ?? #"{"clicks":0,"count":0}"#
        #expect(state.withCString { counter.restore($0) } == FH_OK)
      case 3:
        _ = text { counter.render(&$0) }
      default:
        break
      }
      let snapshot = text { counter.snapshot(&$0) }
      let expected = try JSONValueEncoder().encode(counter.state).serialized()
      #expect(snapshot == expected, "round \(round)")
      // A second snapshot with nothing between answers the same.
      #expect(text { counter.snapshot(&$0) } == snapshot)
      texts.append(snapshot)
    }
    #expect(counter.stop() == FH_OK)
  }
}
