import FeatureJSON
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where a session's navigation stood after each step: the frames on the stack, each feature with
/// the journal that holds its state. Restoring the session re-presents the last stack, every
/// feature restored from its journal; `host replay` shows the path.
///
/// JSON Lines, one file per session (`NAME.d/navigation.jsonl` beside `NAME.jsonl`):
///
///     {"created":"…","flow":"main","format":1,"host":"0.1.0","journal":"featurehost-navigation"}
///     {"frames":[{"features":[{"feature":"home","journal":"demo.jsonl"}],"focus":0}],"seq":1,"step":"start"}
///
/// Journal paths are relative to the sessions folder. Every line is made durable before the
/// navigation it records is shown; a torn last line (a crash mid-write) is ignored. The file is
/// a `JSONLinesFile`, locked and created as a feature journal is.
// @unchecked: appended to by the coordinator, one navigation at a time.
public final class NavigationJournal: @unchecked Sendable {
  public struct Feature: Sendable, Equatable {
    public var id: String
    /// The feature's journal, relative to the sessions folder.
    public var journal: String

    public init(id: String, journal: String) {
      self.id = id
      self.journal = journal
    }
  }

  public struct Frame: Sendable, Equatable {
    public var features: [Feature]
    public var focus: Int

    public init(features: [Feature], focus: Int) {
      self.features = features
      self.focus = focus
    }
  }

  public struct Record: Sendable, Equatable {
    public var seq: Int
    public var step: String
    public var frames: [Frame]
  }

  public static let marker = "featurehost-navigation"

