import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One line of `host sessions`: a session's name, feature, size and last change.
public struct SessionSummary: Sendable, Equatable {
  public var name: String
  public var path: String
  /// The feature id from the header; nil when the header cannot be read (see `problem`).
  public var feature: String?
  /// Action lines in the journal, undone ones included (a torn last line is not counted).
  public var actions: Int
  /// The journal file's modification time.
  public var lastChange: Date
  /// Why the journal cannot be read, when it cannot.
  public var problem: String?

  public init(
    name: String, path: String, feature: String?, actions: Int, lastChange: Date, problem: String?
  ) {
    self.name = name
    self.path = path
    self.feature = feature
    self.actions = actions
    self.lastChange = lastChange
    self.problem = problem
  }

  /// Reads the header and counts lines that start like an action, in chunks, without parsing them.
  static func read(name: String, path: String) -> SessionSummary {
    var summary = SessionSummary(
      name: name, path: path, feature: nil, actions: 0, lastChange: Date(timeIntervalSince1970: 0),
      problem: nil)
    let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
    guard fd >= 0 else {
      summary.problem = "cannot open it: \(JournalFile.describe(errno))"
      return summary
    }
    defer { close(fd) }
    var info = stat()
    if fstat(fd, &info) == 0 {
      summary.lastChange = Date(
        timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
      if let kind = RegularFile.kind(of: info.st_mode) {
        summary.problem = "it is \(kind), not a regular file"
        return summary
      }
    }
    var counter = ActionLineCounter()
    let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
    defer { chunk.deallocate() }
    while true {
      let got = Glibc.read(fd, chunk.baseAddress, chunk.count)
      if got < 0 && errno == EINTR { continue }
      if got < 0 {
        summary.problem = "cannot read it: \(JournalFile.describe(errno))"
        return summary
      }
      if got == 0 { break }
      guard counter.feed(UnsafeRawBufferPointer(rebasing: chunk[..<got])) else { break }
    }
    // A header without its newline is still read: a journal may hold nothing else.
    let header = counter.header ?? counter.headerBytes
    guard !header.isEmpty else {
      summary.problem = "it is empty"
      return summary
    }
    do {
      let parsed = try header.withUnsafeBytes { bytes in
        Result { () throws(HostError) in try JournalHeader.parse(bytes, path: path) }
      }.get()
      summary.feature = parsed.feature
    } catch {
      summary.problem = error.message
    }
    summary.actions = counter.actions
    return summary
  }
}

/// Counts complete lines that begin with `{"action":`, fed in chunks; keeps line 1 aside.
private struct ActionLineCounter {
  private static let prefix = Array(#"{"action":"#.utf8)
  private static let maxHeaderBytes = 1 << 20

  var headerBytes: [UInt8] = []
  var header: [UInt8]?
  var actions = 0
  private var start: [UInt8] = []
  private var inLine = false
  private var lineIsAction = false

  /// Returns false once the header is too long to be one.
  mutating func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var index = 0
    if header == nil {
      let end = memchr(base, Int32(JournalByte.newline), bytes.count).map {
        $0 - UnsafeMutableRawPointer(mutating: base)
      }
      headerBytes.append(contentsOf: bytes[..<(end ?? bytes.count)])
      guard let end else { return headerBytes.count <= Self.maxHeaderBytes }
      header = headerBytes
      index = end + 1
    }
    while index < bytes.count {
      if !inLine {
        // Collect the first bytes of the line, which may straddle chunks.
        while index < bytes.count, start.count < Self.prefix.count,
          bytes[index] != JournalByte.newline
        {
          start.append(bytes[index])
          index += 1
        }
        guard index < bytes.count else { return true }
        lineIsAction = start == Self.prefix
        start.removeAll(keepingCapacity: true)
        inLine = true
      }
      guard let newline = memchr(base + index, Int32(JournalByte.newline), bytes.count - index)
      else {
        return true
      }
      if lineIsAction { actions += 1 }
      inLine = false
      index = newline - UnsafeMutableRawPointer(mutating: base) + 1
    }
    return true
  }
}
