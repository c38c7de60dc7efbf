import FeatureTesting
import Foundation
import HostKit
import Testing

/// The `./host` launcher: when it builds. Run on a copy of it in a scratch tree, with a stand-in
/// `swift` on PATH that counts its builds and writes a `host` that says it ran.
@Suite("./host launcher")
struct LauncherTests {
  let root: String
  let builds: String

  init() throws {
    root = try FixturePlugin.temporaryFolder()
    builds = "\(root)/builds.txt"
    let files = FileManager.default
    try files.createDirectory(atPath: "\(root)/tree/Sources", withIntermediateDirectories: true)
    try files.createDirectory(atPath: "\(root)/tree/Plugins", withIntermediateDirectories: true)
    try files.createDirectory(atPath: "\(root)/bin", withIntermediateDirectories: true)
    try files.copyItem(atPath: "\(FixturePlugin.packageRoot)/host", toPath: "\(root)/tree/host")
    try "// swift-tools-version:6.0\n".write(toFile: "\(root)/tree/Package.swift", atomically: true, encoding: .utf8)
    try "let a = 1\n".write(toFile: "\(root)/tree/Sources/a.swift", atomically: true, encoding: .utf8)
    // The first build also saves a source while it runs: the pauses are the build's own length,
    // on either side of the save, longer than a tick of the file system's clock (so the save's
    // time is neither the build's start nor its end).
    let swift = """
      #!/bin/sh
      echo build >>"\(builds)"
      mkdir -p .build/release
      printf '#!/bin/sh\\necho ran "$@"\\n' >.build/release/host
      chmod +x .build/release/host
      if [ "$(wc -l <"\(builds)")" -eq 1 ]; then sleep 0.05; touch Sources/a.swift; sleep 0.05; fi
      exit 0
      """
    try swift.write(toFile: "\(root)/bin/swift", atomically: true, encoding: .utf8)
    try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(root)/bin/swift")
  }

  func launch() throws -> ChildResult {
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = "\(root)/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
    return try ChildProcess("\(root)/tree/host", arguments: ["run", "counter"], environment: environment).run(
      timeout: .seconds(120))
  }

  var buildCount: Int {
    ((try? String(contentsOfFile: builds, encoding: .utf8)) ?? "").split(separator: "\n").count
  }

  @Test func aSourceSavedDuringTheBuildIsBuiltByTheNextRunAndNothingElseIs() throws {
    // when the first run builds, and a source is saved while it does
    let first = try launch()
    #expect(first.termination == .exited(0), "\(first.errorText)")
    #expect(first.outputText == "ran run counter\n")
    #expect(buildCount == 1)
    // then the next run builds again: the edit is newer than the build's start
    let second = try launch()
    #expect(second.termination == .exited(0), "\(second.errorText)")
    #expect(buildCount == 2, "\(second.errorText)")
    // and once nothing is newer than the last build, a run only runs
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: "\(root)/tree/Sources/a.swift")
    let third = try launch()
    #expect(third.outputText == "ran run counter\n")
    #expect(buildCount == 2, "\(third.errorText)")
    #expect(!third.errorText.contains("building"))
  }
}
