import CounterFeature
import Testing

@testable import FeatureKit

/// The view's lines reach the host as one C string: joined by line breaks, as `joined` would.
@Suite("View text")
struct ViewTextTests {
  @Test(arguments: [[], [""], ["", "a"], ["a", ""], ["Counter", "  count:  1"], ["ü漢字", "", "x y"]] as [[String]])
  func linesAreJoinedByLineBreaksAndEndInANul(_ lines: [String]) {
    let bytes = FeatureInstance<CounterFeature>.cString(joining: lines)
    #expect(bytes == Array(lines.joined(separator: "\n").utf8) + [0])
  }
}
