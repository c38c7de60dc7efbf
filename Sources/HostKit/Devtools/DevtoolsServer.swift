import FeatureJSON
import Foundation

/// The devtools page's server: serves the page's files and a JSON API over `subject` on
/// 127.0.0.1, pushes `hub`'s events, and refuses (403) every API request without the run's token.
///
/// The page's own files (the repo's Devtools/ folder, the same for everyone) are served without
/// the token: the token is in the URL's fragment, which a browser never sends, and the page
/// reads it there and sends it back as the `X-Devtools-Token` header and a cookie.
public final class DevtoolsServer: Sendable {
  /// The cookie and header that carry the token.
  public static let cookie = "devtools_token"
  public static let header = "x-devtools-token"
  /// The files of the page, served as they are.
  static let files: [String: String] = [
    "/": "index.html", "/index.html": "index.html", "/devtools.js": "devtools.js", "/devtools.css": "devtools.css",
  ]
  /// The most a log page holds.
  static let pageLimit = 2000

  public let token: String
  public let subject: any DevtoolsSubject
  public let hub: DevtoolsHub
  private let page: String
  private let http: HTTPServer
  private let loader: ImageLoader?

  /// Serves `subject` with the page's files from folder `page`. Throws when libmicrohttpd is
  /// missing (saying what to install), or the page's files are not there.
  ///
  /// With `images`, the images of structured views are served as thumbnails (PNG), fetched and
  /// decoded as the terminal's are (a child process each, the disk cache shared with it).
  public init(
    subject: any DevtoolsSubject, hub: DevtoolsHub, page: String, images: ImageLoader.Settings? = nil
  ) throws(HostError) {
    for file in Set(Self.files.values) where !FileManager.default.fileExists(atPath: "\(page)/\(file)") {
      throw HostError(
        "the devtools page's file '\(page)/\(file)' is missing",
        help: "run the host from its repository, or set FEATUREHOST_DEVTOOLS to the folder holding index.html")
    }
    let token = try Self.randomToken()
    self.token = token
    self.subject = subject
    self.hub = hub
    self.page = page
    // A thumbnail that arrives is announced: the pages showing it ask again.
    let loader = images.map { settings in
      ImageLoader(settings: settings) { [weak hub] url in
        hub?.push("thumbnail", JSONValue.object(["url": .string(url)]).serialized())
      }
    }
    self.loader = loader
    let route = Router(token: token, subject: subject, hub: hub, page: page, loader: loader)
    http = try HTTPServer(queries: Router.queries, cookies: [Self.cookie]) { request in route.answer(request) }
  }

  public var port: UInt16 { http.port }

  /// The address to open: the token travels in the fragment.
  public var url: String { "http://127.0.0.1:\(port)/#\(token)" }

  /// Ends the pages' streams and stops serving.
  public func stop() {
    hub.endAll()
    http.stop()
    loader?.close()
  }

  /// 32 bytes from the kernel's random source, as hex.
  static func randomToken() throws(HostError) -> String {
    guard let handle = FileHandle(forReadingAtPath: "/dev/urandom"),
      let bytes = try? handle.read(upToCount: 32), bytes.count == 32
    else { throw HostError("could not read /dev/urandom for the devtools token") }
    try? handle.close()
    return bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// The folder of the page's files: `FEATUREHOST_DEVTOOLS`, or Devtools/ in the repository the
  /// running executable was built in (found above it).
  public static func pageFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
    if let given = environment["FEATUREHOST_DEVTOOLS"] { return given }
    var folder = URL(
      fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        ?? CommandLine.arguments[0]
    ).deletingLastPathComponent()
    while folder.path != "/" {
      let candidate = folder.appendingPathComponent("Devtools")
      if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("index.html").path) {
        return candidate.path
      }
      folder = folder.deletingLastPathComponent()
    }
    return nil
  }
}

/// Answers one request: the page's files, then the token check, then the API.
private struct Router: Sendable {
  static let queries = ["feature", "from", "count", "seq", "skip", "path", "url"]

  let token: String
  let subject: any DevtoolsSubject
  let hub: DevtoolsHub
  let page: String
  let loader: ImageLoader?

  func answer(_ request: HTTPRequest) -> HTTPResponse {
    guard Self.isLoopbackHost(request.headers["host"]) else {
      return .text("forbidden: the devtools page answers only at 127.0.0.1", status: 403)
    }
    if request.method == "GET", let file = DevtoolsServer.files[request.path] {
      return serve(file)
    }
    guard authorized(request) else {
      return .text("forbidden: this request does not carry the run's devtools token", status: 403)
    }
    do throws(HostError) {
      return try api(request)
    } catch {
      let body = JSONValue.object(["error": .string(error.message), "help": error.help.map(JSONValue.string) ?? .null])
      return .json(body.serialized(), status: 400)
    }
  }

  /// A DNS name pointed at 127.0.0.1 by another site would carry its own name here.
  static func isLoopbackHost(_ host: String?) -> Bool {
    guard let host else { return false }
    let name = host.split(separator: ":", maxSplits: 1).first.map(String.init) ?? host
    return name == "127.0.0.1" || name == "localhost"
  }

