#if canImport(Glibc)
  import Glibc
#endif

/// A journal file read and checked: its header, where a restore starts, and its records on demand.
///
/// Reading checks every line cheaply (its layout, seq and source, not the JSON inside an action)
/// and remembers where the last state is, so `restorePoint()` parses only what follows it.
/// `records()` parses everything. Errors name the file and the 1-based line, and say how to fix
/// it; reading never changes the file. See `JournalRecord` for the format.
public struct Journal: Sendable {
  public let path: String
  public let header: JournalHeader
  /// A last line torn by a crash: ignored; `JournalWriter` cuts it before appending.
  public let tornTail: TornTail?
  /// The seq of the last action or travel (0 when there is none): the current state is the state
  /// after it.
  public let lastSeq: Int
  /// Action lines in the file, undone ones included.
  public let actionCount: Int
  /// Actions after the last line that carries a state: what a restore replays.
  public let actionsSinceState: Int
  /// The time (`"at"`) of the last action or refusal line that has one; nil when none has.
  public let lastActionAt: Int?

  private let bytes: [UInt8]
  /// Where line 2 starts.
  private let recordsStart: Int
  /// The last snapshot or travel line: byte offset and line number.
  private let lastState: (offset: Int, line: Int)?
  /// How the lines end: where the records end, the torn tail, the last newline.
  let tail: JSONLinesTail

  /// Reads and checks the journal at `path`; with `feature`, a journal of another feature is an
  /// error. The lines are checked as the file is read, so a damaged one is refused without the
  /// rest of the file being read.
  public static func read(path: String, feature: String? = nil) throws(HostError) -> Journal {
    let fd = try JournalFile.open(path, O_RDONLY)
    defer { close(fd) }
    var checker = Checker(path: path, feature: feature)
    let bytes = try JournalFile.readAll(
      fd, path: path,
      header: { line throws(HostError) in _ = try JournalHeader.parse(line, path: path) },
      progress: { buffer, atEnd throws(HostError) in try checker.feed(buffer, atEnd: atEnd) })
    return Journal(bytes: bytes, path: path, checked: try checker.result())
  }

  /// Checks `bytes`, the contents of the journal at `path` (which is only used in messages).
  public init(bytes: [UInt8], path: String, feature: String? = nil) throws(HostError) {
    var checker = Checker(path: path, feature: feature)
    try bytes.withUnsafeBufferPointer { buffer throws(HostError) in try checker.feed(buffer, atEnd: true) }
    self.init(bytes: bytes, path: path, checked: try checker.result())
  }

  /// The journal of `bytes`, which `checked` says a `Checker` fed with all of them found.
  init(bytes: [UInt8], path: String, checked: Checked) {
    self.path = path
    self.bytes = bytes
    header = checked.header
    tornTail = checked.tail.tornTail
    lastSeq = checked.lastSeq
    actionCount = checked.actionCount
    actionsSinceState = checked.actionsSinceState
    lastActionAt = checked.lastActionAt
    recordsStart = checked.recordsStart
    lastState = checked.lastState
    tail = checked.tail
  }

  /// The last state in the journal and the actions after it: what restores the current state.
  ///
  /// Parses only the lines from the last snapshot or travel on; their JSON is checked here.
  public func restorePoint() throws(HostError) -> JournalRestorePoint {
    let (point, damage) = try restorePoint(stoppingAtDamage: false)
    if let damage { throw damage.error }
    return point
  }

  /// The restore point up to the first line whose JSON does not parse (a plugin's bad emit
  /// recorded by an older host), and that line; the whole restore point when there is none.
  public func restorePoint(stoppingAtDamage: Bool) throws(HostError) -> (JournalRestorePoint, JournalDamage?) {
    var point = JournalRestorePoint(
      path: path, state: nil, stateSeq: 0, actions: [], lastSeq: lastSeq)
    point.actions.reserveCapacity(actionsSinceState)
    let start = lastState ?? (recordsStart, 2)
    let damage = try forEachRecord(from: start.offset, line: start.line, stoppingAtDamage: stoppingAtDamage) {
      line, number, scanned throws(LineProblem) in
      switch scanned.kind {
      case .action(let source):
        let json = try JournalLineScanner.payloadText(scanned.payload, in: line, what: "an action")
        point.actions.append(JournalAction(seq: scanned.seq, source: source, json: json, at: scanned.at))
      case .snapshot, .travel:
        point.state = try JournalLineScanner.payloadText(scanned.payload, in: line, what: "a state")
        point.stateSeq = scanned.seq
      case .crash, .reload, .refusal:
        break
      }
    }
    if damage != nil { point.lastSeq = point.actions.last?.seq ?? point.stateSeq }
    return (point, damage)
  }

