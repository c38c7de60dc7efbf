import FeatureJSON

/// One record of a session journal after the header.
///
/// The journal format (version 1; docs/journal.md says the same at more length):
///
/// A journal is JSON Lines: UTF-8, one JSON object per line, every line ended by `\n`. The writer
/// puts keys in UTF-8 byte order with no spaces, as `JSONValue.serialized()` does.
///
///     {"created":"2025-11-29T21:20:00Z","feature":"counter","featureVersion":"1.0.0","format":1,"host":"0.1.0","journal":"featurehost"}
///     {"action":{"type":"created"},"at":412,"seq":1,"source":"lifecycle"}
///     {"action":{"type":"increment"},"at":2306,"seq":2,"source":"user"}
///     {"seq":2,"state":{"clicks":1,"count":1}}
///     {"seq":3,"state":{"clicks":0,"count":0},"to":1,"travel":"undo"}
///
/// - Line 1, the header: `journal` is `"featurehost"`, `format` is 1, then the feature id and
///   version, the host version, `created` (ISO-8601 UTC) and, when the run had one, `config` (the
///   feature's config object). Readers ignore header keys they do not know.
/// - Action: `{"action":A,"at":T,"seq":S,"source":SRC}`: the action A (a JSON object) was applied
///   at T, milliseconds since the header's `created` (as written, so second precision), never less
///   than the T of the action line before it; journals older than action times have no `at`.
///   SRC is an `ActionSource` (user, effect, feedback, lifecycle, navigation).
/// - Snapshot: `{"seq":S,"state":X}`: X is the state after seq S (S = 0: before any action). It
///   names the record just before it: S equals the seq of the last action or travel line.
/// - Travel: `{"seq":S,"state":X,"to":T,"travel":K}`: the current state became the state after
///   seq T (K is undo, redo or goto; 0 <= T < S), and X is that state. K = load has no `to`: X came
///   from outside (`:load FILE`). Undone actions stay in the file.
/// - Crash: `{"applying":A,"call":C,"crash":L,"seq":S}`: the instance was lost (L: `signal 11`,
///   `exit 3`, `no answer to dispatch within 10 s`) during call C, applying A (absent when the call
///   applied no action). A was not applied. S is the seq before it, as for a snapshot; the store
///   restarted from the state after S. Restore, history and replay skip it.
/// - Reload: `{"from":{"hash":H,"version":V},"reload":F,"seq":S,"to":{"hash":H,"version":V}}`:
///   feature F was reloaded at seq S from one build to another (versions from their manifests,
///   hashes of their files, `xxh64:` and 16 hex digits). A snapshot at seq S follows it: the
///   state the new build took over, which restore starts from. Replay names it.
/// - Refusal: `{"at":T,"error":E,"refused":A,"seq":S,"source":SRC}`: the feature refused the action
///   A (a JSON object, or the text sent when it was not one) from SRC, saying E; nothing changed.
///   S is the seq before it, as for a snapshot; T as for an action. Restore, history and replay skip it.
///
/// Sequence numbers: actions and travels number 1, 2, 3, ... with no gap, in file order; every
/// seq names exactly one state, "the state after seq S": for an action, the state before it (the
/// state after S - 1) with the action applied; for a travel, its X. So the current state is the
/// state after the last seq, and restore = the last line that carries a state (snapshot or
/// travel) + the actions after it; with no such line, a fresh instance + every action. A travel
/// carries its state in the same line (not in a separate snapshot line) so that no crash can
/// leave a travel without the state it travelled to.
///
/// Crashes: the writer appends whole lines; a last line without `\n` that is not a valid record
/// is a torn tail: reported, ignored, and cut before the next append. Anything else that is not
/// a record is an error naming the line.
public enum JournalRecord: Sendable, Equatable {
  case action(JournalAction)
  case snapshot(seq: Int, state: String)
  case travel(JournalTravel)
  /// The instance was lost; names no state of its own.
  case crash(JournalCrash)
  /// The feature was reloaded from a new build; names no state of its own.
  case reload(JournalReload)
  /// The feature refused an action; names no state of its own.
  case refusal(JournalRefusal)

  /// The seq the record carries.
  public var seq: Int {
    switch self {
    case .action(let action): action.seq
    case .snapshot(let seq, _): seq
    case .travel(let travel): travel.seq
    case .crash(let crash): crash.seq
    case .reload(let reload): reload.seq
    case .refusal(let refusal): refusal.seq
    }
  }
}

