import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// Appends records to a journal and makes them durable in groups.
///
/// `append` only buffers a line; `commit()` writes the buffer with one `pwrite` and then
/// `fdatasync`s, so one sync covers every line since the last commit (group commit). Call
/// `commit()` before showing the user a view: an action whose view was seen is then on disk. The
/// writer also commits by itself when `Limits` are reached. It assigns seqs (1, 2, 3, ...) and
/// holds an exclusive `flock` on the file, so two hosts never append to one journal.
///
/// Not thread-safe: use it from one thread (the store's). After any write or sync error every
/// later call throws that error: the file keeps what earlier commits made durable (a partial
/// write is cut back, or reads as a torn tail), and opening it again restores from there.
// @unchecked: confined to one thread at a time (the store's), as said above.
public final class JournalWriter: @unchecked Sendable {
  /// When `append` commits by itself. The store's own commits (before each view) keep the
  /// promise; these only bound the buffer and, under a burst, how often it syncs. `syncs` is off
  /// only for a journal that is deleted when the run ends (kept for time travel).
  public typealias Limits = GroupCommitLimits

  public let path: String
  public let header: JournalHeader
  public var limits: Limits { file.limits }
  public var snapshotPolicy: SnapshotPolicy
  /// The seq of the last action or travel appended (0 before any).
  public private(set) var lastSeq: Int
  /// Actions appended since the last snapshot or travel.
  public private(set) var actionsSinceState: Int
  /// The time (`"at"`) of the last action or refusal line written or read: milliseconds since the header's
  /// `created`; nil before any, or when the header's `created` is not a time (none is written).
  public private(set) var lastActionAt: Int?
  /// Lines appended but not yet committed.
  public var pendingLines: Int { file.pendingLines }

  private let file: JSONLinesFile
  private let clock: JournalClock
  /// The header's `created` in milliseconds since 1970: what `"at"` counts from.
  private let timeOrigin: Int64?

  private init(
    file: JSONLinesFile, header: JournalHeader, lastSeq: Int, actionsSinceState: Int,
    lastActionAt: Int?, policy: SnapshotPolicy, clock: JournalClock
  ) {
    self.file = file
    self.path = file.path
    self.header = header
    self.lastSeq = lastSeq
    self.actionsSinceState = actionsSinceState
    self.lastActionAt = lastActionAt
    self.snapshotPolicy = policy
    self.clock = clock
    timeOrigin = ActionTime.origin(of: header)
  }

  // MARK: - Opening

  /// Creates a new journal at `path` holding only `header`, durable before this returns. The
  /// file appears whole or not at all (written aside, then linked into place); an existing file
  /// is never replaced (`alreadyExists`, or `inUse` while another host holds it). Action lines
  /// carry their time from `clock` (see `append(action:source:)`).
  public static func create(
    at path: String, header: JournalHeader, policy: SnapshotPolicy = .default,
    limits: Limits = Limits(), clock: JournalClock = .system
  ) throws(HostError) -> JournalWriter {
    let file = try JSONLinesFile.create(at: path, header: try header.encodedLine(), limits: limits)
    return JournalWriter(
      file: file, header: header, lastSeq: 0, actionsSinceState: 0, lastActionAt: nil, policy: policy,
      clock: clock)
  }

  /// Opens the journal at `path` for appending: locks it, reads and checks it (see `Journal`),
  /// then cuts a torn tail so that appends start on a fresh line. The returned journal has the
  /// restore point; its `tornTail` says what was cut (tell the user). A journal that does not
  /// check out is left untouched.
  public static func openForAppend(
    at path: String, feature: String?, policy: SnapshotPolicy = .default, limits: Limits = Limits(),
    clock: JournalClock = .system
  ) throws(HostError) -> (writer: JournalWriter, journal: Journal) {
    let header: (UnsafeRawBufferPointer) throws(HostError) -> Void = { line throws(HostError) in
      _ = try JournalHeader.parse(line, path: path)
    }
    var checker = Journal.Checker(path: path, feature: feature)
    let (file, journal) = try JSONLinesFile.open(
      at: path, limits: limits, header: header,
      progress: { buffer, atEnd throws(HostError) in try checker.feed(buffer, atEnd: atEnd) },
      check: { bytes throws(HostError) in
        let journal = Journal(bytes: bytes, path: path, checked: try checker.result())
        return (journal, journal.tail)
      })
    let writer = JournalWriter(
      file: file, header: journal.header, lastSeq: journal.lastSeq,
      actionsSinceState: journal.actionsSinceState, lastActionAt: journal.lastActionAt, policy: policy,
      clock: clock)
    return (writer, journal)
  }

