import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

// Kittens' start-up with and without its HTTP stack: `host run kittens --isolation none` on empty
// input loads its first page and exits, from the shipped catalog file (FoundationNetworking and
// libcurl never mapped) or over http from a loopback server answering the same page (mapped at
// that first fetch). The difference is what loading the HTTP stack costs a process that needs it.

/// The shipped offline catalog.
let kittensCatalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("Plugins/Kittens/catalog.json").path

/// A loopback HTTP server answering every GET with the same body, one connection at a time, on a
/// thread of its own, until the process ends.
final class PageServer: Sendable {
  let port: Int
  private let listener: Int32
  private let reply: [UInt8]

  init(body: [UInt8]) {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(socket, generic, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, generic, &length) == 0
      }
    }
    guard socket >= 0, bound else { fatalError("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))") }
    listener = socket
    port = Int(UInt16(bigEndian: address.sin_port))
    reply =
      Array(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
          .utf8) + body
    Thread.detachNewThread { [self] in serve() }
  }

  private func serve() {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else {
        if errno == EINTR { continue }
        return
      }
      // The request head ends with an empty line; nothing in it changes the answer.
      var head: [UInt8] = []
      while !head.suffix(4).elementsEqual("\r\n\r\n".utf8) {
        let count = recv(client, &buffer, buffer.count, 0)
        guard count > 0 else { break }
        head += buffer[0..<count]
      }
      var offset = 0
      while offset < reply.count {
        let written = reply.withUnsafeBytes {
          send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
        }
        guard written > 0 else { break }
        offset += written
      }
      close(client)
    }
  }
}

/// The catalog's first page of 10, served over http.
func kittensPageServer() -> PageServer {
  guard let data = FileManager.default.contents(atPath: kittensCatalog),
    let all = try? JSONSerialization.jsonObject(with: data) as? [Any],
    let page = try? JSONSerialization.data(withJSONObject: Array(all.prefix(10)))
  else { fatalError("cannot read \(kittensCatalog)") }
  return PageServer(body: Array(page))
}

/// The arguments of a kittens host loading its first page from `endpoint`.
func kittensRunArguments(endpoint: String) -> [String] {
  ["run", "kittens", "--isolation", "none", "--config", "endpoint=\(endpoint)"]
}

/// Medians of `rounds` start-ups from the file and over http, alternating, in ms; the ratio
/// http/file pair by pair; and each one's peak RSS in MB (median of 3).
func kittensStartup(rounds: Int) throws -> (file: Double, http: Double, ratio: Double, fileRSS: Double, httpRSS: Double)
{
  let server = kittensPageServer()
  let endpoints = (file: "file://\(kittensCatalog)", http: "http://127.0.0.1:\(server.port)/v1/images/search")
  // Each run must load its page: the host prints the final view, with the first URL.
  for endpoint in [endpoints.file, endpoints.http] {
    var process = ChildProcess("\(folder)/host", arguments: kittensRunArguments(endpoint: endpoint))
    process.standardInput = .bytes([])
    let result = try process.run(timeout: .seconds(600))
    precondition(
      result.termination == .exited(0) && result.outputText.contains("1. https://cdn2.thecatapi.com/images/AGD.jpg"),
      "kittens did not load its first page from \(endpoint): \(result.outputText) \(result.errorText)")
  }
  var file: [Double] = []
  var http: [Double] = []
  for _ in 0..<rounds {
    file.append(
      try timedProcess(ChildProcess("\(folder)/host", arguments: kittensRunArguments(endpoint: endpoints.file))) * 1000)
    http.append(
      try timedProcess(ChildProcess("\(folder)/host", arguments: kittensRunArguments(endpoint: endpoints.http))) * 1000)
  }
  var fileRSS: [Double] = []
  var httpRSS: [Double] = []
  for _ in 0..<3 {
    fileRSS.append(try kittensPeakRSS(endpoint: endpoints.file))
    httpRSS.append(try kittensPeakRSS(endpoint: endpoints.http))
  }
  return (
    median(file), median(http), median(zip(http, file).map { $0 / $1 }), median(fileRSS), median(httpRSS)
  )
}

/// Peak RSS in MB of a kittens host loading its first page from `endpoint`, in the measuring copy.
func kittensPeakRSS(endpoint: String) throws -> Double {
  var process = ChildProcess(
    "\(folder)/Benchmarks", arguments: [childPeakArgument, "\(folder)/host"] + kittensRunArguments(endpoint: endpoint))
  process.standardInput = .bytes([])
  process.standardError = .discard
  let result = try process.run(timeout: .seconds(600))
  guard result.termination == .exited(0), let kilobytes = Double(result.outputText.trimmingWhitespace()) else {
    fatalError("the measuring copy failed: \(result.termination) \(result.outputText)")
  }
  return kilobytes / 1024
}
