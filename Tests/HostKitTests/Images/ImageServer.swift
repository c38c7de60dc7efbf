import FeatureTesting
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1 (a free port) serving the images a test made, by path.
/// Each connection gets one answer, then `Connection: close`; a `hold` answer says nothing
/// until the client leaves or the server stops (a slow server).
final class ImageServer: Sendable {
  enum Answer: Sendable {
    case file(contentType: String, bytes: [UInt8])
    case status(Int)
    case hold
  }

  let port: Int
  private let listener: Int32
  private let answers: [String: Answer]
  private let open = Mutex<(sockets: Set<Int32>, stopping: Bool)>(([], false))
  private let acceptLoopDone = DispatchSemaphore(value: 0)

  init(_ answers: [String: Answer]) throws {
    self.answers = answers
    (listener, port) = try LoopbackSocket.bind(listening: 32)
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  func stop() {
    let sockets = open.withLock { open in
      open.stopping = true
      return open.sockets
    }
    shutdown(listener, Int32(SHUT_RDWR))
    acceptLoopDone.wait()
    close(listener)
    for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
  }

  private func acceptLoop() {
    defer { acceptLoopDone.signal() }
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        return
      }
      let accepted = open.withLock { open in
        guard !open.stopping else { return false }
        open.sockets.insert(client)
        return true
      }
      guard accepted else {
        close(client)
        return
      }
      Thread.detachNewThread { [self] in serve(client) }
    }
  }

  private func serve(_ client: Int32) {
    defer {
      open.withLock { _ = $0.sockets.remove(client) }
      close(client)
    }
    var request: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !request.containsHeaderEnd {
      let got = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      guard got > 0 else { return }
      request += buffer[0..<got]
    }
    let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self).split(separator: " ")
    let path = line.count > 1 ? String(line[1]) : "/"
    switch answers[path] ?? .status(404) {
    case .file(let type, let bytes):
      send(
        client,
        "HTTP/1.1 200 OK\r\nContent-Type: \(type)\r\nContent-Length: \(bytes.count)\r\nConnection: close\r\n\r\n", bytes
      )
    case .status(let code):
      send(
        client, "HTTP/1.1 \(code) Status\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n",
        Array("no".utf8))
    case .hold:
      // Until the client closes or the server stops.
      _ = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
    }
  }

  private func send(_ client: Int32, _ head: String, _ body: [UInt8]) {
    let bytes = Array(head.utf8) + body
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
      }
      guard sent > 0 else { return }
      offset += sent
    }
  }
}

struct FixtureFailure: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}

extension [UInt8] {
  fileprivate var containsHeaderEnd: Bool {
    count >= 4
      && (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
  }
}
