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
      "created": .string(ISO8601DateFormatter().string(from: Date())),
    ]
    var line = Array(header.serialized().utf8)
    line.append(JournalByte.newline)
    return NavigationJournal(file: try JSONLinesFile.create(at: path, header: line, limits: limits), seq: 0)
  }

  /// Reads a navigation journal: its flow and every complete record. A torn last line is left out.
  public static func read(at path: String) throws(HostError) -> (flow: String, records: [Record], torn: Bool) {
    let fd = try JournalFile.open(path, O_RDONLY)
    defer { Glibc.close(fd) }
    let (contents, tail) = try check(JournalFile.readAll(fd, path: path), path: path)
    return (contents.flow, contents.records, tail.tornTail != nil)
  }

  /// Opens an existing navigation journal to go on appending, locked by this process until
  /// `close` (`JournalFailure.inUse` while another host has it); returns it with its last
  /// record. A torn last line is cut.
  public static func open(at path: String) throws(HostError) -> (journal: NavigationJournal, last: Record?, torn: Bool)
  {
    var torn = false
    let (file, contents) = try JSONLinesFile.open(at: path, limits: limits) {
      bytes throws(HostError) in
      let (contents, tail) = try check(bytes, path: path)
      torn = tail.tornTail != nil
      return (contents, tail)
    }
    let last = contents.records.last
    return (NavigationJournal(file: file, seq: last?.seq ?? 0), last, torn)
  }

  /// Records the stack after a navigation, durably.
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
    try file.lineAppended()
    try file.commit()
    seq += 1
  }

  /// Closes the file, releasing the lock.
  public func close() { try? file.close() }

  /// Every line is committed as it is appended: a navigation is durable before it is shown.
  private static let limits = GroupCommitLimits(maxLines: 1)

  private struct Contents {
    var flow: String
    var records: [Record] = []
  }

  /// Checks the header and every record; a last line without `\n` that is not a record is a
  /// torn tail.
  private static func check(_ bytes: [UInt8], path: String) throws(HostError) -> (Contents, JSONLinesTail) {
    try bytes.withUnsafeBufferPointer { buffer throws(HostError) in
      guard let base = buffer.baseAddress, !buffer.isEmpty else {
        throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: marker))
      }
      let headerEnd = JSONLinesFile.lineEnd(base, from: 0, to: buffer.count)
      let first = UnsafeRawBufferPointer(start: base, count: headerEnd)
      guard let header = try? JSONValue.parse(bytes: first), header["journal"]?.stringValue == marker,
        let flow = header["flow"]?.stringValue
      else {
        throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: marker))
      }
      guard (header["format"]?.intValue ?? 0) <= 1 else {
        throw HostError(
          JournalFailure.navigationFormatTooNew(path: path, format: header["format"]?.serialized() ?? "?"))
      }
      var contents = Contents(flow: flow)
      var tail = try JSONLinesFile.scanLines(
        buffer, from: min(headerEnd + 1, buffer.count), line: 2, path: path,
        recognize: { line, _ throws(LineProblem) in try parse(line) },
        accept: { record, _, _ in contents.records.append(record) },
        damaged: { number, _ in HostError(JournalFailure.notNavigationRecord(path: path, line: number)) })
      if headerEnd == buffer.count { tail.endsWithNewline = false }
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
