import Foundation
import Synchronization

/// Builds the C fixture plugin (Fixtures/conformance_fixture.c, with the C example's JSON reader)
/// with `cc -shared`, once per variant and test process, into a private temporary folder.
enum ConformanceFixtures {
  static let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  static let includeDirectory = "\(packageRoot)/Sources/FeatureABI/include"
  static let exampleDirectory = "\(packageRoot)/Plugins/CExample"

  private static let built = Mutex<[String: String]>([:])

  /// A fresh folder (mode 0700) for one test.
  static func temporaryFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "featurehost-validate-XXXXXX").utf8CString)
    guard let path = mkdtemp(&template) else { throw CommandError("mkdtemp failed: errno \(errno)") }
    return String(cString: path)
  }

  /// The fixture built with `define` (a BREAK_* macro, or nil for the well-behaved build).
  static func plugin(_ define: String?) throws -> String {
    let key = define ?? "plain"
    if let path = built.withLock({ $0[key] }) { return path }
    let output = "\(try temporaryFolder())/libtally-\(key.lowercased()).so"
    try run(
      "cc",
      ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I", includeDirectory, "-I", exampleDirectory]
        + (define.map { ["-D\($0)"] } ?? [])
        + [
          "-o", output, "\(packageRoot)/Tests/ValidateTests/Fixtures/conformance_fixture.c",
          "\(exampleDirectory)/flat_json.c", "-lpthread",
        ])
    built.withLock { $0[key] = output }
    return output
  }

  /// Runs a tool from PATH in the package root; returns its stdout, throws with its stderr.
  @discardableResult
  static func run(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = [tool] + arguments
    process.currentDirectoryURL = URL(fileURLWithPath: packageRoot)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw CommandError("\(tool) \(arguments) failed: \(message)") }
    return text
  }
}

struct CommandError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
