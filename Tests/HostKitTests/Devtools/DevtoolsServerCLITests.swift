import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The devtools server as a client with no page sees it: the token, the loopback bind, the API,
/// and the run without libmicrohttpd.
@Suite("devtools server")
struct DevtoolsServerCLITests {
  @Test("every API request without the run's token is refused; the page's own files are not")
  func requestsWithoutTheTokenAreRefused() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    let token = url.fragment ?? ""
    let cases: [(id: String, path: String, arguments: [String], status: Int)] = [
      ("no token", "/api/stack", [], 403),
      ("no token, events", "/api/events", [], 403),
      ("no token, dispatch", "/api/dispatch?feature=1", ["-X", "POST", "--data", "increment"], 403),
      ("wrong token", "/api/stack", ["-H", "X-Devtools-Token: \(String(token.reversed()))"], 403),
      ("short token", "/api/stack", ["-H", "X-Devtools-Token: \(token.prefix(10))"], 403),
      ("wrong cookie", "/api/stack", ["-b", "devtools_token=x"], 403),
      (
        "token from another host name", "/api/stack", ["-H", "X-Devtools-Token: \(token)", "-H", "Host: evil.test"], 403
      ),
      ("header token", "/api/stack", ["-H", "X-Devtools-Token: \(token)"], 200),
      ("cookie token", "/api/stack", ["-b", "devtools_token=\(token)"], 200),
      ("the page", "/", [], 200),
      ("the page's script", "/devtools.js", [], 200),
    ]
    for item in cases {
      #expect(try DevtoolsPage.status(url, item.path, item.arguments) == item.status, "\(item.id)")
    }
    // Nothing was dispatched by the refused request.
    #expect(try DevtoolsPage.get(url, "/api/state?feature=1&seq=1").contains("\"state\":{\"clicks\":0,\"count\":0}"))
    #expect(try terminal.quit() == 0)
  }

  @Test("the server listens on 127.0.0.1 only")
  func serverBindsLoopbackOnly() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    let port = UInt16(url.port ?? 0)
    #expect(Self.connects(to: "127.0.0.1", port: port))
    // Every other IPv4 address of this machine is refused (a machine with loopback only has none).
    for address in Self.otherAddresses() {
      #expect(!Self.connects(to: address, port: port), "\(address)")
    }
    #expect(try terminal.quit() == 0)
  }

  @Test("the API pages the log, answers states with skips, and exports the journal")
  func apiAnswersPagesStatesAndExports() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    for _ in 0..<3 {
      #expect(
        try DevtoolsPage.get(url, "/api/dispatch?feature=1", method: "POST", body: "increment") == "{\"ok\":true}")
    }
    let page = try DevtoolsPage.get(url, "/api/log?feature=1&from=2&count=2")
    #expect(page.hasPrefix("{\"current\":4,\"last\":4,\"entries\":[{\"seq\":2,"))
    #expect(page.contains("{\"seq\":3,") && !page.contains("{\"seq\":4,"))
    // Each action carries its time since the journal's creation, which the page says too.
    #expect(
      page.contains(
        /"seq":2,"kind":"action","source":"user","effective":true,"action":\{"type":"increment"\},"at":\d+\}/))
    #expect(page.contains(/\],"created":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"\}$/), "\(page)")
    let skipped = try DevtoolsPage.get(url, "/api/state?feature=1&seq=4&skip=2,3")
    #expect(
      skipped
        == "{\"seq\":4,\"skipping\":[2,3],\"state\":{\"clicks\":1,\"count\":1},\"before\":{\"clicks\":0,\"count\":0}}")
    // Skipping changed nothing in the run.
    try terminal.enter(":state", thenWaitFor: "{\"clicks\":3,\"count\":3}")
    #expect(
      try DevtoolsPage.headers(url, "/api/export?feature=1").contains(
        "Content-Disposition: attachment; filename=\"1-counter.jsonl\""))
    let exported = try DevtoolsPage.get(url, "/api/export?feature=1")
    #expect(exported.split(separator: "\n").filter { $0.contains("\"increment\"") }.count == 3)
    let bad = try DevtoolsPage.get(url, "/api/dispatch?feature=1", method: "POST", body: "incremnt")
    #expect(bad.contains("unknown action 'incremnt'"))
    #expect(
      try DevtoolsPage.get(url, "/api/state?feature=1&seq=4&skip=0").contains(
        "?skip= takes the seqs of actions, got '0'"))
    let missing = try DevtoolsPage.get(url, "/api/log?feature=1&from=x&count=2")
    #expect(missing.contains("?from='x' is not a whole number"))
    #expect(try terminal.quit() == 0)
  }

  @Test("undo, redo, pause and resume from the page act on the run as the terminal's commands do")
  func commandsActOnTheRun() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    for _ in 0..<2 { _ = try DevtoolsPage.get(url, "/api/dispatch?feature=1", method: "POST", body: "increment") }
    #expect(try DevtoolsPage.get(url, "/api/undo?feature=1", method: "POST") == "{\"ok\":true}")
    try terminal.enter(":state", thenWaitFor: "{\"clicks\":1,\"count\":1}")
    #expect(try DevtoolsPage.get(url, "/api/redo?feature=1", method: "POST") == "{\"ok\":true}")
    try terminal.enter(":state", thenWaitFor: "{\"clicks\":2,\"count\":2}")
    // The counter runs no regulation: pausing it is refused, and so is resuming it.
    #expect(try DevtoolsPage.get(url, "/api/pause?feature=1", method: "POST").contains("runs no feedback loop"))
    #expect(try DevtoolsPage.get(url, "/api/resume?feature=1", method: "POST").contains("not paused"))
    #expect(try terminal.quit() == 0)

    // Levels regulates one step a second here: paused from the page, resumed from the page.
    let (levels, levelsURL) = try DevtoolsPage.start(["run", "levels", "--config", "interval=1000", "--devtools"])
    #expect(try DevtoolsPage.get(levelsURL, "/api/pause?feature=1", method: "POST") == "{\"ok\":true}")
    #expect(try DevtoolsPage.get(levelsURL, "/api/resume?feature=1", method: "POST") == "{\"ok\":true}")
    #expect(try levels.quit() == 0)
  }

  @Test("a page that closes stops being written to: its stream is dropped")
  func aClosedPageIsDropped() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    let page = try #require(Self.openEvents(url))
    #expect(try DevtoolsPage.get(url, "/api/status") == "{\"live\":true,\"readers\":1}")
    close(page)
    // Found closed at a keep-alive write (every 2 s): waited for with a bound.
    let deadline = ContinuousClock.now + .seconds(20)
    while try DevtoolsPage.get(url, "/api/status") != "{\"live\":true,\"readers\":0}" {
      try #require(ContinuousClock.now < deadline, "the closed page's stream was never dropped")
      var descriptor = pollfd(fd: -1, events: 0, revents: 0)
      _ = poll(&descriptor, 0, 100)
    }
    #expect(try terminal.quit() == 0)
  }

  @Test("an open page is told of each applied action, each refusal and each move of the stack")
  func eventsArePushed() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    let page = try #require(Self.openEvents(url))
    defer { close(page) }
    _ = try DevtoolsPage.get(url, "/api/dispatch?feature=1", method: "POST", body: "increment")
    _ = try DevtoolsPage.get(url, "/api/dispatch?feature=1", method: "POST", body: #"{"type":"increment","extra":1}"#)
    terminal.type(":open levels\r")
    let events = try Self.read(page, through: "event: stack\n")
    #expect(events.contains(#"event: applied"#))
    #expect(events.contains(#""seq":2,"source":"user","action":{"type":"increment"}}"#))
    #expect(events.contains("event: refused"))
    #expect(events.contains("has no member 'extra'"))
    #expect(try DevtoolsPage.get(url, "/api/stack").contains(#""id":"levels","key":2"#))
    #expect(try terminal.quit() == 0)
  }

  /// What `fd` gives until it holds `marker` (bounded: the stream's keep-alives keep it moving).
  static func read(_ fd: Int32, through marker: String) throws -> String {
    var seen = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    let deadline = ContinuousClock.now + .seconds(30)
    while !seen.contains(marker) {
      try #require(ContinuousClock.now < deadline, "no '\(marker)' in the events:\n\(seen)")
      let count = Glibc.read(fd, &buffer, buffer.count)
      try #require(count > 0, "the event stream ended:\n\(seen)")
      seen += String(decoding: buffer[0..<count], as: UTF8.self)
    }
    return seen
  }

  @Test("the main flow serves the page too, and a session's navigation journal opens as its stack")
  func mainFlowAndNavigationJournal() async throws {
    let (menu, menuURL) = try DevtoolsPage.start(["--devtools"])
    try menu.waitFor("home> ")
    #expect(
      try DevtoolsPage.get(menuURL, "/api/stack")
        == #"{"live":true,"frames":[{"features":[{"focused":true,"id":"home","key":1}],"focus":0}]}"#)
    #expect(try menu.quit() == 0)

    let folder = try StateFolder()
    #expect(try await folder.host(["--session", "trip"], "pick entry=counter\nincrement\n").status == 0)
    let navigation = "\(folder.sessions)/trip.d/navigation.jsonl"
    let (recorded, url) = try DevtoolsPage.start(
      ["devtools", navigation], environment: ["XDG_STATE_HOME": folder.path])
    let stack = try DevtoolsPage.get(url, "/api/stack")
    #expect(stack.contains(#""frames":[{"features":[{"focused":false,"id":"home","key":1}],"focus":0},"#))
    #expect(stack.contains(#"{"features":[{"focused":true,"id":"counter","key":2}],"focus":0}]"#))
    #expect(try DevtoolsPage.get(url, "/api/view?feature=2") == #"{"text":"Counter\n  count:  1\n  clicks: 1"}"#)
    // A recorded journal is looked at, not changed.
    #expect(
      try DevtoolsPage.get(url, "/api/dispatch?feature=2", method: "POST", body: "increment").contains(
        "cannot be changed"))
    // Another journal opened in its place: the counter's own.
    let counter = "\(folder.sessions)/trip.d/2-counter.jsonl"
    #expect(try DevtoolsPage.get(url, "/api/open", method: "POST", body: counter) == #"{"ok":true}"#)
    #expect(
      try DevtoolsPage.get(url, "/api/stack")
        == #"{"live":false,"file":"\#(counter)","frames":[{"features":[{"focused":true,"id":"counter","key":1}],"focus":0}]}"#
    )
    recorded.type("\u{4}")
    #expect(try recorded.waitForExit() == 0)
  }

  @Test("a recorded journal's crashes and refusals are in the log, beside the seq they followed")
  func recordedCrashesAreListed() throws {
    // given a counter journal whose worker was lost after seq 2, then went on
    let folder = try FixturePlugin.temporaryFolder()
    let journal = "\(folder)/c.jsonl"
    let lines = [
      #"{"created":"2026-12-06T19:38:37Z","feature":"counter","featureVersion":"1.0.0","format":1,"host":"0.1.0","journal":"featurehost"}"#,
      #"{"seq":0,"state":{"clicks":0,"count":0}}"#,
      #"{"action":{"type":"created"},"seq":1,"source":"lifecycle"}"#,
      #"{"action":{"type":"increment"},"seq":2,"source":"user"}"#,
      #"{"applying":{"type":"increment"},"call":"dispatch","crash":"signal 11","seq":2}"#,
      #"{"action":{"type":"increment"},"seq":3,"source":"user"}"#,
      #"{"error":"unknown","refused":{"type":"nope"},"seq":3,"source":"user"}"#,
    ]
    try (lines.joined(separator: "\n") + "\n").write(toFile: journal, atomically: true, encoding: .utf8)
    // when it is looked at
    let (recorded, url) = try DevtoolsPage.start(["devtools", journal])
    let page = try DevtoolsPage.get(url, "/api/log?feature=1&from=1&count=3")
    // then the crash is on seq 2's entry, and only there
    #expect(
      page.contains(
        #""seq":2,"kind":"action","source":"user","effective":true,"action":{"type":"increment"},"#
          + #""crashes":[{"loss":"signal 11","call":"dispatch","action":"{\"type\":\"increment\"}"}]}"#),
      "\(page)")
    #expect(page.components(separatedBy: "crashes").count == 2, "\(page)")
    // and the refusal is on seq 3's, the seq it followed
    #expect(
      page.contains(
        #""seq":3,"kind":"action","source":"user","effective":true,"action":{"type":"increment"},"#
          + #""refusals":[{"action":{"type":"nope"},"error":"unknown","source":"user"}]}"#), "\(page)")
    // A journal older than action times lists its actions without one.
    #expect(!page.contains("\"at\":"), "\(page)")
    recorded.type("\u{4}")
    #expect(try recorded.waitForExit() == 0)
  }

  /// A bad use of `host devtools` and what the host must say.
  struct BadUse: Sendable, CustomTestStringConvertible {
    let id: String
    let arguments: [String]
    let status: Int32
    let stderr: String
    var testDescription: String { id }
  }

  static let badUses: [BadUse] = [
    BadUse(id: "no-file", arguments: ["devtools"], status: 64, stderr: "error: 'devtools' needs a journal file"),
    BadUse(
      id: "missing-file", arguments: ["devtools", "/nonexistent/x.jsonl"], status: 1,
      stderr: "error: cannot read '/nonexistent/x.jsonl': No such file or directory"),
    BadUse(
      id: "not-a-journal", arguments: ["devtools", "\(DevtoolsPage.repository)/docs/dashboard.flow.json"], status: 1,
      stderr: "docs/dashboard.flow.json' is not a FeatureHost journal"),
  ]

  @Test("host devtools refuses a bad FILE, naming it and what to pass", arguments: badUses)
  func badFileIsRefused(_ use: BadUse) async throws {
    let result = try await HostProcess.run(use.arguments)
    #expect(result.status == use.status)
    #expect(result.stderr.contains(use.stderr), "\(result.stderr)")
    #expect(!result.stderr.contains("devtools: http"))
  }

  /// A socket that asked for the event stream and read its first event; nil when it could not.
  static func openEvents(_ url: URL) -> Int32? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var target = sockaddr_in()
    target.sin_family = sa_family_t(AF_INET)
    target.sin_port = UInt16(url.port ?? 0).bigEndian
    inet_pton(AF_INET, "127.0.0.1", &target.sin_addr)
    let connected = withUnsafePointer(to: &target) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
    guard connected else {
      close(fd)
      return nil
    }
    let request = Array(
      "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: devtools_token=\(url.fragment ?? "")\r\n\r\n".utf8)
    _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    var seen = ""
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !seen.contains("event: hello") {
      let count = Glibc.read(fd, &buffer, buffer.count)
      guard count > 0 else {
        close(fd)
        return nil
      }
      seen += String(decoding: buffer[0..<count], as: UTF8.self)
    }
    return fd
  }

  @Test("without libmicrohttpd, --devtools says what to install and the run without it works")
  func missingLibraryIsNamed() async throws {
    let missing = ["FEATUREHOST_LIBMICROHTTPD": "libmicrohttpd-missing.so.0"]
    let result = try await HostProcess.run(
      ["run", "counter", "--devtools"], input: "increment\n", environment: missing)
    #expect(result.status == 1)
    #expect(result.stderr.contains("apt-get install libmicrohttpd12"))
    let plain = try await HostProcess.run(["run", "counter"], input: "increment\n:state\n", environment: missing)
    #expect(plain.status == 0)
    #expect(plain.stdout.contains("{\"clicks\":1,\"count\":1}"))
  }

  static func connects(to address: String, port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var target = sockaddr_in()
    target.sin_family = sa_family_t(AF_INET)
    target.sin_port = port.bigEndian
    inet_pton(AF_INET, address, &target.sin_addr)
    return withUnsafePointer(to: &target) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  /// This machine's IPv4 addresses other than loopback.
  static func otherAddresses() -> [String] {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return [] }
    defer { freeifaddrs(list) }
    var found: [String] = []
    var entry = list
    while let current = entry {
      defer { entry = current.pointee.ifa_next }
      guard let address = current.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET) else { continue }
      var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
      address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
        var raw = inet.pointee.sin_addr
        _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
      }
      let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if !name.hasPrefix("127.") { found.append(name) }
    }
    return found
  }
}