  /// Every record, in file order, each one's JSON checked: for replay and history.
  public func records() throws(HostError) -> [JournalRecord] {
    let (records, damage) = try records(stoppingAtDamage: false)
    if let damage { throw damage.error }
    return records
  }

  /// The records up to the first line whose JSON does not parse, and that line; every record
  /// when there is none.
  public func records(stoppingAtDamage: Bool) throws(HostError) -> ([JournalRecord], JournalDamage?) {
    var records: [JournalRecord] = []
    records.reserveCapacity(actionCount)
    let damage = try forEachRecord(from: recordsStart, line: 2, stoppingAtDamage: stoppingAtDamage) {
      line, _, scanned throws(LineProblem) in
      switch scanned.kind {
      case .action(let source):
        let json = try JournalLineScanner.payloadText(scanned.payload, in: line, what: "an action")
        records.append(.action(JournalAction(seq: scanned.seq, source: source, json: json, at: scanned.at)))
      case .snapshot:
        let state = try JournalLineScanner.payloadText(scanned.payload, in: line, what: "a state")
        records.append(.snapshot(seq: scanned.seq, state: state))
      case .travel(let kind, let to):
        let state = try JournalLineScanner.payloadText(scanned.payload, in: line, what: "a state")
        records.append(.travel(JournalTravel(seq: scanned.seq, kind: kind, to: to, state: state)))
      case .crash(let call, let action, let loss):
        records.append(.crash(JournalCrash(seq: scanned.seq, call: call, action: action, loss: loss)))
      case .reload(let reload):
        records.append(.reload(reload))
      case .refusal(let source, let action, let error):
        records.append(
          .refusal(JournalRefusal(seq: scanned.seq, source: source, action: action, error: error, at: scanned.at)))
      }
    }
    return (records, damage)
  }

  /// The records as a history to travel in.
  public func history() throws(HostError) -> JournalHistory {
    JournalHistory(path: path, records: try records())
  }

  /// Calls `body` for each record line from `offset` (line number `line`) to the end of the
  /// records. The lines were checked when the journal was read. A line `body` refuses is an
  /// error, or with `stoppingAtDamage` where the walk stops: it is returned.
  private func forEachRecord(
    from offset: Int, line number: Int, stoppingAtDamage: Bool = false,
    _ body: (UnsafeBufferPointer<UInt8>, Int, ScannedLine) throws(LineProblem) -> Void
  ) throws(HostError) -> JournalDamage? {
    let path = path
    let end = tail.recordsEnd
    return try bytes.withUnsafeBufferPointer { buffer throws(HostError) -> JournalDamage? in
      guard let base = buffer.baseAddress else { return nil }
      var offset = offset
      var number = number
      while offset < end {
        let lineEnd = JSONLinesFile.lineEnd(base, from: offset, to: end)
        let line = UnsafeBufferPointer(start: base + offset, count: lineEnd - offset)
        do throws(LineProblem) {
          try body(line, number, try JournalLineScanner.scan(line))
        } catch {
          let damage = JournalDamage(path: path, line: number, offset: offset, problem: error.message)
          if stoppingAtDamage { return damage }
          throw damage.error
        }
        offset = lineEnd + 1
        number += 1
      }
      return nil
    }
  }

  // MARK: - Checking

  struct Checked {
    var header: JournalHeader
    var lastSeq = 0
    var actionCount = 0
    var actionsSinceState = 0
    var lastActionAt: Int?
    var recordsStart: Int
    var lastState: (offset: Int, line: Int)?
    var tail = JSONLinesTail(recordsEnd: 0, tornTail: nil, endsWithNewline: true)
  }

  /// Checks a journal's bytes as they are read: the header once line 1 is whole, then each line
  /// once it ends (see `JSONLinesFile.scanLines`).
  struct Checker {
    let path: String
    let feature: String?
    private var checked: Checked?
    private var cursor = LineCursor(offset: 0, number: 2)
    private var finished = false

    init(path: String, feature: String?) {
      self.path = path
      self.feature = feature
    }

    /// Goes on with `buffer`, the bytes read so far (all of them when `atEnd`).
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>, atEnd: Bool) throws(HostError) {
      let path = path
      guard let base = buffer.baseAddress, buffer.count > 0 else {
        if atEnd { throw HostError(JournalFailure.empty(path: path)) }
        return
      }
      let count = buffer.count
      if checked == nil {
        let headerEnd = JSONLinesFile.lineEnd(base, from: 0, to: count)
        guard headerEnd < count || atEnd else { return }
        let header = try JournalHeader.parse(UnsafeRawBufferPointer(start: base, count: headerEnd), path: path)
        if let feature, header.feature != feature {
          throw HostError(JournalFailure.otherFeature(path: path, feature: header.feature, expected: feature))
        }
        checked = Checked(header: header, recordsStart: min(headerEnd + 1, count))
        cursor.offset = min(headerEnd + 1, count)
        // A header with nothing after it: whether it has its newline.
        cursor.endsWithNewline = headerEnd < count
      }
      guard var checked else { return }
      let tail = try JSONLinesFile.scanLines(
        buffer, cursor: &cursor, atEnd: atEnd, path: path,
        recognize: { line, isLast throws(LineProblem) in
          // A torn line can look like a record from its ends; only a full parse tells.
          try isLast ? JournalLineScanner.scanParsed(line) : JournalLineScanner.scan(line)
        },
        accept: { scanned, offset, number throws(HostError) in
          try Journal.accept(scanned, offset: offset, line: number, into: &checked, path: path)
        },
        damaged: { number, problem in Journal.damaged(path, line: number, problem.message) })
      checked.tail = tail
      self.checked = checked
      finished = atEnd
    }

