import CMicroHTTPD
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// One request to the devtools server, read on its connection's thread.
public struct HTTPRequest: Sendable {
  public var method: String
  public var path: String
  public var headers: [String: String]
  public var cookies: [String: String]
  public var arguments: [String: String]
  public var body: [UInt8]

  public init(
    method: String, path: String, headers: [String: String] = [:], cookies: [String: String] = [:],
    arguments: [String: String] = [:], body: [UInt8] = []
  ) {
    self.method = method
    self.path = path
    self.headers = headers
    self.cookies = cookies
    self.arguments = arguments
    self.body = body
  }
}

/// What the devtools server answers: bytes, or a stream of server-sent events.
public struct HTTPResponse: Sendable {
  public var status: Int
  public var contentType: String
  public var body: [UInt8]
  /// One more header (a download's Content-Disposition).
  public var header: (name: String, value: String)?
  /// Read until it ends, instead of `body`.
  public var stream: EventStream?

  public init(status: Int, contentType: String, body: [UInt8], header: (name: String, value: String)? = nil) {
    self.status = status
    self.contentType = contentType
    self.body = body
    self.header = header
  }

  public static func json(_ text: String, status: Int = 200) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "application/json; charset=utf-8", body: Array(text.utf8))
  }

  public static func text(_ text: String, status: Int) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array((text + "\n").utf8))
  }

  public static func events(_ stream: EventStream) -> HTTPResponse {
    var response = HTTPResponse(status: 200, contentType: "text/event-stream", body: [])
    response.stream = stream
    return response
  }
}

/// A loopback HTTP server on libmicrohttpd (loaded at first use): hands each request to
/// `handler` on its connection's thread, several at once.
public final class HTTPServer: Sendable {
  /// The headers read from each request: only what the page sends and the server checks.
  static let headerNames = ["Host", "X-Devtools-Token", "Content-Type"]

  public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

  let handler: Handler
  /// Set once by `start`, cleared by `stop`; read only by them.
  private let server = Atomic<UInt>(0)
  public let port: UInt16

  /// Whether libmicrohttpd can be loaded on this machine.
  public static var isAvailable: Bool { fh_http_available() != 0 }

  /// Starts serving on 127.0.0.1 at a free port. Throws when libmicrohttpd is missing (the error
  /// says what to install) or the socket cannot be bound.
  public init(queries: [String], cookies: [String], maxBody: Int = 1 << 20, handler: @escaping Handler)
    throws(HostError)
  {
    self.handler = handler
    var port: UInt16 = 0
    var reason = [CChar](repeating: 0, count: 256)
    let context = Box(handler: handler, queries: queries, cookies: cookies)
    let started = fh_http_start(
      { context, request, response in
        guard let context, let request, let response else { return }
        Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().answer(request, into: response)
      },
      { stream, buffer, max in
        guard let stream, let buffer else { return -1 }
        return Unmanaged<EventStream>.fromOpaque(stream).takeUnretainedValue().read(into: buffer, max: max)
      },
      { stream in
        guard let stream else { return }
        // The page is gone (or the server stops): the hub stops queueing for it.
        let held = Unmanaged<EventStream>.fromOpaque(stream)
        held.takeUnretainedValue().end()
        held.release()
      }, Unmanaged.passRetained(context).toOpaque(), maxBody, &port, &reason, reason.count)
    guard let started else {
      Unmanaged.passUnretained(context).release()
      let text = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !Self.isAvailable {
        throw HostError(
          "--devtools needs libmicrohttpd, which is not installed (\(text))",
          help: "install it: apt-get install libmicrohttpd12")
      }
      throw HostError("the devtools server did not start: \(text)", help: "run without --devtools")
    }
    self.port = port
    server.store(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(started))), ordering: .releasing)
    self.context = Unmanaged.passUnretained(context)
  }

  /// The box handed to C, retained once by `init` and released by `stop`.
  private let context: Unmanaged<Box>

  /// Stops the server; streams must have ended (their reads return the end) or they hold it.
  public func stop() {
    guard let running = OpaquePointer(bitPattern: server.exchange(0, ordering: .acquiringAndReleasing)) else { return }
    fh_http_stop(running)
    context.release()
  }

  deinit { stop() }

  /// What C calls with: the handler and which request arguments and cookies to read.
  private final class Box: Sendable {
    let handler: Handler
    let queries: [String]
    let cookies: [String]

    init(handler: @escaping Handler, queries: [String], cookies: [String]) {
      self.handler = handler
      self.queries = queries
      self.cookies = cookies
    }

    func answer(_ raw: OpaquePointer, into out: UnsafeMutablePointer<fh_http_response>) {
      func text(_ pointer: UnsafePointer<CChar>?) -> String? { pointer.map { String(cString: $0) } }
      var request = HTTPRequest(
        method: text(fh_http_method(raw)) ?? "GET", path: text(fh_http_path(raw)) ?? "/")
      for name in HTTPServer.headerNames {
        if let value = text(fh_http_header(raw, name)) { request.headers[name.lowercased()] = value }
      }
      for name in cookies {
        if let value = text(fh_http_cookie(raw, name)) { request.cookies[name] = value }
      }
      for name in queries {
        if let value = text(fh_http_argument(raw, name)) { request.arguments[name] = value }
      }
      var size = 0
      if let body = fh_http_body(raw, &size), size > 0 {
        request.body = Array(UnsafeBufferPointer(start: body, count: size))
      }
      let response = handler(request)
      out.pointee.status = Int32(response.status)
      out.pointee.content_type = UnsafePointer(strdup(response.contentType))
      if let header = response.header {
        out.pointee.header_name = UnsafePointer(strdup(header.name))
        out.pointee.header_value = UnsafePointer(strdup(header.value))
      }
      if let stream = response.stream {
        out.pointee.stream = Unmanaged.passRetained(stream).toOpaque()
        return
      }
      guard !response.body.isEmpty, let bytes = malloc(response.body.count) else { return }
      response.body.withUnsafeBytes { source in
        if let base = source.baseAddress { bytes.copyMemory(from: base, byteCount: source.count) }
      }
      out.pointee.body = bytes.assumingMemoryBound(to: UInt8.self)
      out.pointee.body_size = response.body.count
    }
  }
}
