import FeatureTesting

extension FixturePlugin {
  /// The "tally" feature of the fixture, built with `define` (a BREAK_* or FIXTURE_* macro, or nil
  /// for the well-behaved build).
  static func tally(_ define: String?) throws -> String {
    let key = define ?? "plain"
    return try path(["FIXTURE_TALLY"] + (define.map { [$0] } ?? []), name: "libtally-\(key.lowercased())")
  }
}
