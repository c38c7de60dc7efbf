import FeatureTesting
import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// What the devtools tests share: the repository, the browser set-up, a host serving a page, and
/// requests made with curl.
enum DevtoolsPage {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path

  /// The set-up's answer, found once: the venv's python, or why there is none.
  private static let setup: Result<String, Failure> = {
    let result: ChildResult
    do {
      result = try ChildProcess("\(repository)/Tests/Browser/setup", arguments: []).run(timeout: .seconds(900))
    } catch {
      return .failure(Failure(description: "Tests/Browser/setup did not run: \(error)"))
    }
    let python = result.outputText.split(separator: "\n").last.map(String.init) ?? ""
    guard result.termination.shellStatus == 0, FileManager.default.isExecutableFile(atPath: python) else {
      return .failure(
        Failure(
          description: "Tests/Browser/setup could not install what the browser tests need (chromium, "
            + "chromium-driver, curl, libmicrohttpd12, selenium); it said:\n\(result.errorText)"))
    }
    return .success(python)
  }()

  /// The python that has Selenium, after installing what is missing; throws (never skips) when
  /// the set-up fails.
  static func python() throws -> String { try setup.get() }

  /// Where test artifacts go (screenshots).
  static var artifacts: String {
    let folder = "\(repository)/.build/artifacts"
    try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    return folder
  }

  /// Starts `host arguments...` in a terminal and reads the page's address it prints.
  static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> (PseudoTerminal, URL) {
    _ = try python()
    let terminal = try PseudoTerminal(arguments, environment: environment)
    try terminal.waitFor("devtools: ")
    let line = try terminal.waitFor("\n").trimmingCharacters(in: .whitespacesAndNewlines)
    guard let url = URL(string: line), url.host == "127.0.0.1", url.fragment?.count == 64 else {
      throw Failure(description: "the host printed no devtools address: '\(line)'")
    }
    return (terminal, url)
  }

  /// Runs the browser scenario `scenario` against `url`; what the page showed, by step.
  static func browse(_ scenario: String, _ url: URL, screenshot: String) throws -> [String: Any] {
    let script = "\(repository)/Tests/Browser/devtools_page.py"
    let result = try ChildProcess(
      try python(), arguments: [script, scenario, url.absoluteString, screenshot],
      environment: ChildProcess.currentEnvironment.merging(["SE_OFFLINE": "true"]) { _, new in new }
    ).run(timeout: .seconds(120))
    guard result.termination.shellStatus == 0,
      let report = try JSONSerialization.jsonObject(with: Data(result.outputText.utf8)) as? [String: Any]
    else {
      throw Failure(description: "the browser scenario '\(scenario)' failed:\n\(result.errorText)\(result.outputText)")
    }
    return report
  }

  /// The status curl got for `path` at `url`'s server, with `arguments` added.
  static func status(_ url: URL, _ path: String, _ arguments: [String] = []) throws -> Int {
    let base = "http://127.0.0.1:\(url.port ?? 0)"
    let result = try ChildProcess(
      "/usr/bin/curl", arguments: ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + arguments + [base + path]
    ).run(timeout: .seconds(30))
    return Int(result.outputText) ?? -1
  }

  /// The response headers curl got for `path`, with the token.
  static func headers(_ url: URL, _ path: String) throws -> String {
    let base = "http://127.0.0.1:\(url.port ?? 0)"
    let arguments = ["-s", "-D", "-", "-o", "/dev/null", "-H", "X-Devtools-Token: \(url.fragment ?? "")", base + path]
    return try ChildProcess("/usr/bin/curl", arguments: arguments).run(timeout: .seconds(30)).outputText
  }

  /// The body curl got for `path`, with the token as the page sends it.
  static func get(_ url: URL, _ path: String, method: String = "GET", body: String? = nil) throws -> String {
    let base = "http://127.0.0.1:\(url.port ?? 0)"
    var arguments = ["-s", "-X", method, "-H", "X-Devtools-Token: \(url.fragment ?? "")"]
    if let body { arguments += ["--data-binary", body] }
    let result = try ChildProcess("/usr/bin/curl", arguments: arguments + [base + path]).run(timeout: .seconds(30))
    return result.outputText
  }
}
