import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Watches files with inotify and reports the ones that changed, once they are ready.
///
/// Each file is watched through its folder, so a file rebuilt in place, replaced by a rename or
/// copied over is seen alike. A change is reported once no event came for `settle` (3 ms when
/// the last event said the writer is done: closed after writing, renamed into place) and the file
/// did not change meanwhile (same size and mtime), and `isReady` says it is whole (a build still
/// being written is waited for). Reports come on the watch's own thread, in order, one batch of
/// paths at a time; `cancel` (from any other thread) ends it.
public final class FileWatch: Sendable {
  /// What is watched.
  public enum Target: Sendable {
    /// These files.
    case files([String])
    /// Every file under `root` (folders made later too) that `matches` accepts; folders whose
    /// name starts with "." are skipped.
    case tree(root: String, matches: @Sendable (String) -> Bool)
  }

  private let watcher: Watcher
  private let finished = DispatchSemaphore(value: 0)

  /// Starts watching. Throws when inotify cannot be set up (the error names the folder).
  public init(
    _ target: Target, settle: Duration = .milliseconds(15),
    isReady: @escaping @Sendable (String) -> Bool = { _ in true },
    onChange: @escaping @Sendable ([String]) -> Void
  ) throws(HostError) {
    watcher = try Watcher(target: target, settle: settle, isReady: isReady, onChange: onChange)
    let watcher = self.watcher
    let finished = self.finished
    let thread = Thread {
      watcher.run()
      finished.signal()
    }
    thread.name = "featurehost.watch"
    thread.start()
  }

  /// Stops watching and waits for the watch's thread to end. Idempotent. Not from `onChange`.
  public func cancel() {
    guard watcher.requestStop() else { return }
    finished.wait()
  }

  deinit { cancel() }
}

/// The watch's state: touched by its own thread only, except the stop pipe.
// @unchecked: every field but `stopped` is used by the watch thread alone; `stopped` is atomic
// through its lock.
private final class Watcher: @unchecked Sendable {
  private let inotify: Int32
  private let stopRead: Int32
  private let stopWrite: Int32
  private let settle: Duration
  private let isReady: @Sendable (String) -> Bool
  private let onChange: @Sendable ([String]) -> Void
  private let accepts: @Sendable (String) -> Bool
  private let recursive: Bool
  private var folders: [Int32: String] = [:]
  private let lock = NSLock()
  private var stopped = false