  private func authorized(_ request: HTTPRequest) -> Bool {
    let given = request.headers[DevtoolsServer.header] ?? request.cookies[DevtoolsServer.cookie] ?? ""
    // Compared in constant time: how long a refusal takes says nothing about the token.
    let a = Array(given.utf8)
    let b = Array(token.utf8)
    guard a.count == b.count else { return false }
    return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

  private func serve(_ file: String) -> HTTPResponse {
    guard let data = FileManager.default.contents(atPath: "\(page)/\(file)") else {
      return .text("not found: \(file)", status: 404)
    }
    let type =
      file.hasSuffix(".js")
      ? "text/javascript; charset=utf-8"
      : file.hasSuffix(".css") ? "text/css; charset=utf-8" : "text/html; charset=utf-8"
    return HTTPResponse(status: 200, contentType: type, body: Array(data))
  }

  /// An image's thumbnail as PNG: 202 while it is being fetched (a `thumbnail` event follows),
  /// 404 with the reason when it cannot be had.
  private func thumbnail(_ url: String) -> HTTPResponse {
    guard let loader else { return .text("this host draws no thumbnails", status: 404) }
    switch loader.status(of: url) {
    case .loading:
      return .json("{\"loading\":true}", status: 202)
    case .failed(let reason):
      return .text("not shown: \(reason)", status: 404)
    case .ready(let thumbnail):
      guard let png = ImageEncoder.encode(thumbnail.rgb, width: thumbnail.width, height: thumbnail.height, as: .png)
      else { return .text("not shown: libpng is not installed (apt-get install libpng16-16)", status: 404) }
      return HTTPResponse(status: 200, contentType: "image/png", body: png)
    }
  }

  /// The seqs of `?skip=2,5`, each checked.
  private func skipped(_ request: HTTPRequest) throws(HostError) -> Set<Int> {
    var seqs = Set<Int>()
    for text in (request.arguments["skip"] ?? "").split(separator: ",") {
      guard let seq = Int(text), seq > 0 else {
        throw HostError("?skip= takes the seqs of actions, got '\(text)'", help: "e.g. ?skip=2,5")
      }
      seqs.insert(seq)
    }
    return seqs
  }

  private func int(_ request: HTTPRequest, _ name: String) throws(HostError) -> Int {
    guard let text = request.arguments[name] else { throw HostError("the request needs ?\(name)=") }
    guard let value = Int(text) else { throw HostError("?\(name)='\(text)' is not a whole number") }
    return value
  }

  private func api(_ request: HTTPRequest) throws(HostError) -> HTTPResponse {
    let body = String(decoding: request.body, as: UTF8.self)
    switch (request.method, request.path) {
    case ("GET", "/api/events"):
      let stream = hub.subscribe()
      stream.send("hello", data: "{\"live\":\(subject.isLive)}")
      return .events(stream)
    case ("GET", "/api/status"):
      return .json("{\"live\":\(subject.isLive),\"readers\":\(hub.readerCount)}")
    case ("GET", "/api/stack"):
      return .json(subject.stackJSON())
    case ("GET", "/api/log"):
      let count = min(try int(request, "count"), DevtoolsServer.pageLimit)
      return .json(
        try subject.timeline(try int(request, "feature")).logPage(from: try int(request, "from"), count: count))
    case ("GET", "/api/state"):
      let skip = try skipped(request)
      return .json(
        try subject.timeline(try int(request, "feature")).states(at: try int(request, "seq"), skipping: skip))
    case ("GET", "/api/view"):
      let seq = request.arguments["seq"].flatMap { Int($0) }
      return .json(try subject.view(try int(request, "feature"), at: seq, skipping: try skipped(request)))
    case ("GET", "/api/thumbnail"):
      return thumbnail(request.arguments["url"] ?? "")
    case ("GET", "/api/catalogue"):
      let timeline = try subject.timeline(try int(request, "feature"))
      return .json(LiveDevtools.catalogueJSON(timeline.plugin))
    case ("GET", "/api/export"):
      let timeline = try subject.timeline(try int(request, "feature"))
      guard let data = FileManager.default.contents(atPath: timeline.journalPath) else {
        throw HostError("could not read the journal '\(timeline.journalPath)'")
      }
      let name = (timeline.journalPath as NSString).lastPathComponent
      return HTTPResponse(
        status: 200, contentType: "application/x-ndjson", body: Array(data),
        header: ("Content-Disposition", "attachment; filename=\"\(name)\""))
    case ("POST", "/api/open"):
      try subject.open(body.trimmingCharacters(in: .whitespacesAndNewlines))
      hub.push("stack", "{}")
      return .json("{\"ok\":true}")
    case ("POST", let path) where path.hasPrefix("/api/"):
      let key = try int(request, "feature")
      let command: DevtoolsCommand
      switch path.dropFirst(5) {
      case "dispatch": command = .dispatch(body)
      case "goto": command = .goto(try int(request, "seq"))
      case "undo": command = .undo
      case "redo": command = .redo
      case "pause": command = .pause
      case "resume": command = .resume
      default: return .text("not found: \(path)", status: 404)
      }
      let answer = try subject.perform(command, on: key)
      hub.changed(key)
      return .json(answer)
    default:
      return .text("not found: \(request.method) \(request.path)", status: 404)
    }
  }
}