    /// What the whole file was found to hold.
    func result() throws(HostError) -> Checked {
      guard finished, let checked else { throw HostError(JournalFailure.empty(path: path)) }
      return checked
    }
  }

  /// Checks one record line against those before it.
  private static func accept(
    _ scanned: ScannedLine, offset: Int, line number: Int, into checked: inout Checked, path: String
  ) throws(HostError) {
    switch scanned.kind {
    case .action:
      try follow(&checked, scanned.seq, path: path, line: number)
      checked.actionCount += 1
      checked.actionsSinceState += 1
      if let at = scanned.at { checked.lastActionAt = at }
    case .travel(_, let to):
      try follow(&checked, scanned.seq, path: path, line: number)
      if let to, to >= scanned.seq {
        throw damaged(
          path, line: number,
          "travels to seq \(to), which is not before its own seq \(scanned.seq)")
      }
      checked.lastState = (offset, number)
      checked.actionsSinceState = 0
    case .snapshot:
      try checkSeqUnchanged(checked.lastSeq, "is a snapshot of seq", scanned.seq, path: path, line: number)
      checked.lastState = (offset, number)
      checked.actionsSinceState = 0
    case .crash:
      // Like a snapshot, it names the state before it; it carries none.
      try checkSeqUnchanged(checked.lastSeq, "is a crash at seq", scanned.seq, path: path, line: number)
    case .reload:
      try checkSeqUnchanged(checked.lastSeq, "is a reload at seq", scanned.seq, path: path, line: number)
    case .refusal:
      try checkSeqUnchanged(checked.lastSeq, "is a refusal at seq", scanned.seq, path: path, line: number)
      if let at = scanned.at { checked.lastActionAt = at }
    }
  }

  /// Snapshots, crashes, reloads and refusals name the seq the records before them reached.
  private static func checkSeqUnchanged(_ lastSeq: Int, _ what: String, _ seq: Int, path: String, line: Int)
    throws(HostError)
  {
    guard seq == lastSeq else {
      throw damaged(path, line: line, "\(what) \(seq), but the records before it reach seq \(lastSeq)")
    }
  }

  /// Actions and travels number 1, 2, 3, ... in file order.
  private static func follow(_ checked: inout Checked, _ seq: Int, path: String, line: Int)
    throws(HostError)
  {
    let expected = checked.lastSeq + 1
    guard seq == expected else {
      let what =
        seq <= checked.lastSeq
        ? "has seq \(seq), which goes backwards (the line before reached \(checked.lastSeq))"
        : "has seq \(seq), but \(expected) comes next: a line is missing"
      throw damaged(path, line: line, what)
    }
    checked.lastSeq = seq
  }

  static func damaged(_ path: String, line: Int, _ what: String) -> HostError {
    HostError(JournalFailure.damaged(path: path, line: line, problem: what))
  }
}

/// A line in the middle of a journal that is not a record (its JSON does not parse): where a
/// restore or a replay that goes on despite it stops.
public struct JournalDamage: Sendable, Equatable {
  public var path: String
  /// Its 1-based line number.
  public var line: Int
  /// Where it starts in the file.
  public var offset: Int
  /// What is wrong with it ("has an action that is not JSON (...)").
  public var problem: String

  /// The damage as the error reading the whole journal gives.
  public var error: HostError { Journal.damaged(path, line: line, problem) }
}

/// A last line without `\n` that is not a record: what a crash in the middle of a write leaves.
public struct TornTail: Sendable, Equatable, CustomStringConvertible {
  public var path: String
  /// Its 1-based line number.
  public var line: Int
  /// Where it starts in the file: the size the file is cut to.
  public var offset: Int
  public var byteCount: Int

  public init(path: String, line: Int, offset: Int, byteCount: Int) {
    self.path = path
    self.line = line
    self.offset = offset
    self.byteCount = byteCount
  }

  public var description: String {
    "journal '\(path)' line \(line): the last line (\(byteCount) bytes) was torn by a crash and is ignored"
  }
}