  /// Moves the lines from `damage` on into a file beside the journal, cuts the journal there and
  /// closes it (see `JSONLinesFile.setAside`); open it again to append. Returns the new file.
  public func setAside(from damage: JournalDamage) throws(HostError) -> String {
    let aside = try file.setAside(from: damage.offset, line: damage.line)
    try file.close()
    return aside
  }

  // MARK: - Appending

  /// Whether the snapshot policy wants a snapshot now.
  public var snapshotDue: Bool { snapshotPolicy.isDue(actionsSinceState: actionsSinceState) }

  /// Appends an applied action (a JSON object) and returns its seq.
  ///
  /// The line carries the time, `"at"`: the clock's milliseconds since the header's `created`,
  /// never less than the time of the action line before it (a clock set back repeats that time).
  /// A header whose `created` is not a time gets lines without one, as older hosts wrote.
  @discardableResult
  public func append(action json: String, source: ActionSource) throws(HostError) -> Int {
    try file.checkUsable()
    let seq = lastSeq + 1
    let at = nextActionTime()
    // The whole line in one access to the buffer, its end one literal per source: the hot path.
    try file.withPending { (pending: inout [UInt8]) throws(HostError) in
      let lineStart = pending.count
      Self.put(#"{"action":"#, into: &pending)
      try Self.putPayload(json, what: "action", validate: false, lineStart: lineStart, into: &pending)
      Self.putEnd(at: at, seq: seq, end: Self.actionEnd(of: source), into: &pending)
    }
    if at >= 0 { lastActionAt = at }
    lastSeq = seq
    actionsSinceState += 1
    try lineAppended()
    return seq
  }

  /// Appends a snapshot: `state` (a JSON object) is the state after `lastSeq`.
  public func append(snapshot state: String) throws(HostError) {
    var state = state
    try state.withUTF8 { bytes in Result { () throws(HostError) in try append(snapshot: bytes) } }.get()
  }

  /// Appends a snapshot from the state's bytes (see `PluginInstance.withSnapshot`). A state larger
  /// than a group commit is written straight to the file with the lines pending before it, in one
  /// synced write, instead of being copied into the pending buffer: a large state is not held twice.
  public func append(snapshot state: UnsafeBufferPointer<UInt8>) throws(HostError) {
    try file.checkUsable()
    let lineStart = file.pending.count
    appendLiteral(#"{"seq":"#)
    appendNumber(lastSeq)
    appendLiteral(#","state":"#)
    if state.count >= file.limits.maxBytes, Self.isOneLineObject(state) {
      file.appendLine(ending: UnsafeRawBufferPointer(state), "}\n")
      actionsSinceState = 0
      return
    }
    try appendPayload(
      String(decoding: state, as: UTF8.self), what: "state", validate: true, lineStart: lineStart)
    appendLiteral("}\n")
    actionsSinceState = 0
    try lineAppended()
  }

  /// The time for the next action line; -1 for none (the header's `created` is not a time).
  private func nextActionTime() -> Int {
    guard let timeOrigin else { return -1 }
    let elapsed = Int(clamping: clock.milliseconds &- timeOrigin)
    return min(ActionTime.maximum, max(lastActionAt ?? 0, elapsed))
  }

  /// Whether `bytes` is a valid JSON object on one line: what the fast path of `appendPayload`
  /// copies as is. (Anything else goes through `appendPayload`, which mends or refuses it.)
  private static func isOneLineObject(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard let base = bytes.baseAddress, bytes.count >= 2, bytes[0] == JournalByte.openBrace,
      bytes[bytes.count - 1] == JournalByte.closeBrace,
      memchr(base, Int32(JournalByte.newline), bytes.count) == nil
    else { return false }
    return (try? JSONValue.validate(bytes: UnsafeRawBufferPointer(bytes))) != nil
  }

  /// Appends a travel: the current state became `state`, the state after seq `to` (nil only for
  /// `load`). Returns the travel's own seq. Undone actions stay in the journal.
  @discardableResult
  public func append(travel kind: TravelKind, to: Int?, state: String) throws(HostError) -> Int {
    try file.checkUsable()
    let seq = lastSeq + 1
    switch (kind, to) {
    case (.load, nil): break
    case (.load, .some):
      throw HostError(JournalFailure.loadTravelWithTarget)
    case (_, .some(let to)) where to >= 0 && to < seq: break
    default:
      throw HostError(JournalFailure.travelOutOfRange(kind: kind, to: to, path: path, lastSeq: lastSeq))
    }
    let lineStart = file.pending.count
    appendLiteral(#"{"seq":"#)
    appendNumber(seq)
    appendLiteral(#","state":"#)
    try appendPayload(state, what: "state", validate: true, lineStart: lineStart)
    if let to {
      appendLiteral(#","to":"#)
      appendNumber(to)
    }
    appendLiteral(#","travel":""#)
    appendLiteral(Self.name(of: kind))
    appendLiteral("\"}\n")
    lastSeq = seq
    actionsSinceState = 0
    try lineAppended()
    return seq
  }

  /// Appends a crash line at the current seq (see `JournalCrash`); it takes no seq of its own.
  /// Rare: written through the JSON serializer, not the hot path's byte copying.
  public func append(crash: JournalCrash) throws(HostError) {
    try file.checkUsable()
    var members: [String: JSONValue] = [
      "call": .string(crash.call), "crash": .string(crash.loss), "seq": .number(.int(Int64(lastSeq))),
    ]
    if let action = crash.action {
      // An action that is not a JSON object (what was sent, as sent) is kept as a text.
      members["applying"] =
        (try? JSONValue.parse(action)).flatMap { $0.objectValue != nil ? $0 : nil } ?? .string(action)
    }
    file.pending.append(contentsOf: JSONValue.object(members).serialized().utf8)
    file.pending.append(JournalByte.newline)
    try lineAppended()
  }

  /// Appends a refusal line at the current seq: the feature refused `action` (a JSON object, or the
  /// text sent when it was not one) from `source`, saying `error`. It takes no seq of its own and
  /// carries a time as an action line does. Returns the refusal as written (see `JournalRefusal`).
  /// Rare: written through the JSON serializer.
  @discardableResult
  public func append(refused action: String, source: ActionSource, error: String) throws(HostError)
    -> JournalRefusal
  {
    try file.checkUsable()
    var members: [String: JSONValue] = [
      "error": .string(error), "seq": .number(.int(Int64(lastSeq))), "source": .string(source.rawValue),
      // An action that is not a JSON object (what was sent, as sent) is kept as a text.
      "refused": (try? JSONValue.parse(action)).flatMap { $0.objectValue != nil ? $0 : nil } ?? .string(action),
    ]
    let at = nextActionTime()
    if at >= 0 { members["at"] = .number(.int(Int64(at))) }
    file.pending.append(contentsOf: JSONValue.object(members).serialized().utf8)
    file.pending.append(JournalByte.newline)
    if at >= 0 { lastActionAt = at }
    try lineAppended()
    return JournalRefusal(seq: lastSeq, source: source, action: action, error: error, at: at >= 0 ? at : nil)
  }

  /// Appends a reload line at the current seq (see `JournalReload`), then a snapshot of `state`,
  /// the state the new build holds. Rare: written through the JSON serializer.
  public func append(reload: JournalReload, state: String) throws(HostError) {
    try file.checkUsable()
    let members: [String: JSONValue] = [
      "reload": .string(reload.feature), "seq": .number(.int(Int64(lastSeq))), "from": reload.from.json,
      "to": reload.to.json,
    ]
    file.pending.append(contentsOf: JSONValue.object(members).serialized().utf8)
    file.pending.append(JournalByte.newline)
    try lineAppended()
    try append(snapshot: state)
  }

  /// Writes the pending lines with one `pwrite` and syncs them: when this returns, they survive
  /// a crash or power loss. Cheap when nothing is pending.
  public func commit() throws(HostError) { try file.commit() }

  /// Commits and closes the file (releasing the lock). Later calls throw.
  public func close() throws(HostError) { try file.close() }

  // MARK: - Encoding

  private func lineAppended() throws(HostError) { try file.lineAppended() }

  /// Appends `json` as is when it is one line that looks like an object (and, with `validate`,
  /// parses); otherwise its compact form, so that a record is always one line.
  private func appendPayload(_ json: String, what: String, validate: Bool, lineStart: Int)
    throws(HostError)
  {
    try file.withPending { (pending: inout [UInt8]) throws(HostError) in
      try Self.putPayload(json, what: what, validate: validate, lineStart: lineStart, into: &pending)
    }
  }

  /// `appendPayload` into `pending`.
  private static func putPayload(
    _ json: String, what: String, validate: Bool, lineStart: Int, into pending: inout [UInt8]
  ) throws(HostError) {
    // Checked and copied in one pass over the bytes: this is the hot path.
    var invalid: JSONParseError?
    let appended =
      json.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
        guard let base = bytes.baseAddress, bytes.count >= 2, bytes[0] == JournalByte.openBrace,
          bytes[bytes.count - 1] == JournalByte.closeBrace,
          memchr(base, Int32(JournalByte.newline), bytes.count) == nil
        else { return false }
        // Checked without building it: a state is as large as the feature's model.
        if validate {
          do throws(JSONParseError) {
            try JSONValue.validate(bytes: UnsafeRawBufferPointer(bytes))
          } catch {
            invalid = error
            return false
          }
        }
        pending.append(contentsOf: bytes)
        return true
      } ?? false
    if appended { return }
    let line = invalid == nil ? JournalRecord.oneLine(json) : nil
    guard let line else {
      // Leave the buffer as it was: drop the start of the line this call began.
      pending.removeSubrange(lineStart...)
      if let invalid {
        throw HostError(
          JournalFailure.invalidJSON(what: what, json: JournalFailure.excerpt(json), detail: "\(invalid)"))
      }
      throw HostError(JournalFailure.notJSONObject(what: what, json: JournalFailure.excerpt(json)))
    }
    pending.append(contentsOf: line.utf8)
  }

  private func appendLiteral(_ literal: StaticString) {
    file.withPending { Self.put(literal, into: &$0) }
  }

  private static func put(_ literal: StaticString, into pending: inout [UInt8]) {
    pending.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
  }

  /// What ends an action line after its seq.
  private static func actionEnd(of source: ActionSource) -> StaticString {
    switch source {
    case .user: #","source":"user"}\#n"#
    case .effect: #","source":"effect"}\#n"#
    case .feedback: #","source":"feedback"}\#n"#
    case .lifecycle: #","source":"lifecycle"}\#n"#
    case .navigation: #","source":"navigation"}\#n"#
    }
  }

  private static func name(of kind: TravelKind) -> StaticString {
    switch kind {
    case .undo: "undo"
    case .redo: "redo"
    case .goto: "goto"
    case .load: "load"
    }
  }

  /// Appends a non-negative number's decimal digits.
  private func appendNumber(_ value: Int) {
    file.withPending { Self.putNumber(value, into: &$0) }
  }

  /// `,"at":T` (when `at` is 0 or more), `,"seq":N` and `end`, in one append: the digits are
  /// written into a buffer on the stack, so an action line allocates nothing.
  private static func putEnd(at: Int, seq: Int, end: StaticString, into pending: inout [UInt8]) {
    let atLabel: StaticString = #","at":"#
    let seqLabel: StaticString = #","seq":"#
    let capacity = atLabel.utf8CodeUnitCount + 20 + seqLabel.utf8CodeUnitCount + 20 + end.utf8CodeUnitCount
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { bytes in
      guard let base = bytes.baseAddress else { return }
      var count = 0
      if at >= 0 {
        memcpy(base, atLabel.utf8Start, atLabel.utf8CodeUnitCount)
        count = putDigits(at, at: base + atLabel.utf8CodeUnitCount) + atLabel.utf8CodeUnitCount
      }
      memcpy(base + count, seqLabel.utf8Start, seqLabel.utf8CodeUnitCount)
      count += seqLabel.utf8CodeUnitCount
      count += putDigits(seq, at: base + count)
      memcpy(base + count, end.utf8Start, end.utf8CodeUnitCount)
      count += end.utf8CodeUnitCount
      pending.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
    }
  }

  /// Writes a non-negative number's decimal digits at `start`; returns how many.
  private static func putDigits(_ value: Int, at start: UnsafeMutablePointer<UInt8>) -> Int {
    var digits = 1
    var scale = value
    while scale >= 10 {
      scale /= 10
      digits += 1
    }
    // Written backwards into their place.
    var rest = value
    for index in stride(from: digits - 1, through: 0, by: -1) {
      start[index] = JournalByte.asciiZero &+ UInt8(truncatingIfNeeded: rest % 10)
      rest /= 10
    }
    return digits
  }

  private static func putNumber(_ value: Int, into pending: inout [UInt8]) {
    var rest = value
    withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
      var start = digits.count
      repeat {
        start -= 1
        digits[start] = JournalByte.asciiZero &+ UInt8(truncatingIfNeeded: rest % 10)
        rest /= 10
      } while rest > 0
      pending.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
    }
  }
}

extension JournalRecord {
  /// The text the journal stores for `json`: `json` itself when it is one line from `{` to `}`,
  /// otherwise its compact form (a C plugin may put newlines between tokens); nil when it is not
  /// a JSON object. Replay compares a reproduced snapshot with a recorded one after this.
  public static func oneLine(_ json: String) -> String? {
    let utf8 = json.utf8
    let isOneLine =
      utf8.first == JournalByte.openBrace && utf8.last == JournalByte.closeBrace
      && !utf8.contains(JournalByte.newline)
    // One line from `{` to `}` that is valid JSON is an object: checked without a tree.
    if isOneLine { return (try? JSONValue.validate(json)) == nil ? nil : json }
    guard let value = try? JSONValue.parse(json), case .object = value else { return nil }
    return value.serialized()
  }
}
