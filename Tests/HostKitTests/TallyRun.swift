import FeatureTesting
import HostKit

/// A long run of actions for the faults fixture (a tally: `add amount=N`, `reset`): `add
/// amount=1` four times then `reset`, over and over, so the total never reaches 13 (where the
/// fixture's faults fire) unless an action given in `replacing` takes it there.
enum TallyRun {
  static let addOne = #"{"type":"add","amount":1}"#
  /// At a seq that is a multiple of 5 (the total is 4 before it), brings the total to 13.
  static let toThirteen = #"{"type":"add","amount":9}"#
  /// Refused by the tally: an amount is from 1 to 9.
  static let refused = #"{"type":"add","amount":0}"#

  /// The faults fixture, built once per test process.
  static var plugin: String {
    get throws { try FixturePlugin.path(["FIXTURE_TALLY", "FIXTURE_FAULTS"]) }
  }

  /// The actions at seqs 1 to `count`.
  static func actions(_ count: Int, replacing: [Int: String] = [:]) -> [JournalAction] {
    (1...count).map { seq in
      JournalAction(
        seq: seq, source: .user, json: replacing[seq] ?? ((seq - 1) % 5 < 4 ? addOne : #"{"type":"reset"}"#))
    }
  }

  /// The total after `seq` of a run with nothing replaced.
  static func total(after seq: Int) -> Int { seq == 0 ? 0 : (seq - 1) % 5 < 4 ? (seq - 1) % 5 + 1 : 0 }

  /// The tally's state with `total`.
  static func state(total: Int) -> String { #"{"pongs":0,"total":\#(total)}"# }

  /// The tally's view with `total`.
  static func view(total: Int) -> String { "Tally\n  total: \(total)\n  pongs: 0" }
}
