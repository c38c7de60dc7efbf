import FeatureTesting
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that stands in for thecatapi in tests.
///
/// Binds port 0 and reads the port back, so tests never collide. Each connection gets the next
/// reply of the script (the last one repeats), on its own thread, then `Connection: close`.
/// It records every request target and every connection the client closed while it was held.
final class LoopbackServer: Sendable {
  enum Reply: Sendable {
    /// A catalog of `total` images, sliced by the request's `limit` and `offset`.
    case page(total: Int)
    /// This status code and an empty JSON array.
    case status(Int)
    /// 200 with this body as it is.
    case body(String)
    /// No answer at all: hold the connection until the client closes it (or the server stops).
    case hold
  }

  private struct Record {
    var replies: [Reply]
    var targets: [String] = []
    var closedByClient = 0
    var openSockets: Set<Int32> = []
    var stopping = false
  }

  let port: Int
  private let listener: Int32
  private let record: Mutex<Record>
  private let changed = NSCondition()
  private let acceptLoopDone = DispatchSemaphore(value: 0)

  /// Starts listening and serving `replies` in order.
  init(_ replies: Reply...) throws {
    precondition(!replies.isEmpty, "a server needs at least one reply")
    record = Mutex(Record(replies: replies))
    (listener, port) = try LoopbackSocket.bind(listening: 16)
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  /// The thecatapi-like endpoint on this server.
  var endpoint: String { "http://127.0.0.1:\(port)/v1/images/search" }

  /// The request URL the client sends for a page.
  func requestURL(limit: Int, offset: Int) -> String {
    "\(endpoint)?limit=\(limit)&offset=\(offset)"
  }

  /// The URL of image `index` in every served catalog.
  static func imageURL(_ index: Int) -> String { "https://cdn2.thecatapi.com/images/t\(index).jpg" }

  /// The request targets received so far (`/v1/images/search?limit=3&offset=0`), in order.
  var targets: [String] { record.withLock { $0.targets } }

  /// Held connections the client closed so far.
  var closedByClient: Int { record.withLock { $0.closedByClient } }

  /// Waits until `count` requests have arrived; false if `timeout` passed first.
  func waitForRequests(_ count: Int, timeout: TimeInterval = 10) -> Bool {
    wait(timeout: timeout) { $0.targets.count >= count }
  }

  /// Waits until the client has closed `count` held connections; false if `timeout` passed first.
  func waitForClientClose(_ count: Int = 1, timeout: TimeInterval = 10) -> Bool {
    wait(timeout: timeout) { $0.closedByClient >= count }
  }

  /// Stops accepting and closes every connection still open.
  func stop() {
    let open = record.withLock { record in
      record.stopping = true
      return record.openSockets
    }
    shutdown(listener, Int32(SHUT_RDWR))
    acceptLoopDone.wait()
    close(listener)
    for socket in open { shutdown(socket, Int32(SHUT_RDWR)) }
  }

  // MARK: - Serving

  private func wait(timeout: TimeInterval, until condition: (Record) -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    changed.lock()
    defer { changed.unlock() }
    while !record.withLock({ condition($0) }) {
      if !changed.wait(until: deadline) { return record.withLock { condition($0) } }
    }
    return true
  }

  private func update(_ body: (inout Record) -> Void) {
    changed.lock()
    record.withLock { body(&$0) }
    changed.broadcast()
    changed.unlock()
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        break
      }
      let accepted = record.withLock { record in
        guard !record.stopping else { return false }
        record.openSockets.insert(client)
        return true
      }
      guard accepted else {
        close(client)
        break
      }
      Thread.detachNewThread { [self] in serve(client) }
    }
    acceptLoopDone.signal()
  }

  private func serve(_ client: Int32) {
    defer {
      record.withLock { _ = $0.openSockets.remove(client) }
      close(client)
    }
    guard let target = readRequestTarget(client) else { return }
    var reply = Reply.hold
    update { record in
      record.targets.append(target)
      reply = record.replies.count > 1 ? record.replies.removeFirst() : record.replies[0]
    }
    switch reply {
    case .page(let total):
      send(client, status: 200, body: Self.page(target: target, total: total))
    case .status(let code):
      send(client, status: code, body: "[]")
    case .body(let body):
      send(client, status: 200, body: body)
    case .hold:
      holdUntilClosed(client)
    }
  }

  /// Reads the request head and returns its target, or nil if the client went away first.
  private func readRequestTarget(_ client: Int32) -> String? {
    var head: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !head.ends(with: Array("\r\n\r\n".utf8)) {
      let count = recv(client, &buffer, buffer.count, 0)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return nil }
      head += buffer[0..<count]
      guard head.count < 65_536 else { return nil }
    }
    let requestLine = String(decoding: head, as: UTF8.self).split(separator: "\r\n").first ?? ""
    let parts = requestLine.split(separator: " ")
    return parts.count == 3 ? String(parts[1]) : nil
  }

  /// Reads until the client closes the connection, and records that it did.
  private func holdUntilClosed(_ client: Int32) {
    var buffer = [UInt8](repeating: 0, count: 1024)
    while true {
      let count = recv(client, &buffer, buffer.count, 0)
      if count < 0 && errno == EINTR { continue }
      if count > 0 { continue }
      break
    }
    update { record in
      if !record.stopping { record.closedByClient += 1 }
    }
  }

  private func send(_ client: Int32, status: Int, body: String) {
    let reason =
      [200: "OK", 404: "Not Found", 500: "Internal Server Error", 503: "Service Unavailable"][
        status] ?? "Status"
    let bytes = Array(body.utf8)
    let head =
      "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(bytes.count)\r\n"
      + "Connection: close\r\n\r\n"
    var data = Array(head.utf8) + bytes
    var offset = 0
    while offset < data.count {
      let written = data.withUnsafeMutableBytes { raw in
        Glibc.send(
          client, raw.baseAddress.map { $0 + offset }, raw.count - offset, Int32(MSG_NOSIGNAL))
      }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      offset += written
    }
  }

  /// The images `limit` and `offset` of `target` select from a catalog of `total`.
  static func page(target: String, total: Int) -> String {
    let items = URLComponents(string: target)?.queryItems ?? []
    func number(_ name: String, _ fallback: Int) -> Int {
      items.first { $0.name == name }?.value.flatMap { Int($0) } ?? fallback
    }
    let offset = max(0, number("offset", 0))
    let limit = max(0, number("limit", 10))
    let indexes = offset < total ? Array(offset..<min(total, offset + limit)) : []
    let objects = indexes.map { index in
      #"{"id":"t\#(index)","url":"\#(imageURL(index))","width":640,"height":480}"#
    }
    return "[\(objects.joined(separator: ","))]"
  }
}

/// A port on 127.0.0.1 that refuses connections: bound but never listening, kept until `close`.
final class RefusingPort: Sendable {
  let port: Int
  private let socket: Int32

  init() throws {
    (socket, port) = try LoopbackSocket.bind(listening: nil)
  }

  func close() { _ = Glibc.close(socket) }
}

extension Array where Element: Equatable {
  fileprivate func ends(with suffix: [Element]) -> Bool {
    count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
  }
}
