import Foundation
import HostKit

/// A fresh folder for one test under $TMPDIR (mkdtemp), removed when the value goes away.
final class JournalScratch {
  let path: String

  init() throws {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/journal-tests.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      throw JournalTestError("mkdtemp failed: errno \(errno)")
    }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  func file(_ name: String) -> String { "\(path)/\(name)" }

  func write(_ name: String, _ text: String) throws { try write(name, Array(text.utf8)) }

  func write(_ name: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: file(name)))
  }

  func text(_ name: String) throws -> String {
    try String(contentsOfFile: file(name), encoding: .utf8)
  }

  func size(_ name: String) throws -> Int {
    (try FileManager.default.attributesOfItem(atPath: file(name))[.size] as? Int) ?? -1
  }

  /// Creates the counter journal `name` here, with `JournalFixtures.header`, and appends
  /// `increments` increments by the user; returns its path and its writer, still open.
  func counterJournal(_ name: String = "s.jsonl", increments: Int) throws -> (path: String, writer: JournalWriter) {
    let path = file(name)
    let writer = try JournalWriter.create(at: path, header: JournalFixtures.header)
    for _ in 0..<increments { try writer.append(action: JournalFixtures.increment, source: .user) }
    return (path, writer)
  }
}