  private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF)

  init(
    target: FileWatch.Target, settle: Duration, isReady: @escaping @Sendable (String) -> Bool,
    onChange: @escaping @Sendable ([String]) -> Void
  ) throws(HostError) {
    self.settle = settle
    self.isReady = isReady
    self.onChange = onChange
    inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
    guard inotify >= 0 else {
      throw HostError("cannot watch files: inotify_init1 failed: \(String(cString: strerror(errno)))")
    }
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else {
      close(inotify)
      throw HostError("cannot watch files: pipe failed: \(String(cString: strerror(errno)))")
    }
    for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    stopRead = pipeEnds[0]
    stopWrite = pipeEnds[1]
    let roots: [String]
    switch target {
    case .files(let files):
      let paths = Set(files.map { URL(fileURLWithPath: $0).standardizedFileURL.path })
      accepts = { paths.contains($0) }
      recursive = false
      roots = Array(Set(paths.map { URL(fileURLWithPath: $0).deletingLastPathComponent().path })).sorted()
    case .tree(let root, let matches):
      accepts = matches
      recursive = true
      roots = [URL(fileURLWithPath: root).standardizedFileURL.path]
    }
    do throws(HostError) {
      for root in roots { try add(root) }
    } catch {
      close(inotify)
      close(stopRead)
      close(stopWrite)
      throw error
    }
  }

  deinit {
    close(inotify)
    close(stopRead)
    close(stopWrite)
  }

  /// Asks the thread to end; false when it was asked before.
  func requestStop() -> Bool {
    lock.lock()
    defer { lock.unlock() }
    guard !stopped else { return false }
    stopped = true
    var byte: UInt8 = 1
    _ = write(stopWrite, &byte, 1)
    return true
  }

  private func add(_ folder: String) throws(HostError) {
    let descriptor = inotify_add_watch(inotify, folder, Self.events | UInt32(IN_ONLYDIR))
    guard descriptor >= 0 else {
      throw HostError(
        "cannot watch '\(folder)': \(String(cString: strerror(errno)))", help: "check that the folder exists")
    }
    folders[descriptor] = folder
    guard recursive else { return }
    let children = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    for child in children.sorted() where !child.hasPrefix(".") {
      var isFolder: ObjCBool = false
      let path = "\(folder)/\(child)"
      if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
        try? add(path)
      }
    }
  }

  /// The size and mtime of a file, to tell whether it changed while the watch waited.
  private static func identity(_ path: String) -> [Int] {
    var info = stat()
    guard stat(path, &info) == 0 else { return [] }
    return [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
  }

  /// A file that changed, waiting for quiet.
  private struct Pending {
    /// Its identity when the last event came.
    var identity: [Int]
    /// When the last event came.
    var since: UInt64
    /// Whether that event said the writer is done (closed it after writing, renamed it into
    /// place, changed only its metadata): then a short quiet is enough.
    var done: Bool
  }

  /// The quiet a finished write waits for (a build tool may still touch the file, e.g. chmod).
  private static let doneQuiet: UInt64 = 3_000_000

  func run() {
    let settleNanoseconds =
      UInt64(settle.components.seconds) * 1_000_000_000
      + UInt64(settle.components.attoseconds / 1_000_000_000)
    func quiet(_ entry: Pending) -> UInt64 { entry.done ? min(Self.doneQuiet, settleNanoseconds) : settleNanoseconds }
    var pending: [String: Pending] = [:]
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    defer { buffer.deallocate() }
    while true {
      var timeout: Int32 = -1
      let now = DispatchTime.now().uptimeNanoseconds
      if let due = pending.values.map({ $0.since &+ quiet($0) }).min() {
        timeout = due <= now ? 0 : Int32((due - now + 999_999) / 1_000_000)
      }
      var polled = [
        pollfd(fd: inotify, events: Int16(POLLIN), revents: 0), pollfd(fd: stopRead, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&polled, 2, timeout)
      if ready < 0 {
        if errno == EINTR { continue }
        return
      }
      if polled[1].revents != 0 { return }
      if polled[0].revents != 0 {
        let now = DispatchTime.now().uptimeNanoseconds
        for (path, done) in readEvents(buffer) where accepts(path) {
          pending[path] = Pending(identity: Self.identity(path), since: now, done: done)
        }
        continue
      }
      // Quiet long enough: report what is whole and did not change meanwhile.
      var changed: [String] = []
      let checked = DispatchTime.now().uptimeNanoseconds
      for (path, entry) in pending.sorted(by: { $0.key < $1.key }) where entry.since &+ quiet(entry) <= checked {
        let identity = Self.identity(path)
        if identity.isEmpty {
          // Gone (removed, or between a delete and a rename): wait for the next event.
          pending[path] = nil
        } else if identity != entry.identity || !isReady(path) {
          // Still being written: check again after another quiet spell.
          pending[path] = Pending(identity: identity, since: checked, done: false)
        } else {
          pending[path] = nil
          changed.append(path)
        }
      }
      if !changed.isEmpty { onChange(changed) }
    }
  }

  /// Reads the queued events; returns the paths they name, each with whether the event says its
  /// writer is done (new folders of a tree are watched).
  private func readEvents(_ buffer: UnsafeMutableRawBufferPointer) -> [(String, Bool)] {
    guard let base = buffer.baseAddress else { return [] }
    var paths: [(String, Bool)] = []
    while true {
      let count = read(inotify, base, buffer.count)
      if count <= 0 { break }
      var offset = 0
      while offset + MemoryLayout<inotify_event>.size <= count {
        let event = base.advanced(by: offset).assumingMemoryBound(to: inotify_event.self)
        let nameLength = Int(event.pointee.len)
        let start = offset + MemoryLayout<inotify_event>.size
        offset = start + nameLength
        guard nameLength > 0, let folder = folders[event.pointee.wd] else { continue }
        let name = String(cString: base.advanced(by: start).assumingMemoryBound(to: CChar.self))
        let path = "\(folder)/\(name)"
        if recursive, event.pointee.mask & UInt32(IN_ISDIR) != 0, !name.hasPrefix(".") {
          try? add(path)
          continue
        }
        paths.append((path, event.pointee.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB) != 0))
      }
    }
    return paths
  }
}