/// A crash line: the instance was lost, and the action it was applying was not applied.
public struct JournalCrash: Sendable, Equatable {
  /// The seq of the last action or travel before the crash: the state the store restarted from.
  public var seq: Int
  /// The call that lost the instance (`dispatch`, `render`, ...).
  public var call: String
  /// The action that call was applying (a JSON object, or the text as given when it is not
  /// JSON); nil when it applied none.
  public var action: String?
  /// How the instance was lost, as stored: `signal 11`, `exit 3`, `no answer to dispatch within 10 s`.
  public var loss: String

  public init(seq: Int, call: String, action: String?, loss: String) {
    self.seq = seq
    self.call = call
    self.action = action
    self.loss = loss
  }

  /// The crash of an instance lost as `loss` during `call`.
  public init(seq: Int, call: String, action: String?, loss: InstanceLoss) {
    self.init(seq: seq, call: call, action: action, loss: Self.text(of: loss))
  }

  /// The stored form of `loss`: short, stable, and free of the system's signal names.
  public static func text(of loss: InstanceLoss) -> String {
    switch loss {
    case .signalled(let signal): "signal \(signal)"
    case .exited(let status): "exit \(status)"
    case .stoppedBySandbox(let syscall): "sandbox \(syscall)"
    case .outOfMemory(let limit): "memory \(limit)"
    case .brokeChannel: "channel"
    case .unresponsive(let call, let seconds):
      "no answer to \(call) within \(seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)) s"
    }
  }
}

/// A refusal line: the feature refused an action, which changed nothing.
public struct JournalRefusal: Sendable, Equatable {
  /// The seq of the last action or travel before it: the state the action was refused in.
  public var seq: Int
  public var source: ActionSource
  /// The action refused (a JSON object, or the text as sent when it is not JSON).
  public var action: String
  /// What the feature said.
  public var error: String
  /// When: milliseconds since the header's `created`, as for an action; nil when the line has none.
  public var at: Int?

  public init(seq: Int, source: ActionSource, action: String, error: String, at: Int? = nil) {
    self.seq = seq
    self.source = source
    self.action = action
    self.error = error
    self.at = at
  }
}

/// An applied action as the journal holds it: its seq, where it came from, its JSON text, and when.
public struct JournalAction: Sendable, Equatable {
  public var seq: Int
  public var source: ActionSource
  /// The action, a JSON object on one line.
  public var json: String
  /// When it was applied: milliseconds since the journal header's `created`. Nil in a journal
  /// written before action lines had a time.
  public var at: Int?

  public init(seq: Int, source: ActionSource, json: String, at: Int? = nil) {
    self.seq = seq
    self.source = source
    self.json = json
    self.at = at
  }
}

/// How the current state was replaced by a travel line.
public enum TravelKind: String, Sendable, Equatable, CaseIterable {
  /// Back to the state before the last action of the effective history.
  case undo
  /// Forward again to a state an undo left.
  case redo
  /// To the state after any earlier seq.
  case goto
  /// To a state from outside the journal (`:load FILE`); has no `to`.
  case load
}

/// A time-travel line: the current state became `state`, the state after seq `to`.
public struct JournalTravel: Sendable, Equatable {
  public var seq: Int
  public var kind: TravelKind
  /// The seq travelled to; nil for `load`.
  public var to: Int?
  /// The state travelled to, a JSON object on one line.
  public var state: String

  public init(seq: Int, kind: TravelKind, to: Int?, state: String) {
    self.seq = seq
    self.kind = kind
    self.to = to
    self.state = state
  }
}

/// A reload line: the feature's instance was replaced by one of another build at `seq`.
public struct JournalReload: Sendable, Equatable {
  /// One build: its version (from its manifest) and the hash of its file.
  public struct Build: Sendable, Equatable {
    public var version: String
    public var hash: String

    public init(version: String, hash: String) {
      self.version = version
      self.hash = hash
    }

    var json: JSONValue { ["hash": .string(hash), "version": .string(version)] }

    init?(json: JSONValue?) {
      guard let version = json?["version"]?.stringValue, let hash = json?["hash"]?.stringValue else { return nil }
      self.init(version: version, hash: hash)
    }
  }

  /// The seq of the last action or travel before the reload.
  public var seq: Int
  public var feature: String
  public var from: Build
  public var to: Build

  public init(seq: Int, feature: String, from: Build, to: Build) {
    self.seq = seq
    self.feature = feature
    self.from = from
    self.to = to
  }
}