  /// Whether `file` is a session's navigation journal rather than a feature's (its header names
  /// the marker), without reading more than its start.
  public static func isNavigationJournal(_ file: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: file) else { return false }
    defer { try? handle.close() }
    let start = String(decoding: (try? handle.read(upToCount: 512)) ?? Data(), as: UTF8.self)
    return start.contains("\"journal\":\"\(marker)\"")
  }

  public let path: String
  private let file: JSONLinesFile
  private var seq: Int

  private init(file: JSONLinesFile, seq: Int) {
    self.path = file.path
    self.file = file
    self.seq = seq
  }

  /// Creates the navigation journal of a new session (and its folder), locked by this process
  /// until `close`. Like a feature journal it appears whole or not at all and never replaces
  /// one: a second host creating the same session gets `JournalFailure.inUse`.
  public static func create(at path: String, flow: String) throws(HostError) -> NavigationJournal {
    try JournalFile.makeFolder(JournalFile.directory(of: path))
    let header: JSONValue = [
      "journal": .string(marker), "format": 1, "flow": .string(flow), "host": .string(HostVersion.string),
      "created": .string(UTCTime.now),
    ]
    var line = Array(header.serialized().utf8)
    line.append(JournalByte.newline)
    return NavigationJournal(file: try JSONLinesFile.create(at: path, header: line, limits: limits), seq: 0)
  }

  /// Reads a navigation journal: its flow and every complete record. A torn last line is left out.
  public static func read(at path: String) throws(HostError) -> (flow: String, records: [Record], torn: Bool) {
    let fd = try JournalFile.open(path, O_RDONLY)
    defer { Glibc.close(fd) }
    var checker = Checker(path: path)
    _ = try JournalFile.readAll(
      fd, path: path, progress: { buffer, atEnd throws(HostError) in try checker.feed(buffer, atEnd: atEnd) })
    let (contents, tail) = try checker.result()
    return (contents.flow, contents.records, tail.tornTail != nil)
  }

  /// Opens an existing navigation journal to go on appending, locked by this process until
  /// `close` (`JournalFailure.inUse` while another host has it); returns it with its last
  /// record. A torn last line is cut.
  public static func open(at path: String) throws(HostError) -> (journal: NavigationJournal, last: Record?, torn: Bool)
  {
    var checker = Checker(path: path)
    var torn = false
    let (file, contents) = try JSONLinesFile.open(
      at: path, limits: limits,
      progress: { buffer, atEnd throws(HostError) in try checker.feed(buffer, atEnd: atEnd) },
      check: { _ throws(HostError) in
        let (contents, tail) = try checker.result()
        torn = tail.tornTail != nil
        return (contents, tail)
      })
    let last = contents.records.last
    return (NavigationJournal(file: file, seq: last?.seq ?? 0), last, torn)
  }

  /// Records the stack after a navigation, durably. When the write fails (a full disk) the
  /// record stays pending and is written again, before anything else, by every later `append`
  /// and by `close`: a failed step is late, never lost or out of order.
  public func append(step: String, frames: [Frame]) throws(HostError) {
    try file.checkUsable()
    let record: JSONValue = [
      "seq": .number(.int(Int64(seq + 1))), "step": .string(step),
      "frames": .array(
        frames.map { frame in
          [
            "focus": .number(.int(Int64(frame.focus))),
            "features": .array(
              frame.features.map { ["feature": .string($0.id), "journal": .string($0.journal)] }),
          ]
        }),
    ]
    record.serialized(into: &file.pending)
    file.pending.append(JournalByte.newline)
    seq += 1
    try file.lineAppended()
    try file.commit()
  }

  /// Whether records are waiting for a write that failed.
  public var isUnsaved: Bool { file.isFailing }

  /// Writes what is pending and closes the file, releasing the lock; returns the error of that
  /// last write, when records could not be saved.
  @discardableResult
  public func close() -> HostError? {
    do throws(HostError) {
      try file.close()
      return nil
    } catch {
      if case .closed = error.failure as? JournalFailure { return nil }
      return error
    }
  }

  /// Every line is committed as it is appended: a navigation is durable before it is shown.
  private static let limits = GroupCommitLimits(maxLines: 1)

  private struct Contents {
    var flow: String
    var records: [Record] = []
  }

  /// Checks the header and every record as the file is read (see `JSONLinesFile.scanLines`); a
  /// last line without `\n` that is not a record is a torn tail.
  private struct Checker {
    let path: String
    private var contents: Contents?
    private var cursor = LineCursor(offset: 0, number: 2)
    private var tail: JSONLinesTail?

    init(path: String) { self.path = path }

    /// Goes on with `buffer`, the bytes read so far (all of them when `atEnd`).
    mutating func feed(_ buffer: UnsafeBufferPointer<UInt8>, atEnd: Bool) throws(HostError) {
      let path = path
      guard let base = buffer.baseAddress, !buffer.isEmpty else {
        if atEnd { throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: NavigationJournal.marker)) }
        return
      }
      if contents == nil {
        let headerEnd = JSONLinesFile.lineEnd(base, from: 0, to: buffer.count)
        if headerEnd == buffer.count && !atEnd {
          guard headerEnd <= JournalFile.maxHeaderBytes else {
            throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: NavigationJournal.marker))
          }
          return
        }
        let first = UnsafeRawBufferPointer(start: base, count: headerEnd)
        guard let header = try? JSONValue.parse(bytes: first),
          header["journal"]?.stringValue == NavigationJournal.marker,
          let flow = header["flow"]?.stringValue
        else {
          throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: NavigationJournal.marker))
        }
        guard (header["format"]?.intValue ?? 0) <= 1 else {
          throw HostError(
            JournalFailure.navigationFormatTooNew(path: path, format: header["format"]?.serialized() ?? "?"))
        }
        contents = Contents(flow: flow)
        cursor.offset = min(headerEnd + 1, buffer.count)
        cursor.endsWithNewline = headerEnd < buffer.count
      }
      guard var contents else { return }
      tail = try JSONLinesFile.scanLines(
        buffer, cursor: &cursor, atEnd: atEnd, path: path,
        recognize: { line, _ throws(LineProblem) in try NavigationJournal.parse(line) },
        accept: { record, _, _ in contents.records.append(record) },
        damaged: { number, _ in HostError(JournalFailure.notNavigationRecord(path: path, line: number)) })
      self.contents = contents
      if !atEnd { tail = nil }
    }

    /// What the whole file was found to hold, and how its lines end.
    func result() throws(HostError) -> (Contents, JSONLinesTail) {
      guard let contents, let tail else {
        throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: NavigationJournal.marker))
      }
      return (contents, tail)
    }
  }

  private static func parse(_ line: UnsafeBufferPointer<UInt8>) throws(LineProblem) -> Record {
    let problem = LineProblem(message: "is not a navigation record")
    guard let value = try? JSONValue.parse(bytes: UnsafeRawBufferPointer(line)),
      let seq = value["seq"]?.intValue, let step = value["step"]?.stringValue,
      let frames = value["frames"]?.arrayValue
    else { throw problem }
    var parsed: [Frame] = []
    for frame in frames {
      guard let features = frame["features"]?.arrayValue else { throw problem }
      var list: [Feature] = []
      for feature in features {
        guard let id = feature["feature"]?.stringValue, let journal = feature["journal"]?.stringValue else {
          throw problem
        }
        list.append(Feature(id: id, journal: journal))
      }
      parsed.append(Frame(features: list, focus: Int(frame["focus"]?.intValue ?? 0)))
    }
    return Record(seq: Int(seq), step: step, frames: parsed)
  }
}
