import FeatureJSON
import Foundation

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
/// navigation it records is shown; a torn last line (a crash mid-write) is ignored.
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
  private let handle: FileHandle
  private var seq: Int

  private init(path: String, handle: FileHandle, seq: Int) {
    self.path = path
    self.handle = handle
    self.seq = seq
  }

  /// Creates the navigation journal of a new session.
  public static func create(at path: String, flow: String) throws(HostError) -> NavigationJournal {
    let folder = (path as NSString).deletingLastPathComponent
    do {
      try FileManager.default.createDirectory(
        atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    } catch {
      throw HostError("cannot create '\(folder)': \(error.localizedDescription)")
    }
    guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
      let handle = FileHandle(forWritingAtPath: path)
    else {
      throw HostError("cannot create the navigation journal '\(path)'", help: "check the sessions folder is writable")
    }
    let journal = NavigationJournal(path: path, handle: handle, seq: 0)
    let header: JSONValue = [
      "journal": .string(marker), "format": 1, "flow": .string(flow), "host": .string(HostVersion.string),
      "created": .string(ISO8601DateFormatter().string(from: Date())),
    ]
    try journal.write(header)
    return journal
  }

  /// Reads a navigation journal: its flow and every complete record. A torn last line is left out.
  public static func read(at path: String) throws(HostError) -> (flow: String, records: [Record], torn: Bool) {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw HostError("cannot read the navigation journal '\(path)'", help: "check the path")
    }
    let text = String(decoding: data, as: UTF8.self)
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var torn = false
    if lines.last == "" {
      lines.removeLast()
    } else if !lines.isEmpty, (try? JSONValue.parse(lines[lines.count - 1])) == nil {
      lines.removeLast()
      torn = true
    }
    guard let first = lines.first, let header = try? JSONValue.parse(first),
      header["journal"]?.stringValue == marker, let flow = header["flow"]?.stringValue
    else {
      throw HostError("'\(path)' line 1: not a navigation journal", help: "pass a session's navigation.jsonl")
    }
    guard (header["format"]?.intValue ?? 0) <= 1 else {
      throw HostError(
        "'\(path)' line 1: format \(header["format"]?.serialized() ?? "?") is newer than 1", help: "use a newer host")
    }
    var records: [Record] = []
    for (index, line) in lines.enumerated().dropFirst() {
      guard let record = try? parse(line) else {
        throw HostError("'\(path)' line \(index + 1): not a navigation record", help: "cut the file before that line")
      }
      records.append(record)
    }
    return (flow, records, torn)
  }

  /// Opens an existing navigation journal to go on appending; returns it with its last record.
  public static func open(at path: String) throws(HostError) -> (journal: NavigationJournal, last: Record?, torn: Bool)
  {
    let (_, records, torn) = try read(at: path)
    guard let handle = FileHandle(forUpdatingAtPath: path) else {
      throw HostError("cannot open the navigation journal '\(path)' for writing")
    }
    if torn {
      // Cut the torn line, so the next record starts a line of its own.
      let text = String(decoding: FileManager.default.contents(atPath: path) ?? Data(), as: UTF8.self)
      let keep = text.utf8.count - (text.split(separator: "\n", omittingEmptySubsequences: false).last?.utf8.count ?? 0)
      try? handle.truncate(atOffset: UInt64(keep))
    }
    _ = try? handle.seekToEnd()
    return (NavigationJournal(path: path, handle: handle, seq: records.last?.seq ?? 0), records.last, torn)
  }

  /// Records the stack after a navigation, durably.
  public func append(step: String, frames: [Frame]) throws(HostError) {
    seq += 1
    let record: JSONValue = [
      "seq": .number(.int(Int64(seq))), "step": .string(step),
      "frames": .array(
        frames.map { frame in
          [
            "focus": .number(.int(Int64(frame.focus))),
            "features": .array(
              frame.features.map { ["feature": .string($0.id), "journal": .string($0.journal)] }),
          ]
        }),
    ]
    try write(record)
  }

  public func close() { try? handle.close() }

  private func write(_ value: JSONValue) throws(HostError) {
    do {
      try handle.write(contentsOf: Data((value.serialized() + "\n").utf8))
      try handle.synchronize()
    } catch {
      throw HostError("cannot write the navigation journal '\(path)': \(error.localizedDescription)")
    }
  }

  private static func parse(_ line: String) throws -> Record {
    let value = try JSONValue.parse(line)
    guard let seq = value["seq"]?.intValue, let step = value["step"]?.stringValue,
      let frames = value["frames"]?.arrayValue
    else { throw HostError("missing fields") }
    return Record(
      seq: Int(seq), step: step,
      frames: try frames.map { frame in
        guard let features = frame["features"]?.arrayValue else { throw HostError("missing features") }
        return Frame(
          features: try features.map { feature in
            guard let id = feature["feature"]?.stringValue, let journal = feature["journal"]?.stringValue else {
              throw HostError("missing feature")
            }
            return Feature(id: id, journal: journal)
          }, focus: Int(frame["focus"]?.intValue ?? 0))
      })
  }
}
