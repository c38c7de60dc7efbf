import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// The devtools page's costs (issue 27): how fast an applied action reaches a reader of the event
// stream, how long a 1,000,000-action journal takes to open, and what --devtools costs a run.

/// A counter store whose events go to `hub` (as a run's listeners do), presented as feature 1.
private func storeHeard(by hub: DevtoolsHub?) throws -> (Store, PresentedFeature) {
  let plugin = loadPlugin("Counter")
  let fanOut = StoreListeners(plugin: plugin, stage: nil, listeners: hub.map { [$0] } ?? [])
  let store = try Store(plugin: plugin, observer: fanOut.observer)
  let feature = PresentedFeature(plugin: plugin, store: store, number: 1)
  fanOut.attach(feature)
  try store.start()
  _ = store.waitUntilSettled(timeout: .seconds(60))
  return (store, feature)
}

/// A page's event stream over HTTP from libmicrohttpd: a socket that has asked for /api/events.
private final class EventReader {
  let fd: Int32
  init(port: UInt16) {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    let connected = withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    precondition(connected == 0, "cannot connect to the devtools server")
    let request = Array("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
  }

  /// Reads until `count` events named `name` have come.
  func waitFor(_ name: String, count: Int = 1) {
    var seen = 0
    var text = ""
    var buffer = [UInt8](repeating: 0, count: 65536)
    let marker = "event: \(name)\n"
    while seen < count {
      let read = Glibc.read(fd, &buffer, buffer.count)
      precondition(read > 0, "the event stream ended")
      text += String(decoding: buffer[0..<read], as: UTF8.self)
      while let range = text.range(of: marker) {
        seen += 1
        text = String(text[range.upperBound...])
      }
    }
  }

  /// Reads everything that comes on a thread of its own until the stream ends, as an open page
  /// does; the thread ends with the stream.
  func drain() {
    let fd = self.fd
    Thread.detachNewThread {
      var buffer = [UInt8](repeating: 0, count: 65536)
      while Glibc.read(fd, &buffer, buffer.count) > 0 {}
    }
  }

  deinit { close(fd) }
}

/// A server whose every request is a page's event stream from `hub`.
private func eventServer(_ hub: DevtoolsHub) throws -> HTTPServer {
  try HTTPServer(queries: [], cookies: []) { _ in .events(hub.subscribe()) }
}

/// From sending an action to its `applied` event read at the page's socket: median and p95, µs.
func devtoolsPushLatency(samples: Int) throws -> (median: Double, p95: Double) {
  let hub = DevtoolsHub()
  let server = try eventServer(hub)
  defer {
    hub.endAll()
    server.stop()
  }
  let reader = EventReader(port: server.port)
  // The stream is open once the hub counts the reader.
  while !hub.hasReaders { usleep(100) }
  // The hub hears a presented feature's events: the feature is held as the navigation holds it.
  let (store, feature) = try storeHeard(by: hub)
  defer { withExtendedLifetime(feature) { _ = store.stop() } }
  // The lifecycle action's event first: each sample then reads its own action's event.
  reader.waitFor("applied")
  var times: [Double] = []
  for _ in 0..<samples {
    let elapsed = seconds {
      store.send(#"{"type":"increment"}"#, source: .user)
      reader.waitFor("applied")
    }
    times.append(elapsed * 1e6)
  }
  times.sort()
  return (times[times.count / 2], times[Int(Double(times.count) * 0.95)])
}

/// Opening a recorded journal of `actions` actions as `host devtools` does: read, the last page
/// of its log, and the state at its last seq. Milliseconds.
func devtoolsOpen(actions: Int) throws -> Double {
  let folder = NSTemporaryDirectory() + "devtools-bench-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let path = "\(folder)/counter.jsonl"
  let plugin = loadPlugin("Counter")
  try writeCounterSession(at: path, plugin: plugin, actions: actions)
  var state = ""
  let elapsed = try seconds {
    let subject = try RecordedDevtools(path: path, instances: .inProcess) { _, _ in plugin }
    let timeline = try subject.timeline(1)
    _ = try timeline.logPage(from: actions - 200, count: 200)
    state = try timeline.state(at: actions, skipping: [])
  }
  precondition(state == #"{"clicks":\#(actions - 1),"count":\#(actions - 1)}"#, "opened at \(state)")
  return elapsed * 1000
}

/// Skipping the first increment of a journal of `actions` actions: the state at its last seq
/// recomputed without it. Milliseconds.
func devtoolsSkip(actions: Int) throws -> Double {
  let folder = NSTemporaryDirectory() + "devtools-skip-\(getpid())"
  try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: folder) }
  let path = "\(folder)/counter.jsonl"
  let plugin = loadPlugin("Counter")
  try writeCounterSession(at: path, plugin: plugin, actions: actions)
  let subject = try RecordedDevtools(path: path, instances: .inProcess) { _, _ in plugin }
  let timeline = try subject.timeline(1)
  var state = ""
  let elapsed = try seconds { state = try timeline.state(at: actions, skipping: [2]) }
  precondition(state == #"{"clicks":\#(actions - 2),"count":\#(actions - 2)}"#, "skipped to \(state)")
  return elapsed * 1000
}

/// ns per action of a counter store heard by `hub` (nil: none), with a page reading or not.
func devtoolsDispatch(actions: Int, hub: DevtoolsHub?, reading: Bool) throws -> Double {
  var server: HTTPServer?
  var reader: EventReader?
  if reading, let hub {
    server = try eventServer(hub)
    reader = EventReader(port: server?.port ?? 0)
    while !hub.hasReaders { usleep(100) }
    reader?.drain()
  }
  defer {
    hub?.endAll()
    server?.stop()
  }
  let (store, feature) = try storeHeard(by: hub)
  defer { withExtendedLifetime(feature) { _ = store.stop() } }
  let increment = #"{"type":"increment"}"#
  let elapsed = seconds {
    for _ in 0..<actions { store.send(increment, source: .user) }
    _ = store.waitUntilSettled(timeout: .seconds(600))
  }
  // Ended after the server: its stream ends first, then the drain reads the end.
  withExtendedLifetime(reader) {}
  return elapsed * 1e9 / Double(actions)
}
