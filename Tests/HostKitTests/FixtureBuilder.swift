import Foundation
import Synchronization

/// Builds the C fixture plugins (Fixtures/fixture_plugin.c) with `cc -shared`, one per variant,
/// once per test process, into a private temporary folder.
enum FixtureBuilder {
  static let packageRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.path
  }()

  static let source = "\(packageRoot)/Tests/HostKitTests/Fixtures/fixture_plugin.c"
  static let includeDirectory = "\(packageRoot)/Sources/FeatureABI/include"

  private static let built = Mutex<[String: String]>([:])

  /// A fresh folder (mode 0700) for one test.
  static func temporaryFolder() throws -> String {
    var template = Array((NSTemporaryDirectory() + "featurehost-test-XXXXXX").utf8CString)
    guard let path = mkdtemp(&template) else { throw FixtureError("mkdtemp failed: errno \(errno)") }
    return String(cString: path)
  }

  /// The path of the fixture built with `defines` (e.g. ["FIXTURE_WRONG_MAJOR"]), built on first use.
  static func plugin(_ defines: [String] = [], name: String? = nil) throws -> String {
    let key = (defines + [name ?? ""]).joined(separator: ",")
    if let path = built.withLock({ $0[key] }) { return path }
    let folder = try temporaryFolder()
    let file = "\(folder)/\(name ?? "lib" + (defines.first ?? "fixture").lowercased()).so"
    try compile(defines: defines, output: file)
    built.withLock { $0[key] = file }
    return file
  }

  /// Compiles the fixture into `output`.
  static func compile(defines: [String], output: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["cc", "-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-Wno-unused", "-I", includeDirectory]
      + defines.map { "-D\($0)" } + ["-o", output, source, "-lpthread"]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw FixtureError("cc failed for \(defines): \(message)") }
  }
}

struct FixtureError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
