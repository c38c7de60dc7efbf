import FeatureTesting
import Foundation
import HostKit
import Testing

/// The `./host` launcher: what it builds and when, and which build it runs. Run on a copy of it in
/// a scratch tree, with a stand-in `swift` on PATH that counts its builds and writes a `host` that
/// says which build it is. The stand-in's release build can be held (it waits on a FIFO the test
/// writes to) or made to fail.
@Suite("./host launcher")
struct LauncherTests {
  let root: String
  let builds: String
  let hold: String
  let held: String
  let holder: String
  var tree: String { "\(root)/tree" }
  var jobLock: String { "\(tree)/.build/featurehost-release.lock" }

  init() throws {
    root = try FixturePlugin.temporaryFolder()
    builds = "\(root)/builds.txt"
    hold = "\(root)/hold"
    held = "\(root)/held.pid"
    let files = FileManager.default
    try files.createDirectory(atPath: "\(root)/tree/Sources", withIntermediateDirectories: true)
    try files.createDirectory(atPath: "\(root)/tree/Plugins", withIntermediateDirectories: true)
    try files.createDirectory(atPath: "\(root)/bin", withIntermediateDirectories: true)
    try files.copyItem(atPath: "\(FixturePlugin.packageRoot)/host", toPath: "\(root)/tree/host")
    try "// swift-tools-version:6.0\n".write(toFile: "\(root)/tree/Package.swift", atomically: true, encoding: .utf8)
    try "let a = 1\n".write(toFile: "\(root)/tree/Sources/a.swift", atomically: true, encoding: .utf8)
    #expect(mkfifo(hold, 0o600) == 0)
    #expect(mkfifo(held, 0o600) == 0)
    // A held release build waits in a process of its own group, as SwiftPM's compilers run: it
    // writes its pid into the FIFO named by HELD_FIFO, if any, then reads `hold` to its end.
    holder = """
      import os, sys
      os.setpgid(0, 0)
      if sys.argv[2]: open(sys.argv[2], 'w').write(str(os.getpid()))
      open(sys.argv[1]).read()
      """
    // `swift build -c CONFIG --scratch-path FOLDER`. With SAVE_DURING_FIRST_BUILD the first build
    // also saves a source while it runs: the pauses are the build's own length, on either side of
    // the save, longer than a tick of the file system's clock (so the save's time is neither the
    // build's start nor its end).
    let swift = """
      #!/bin/sh
      config=$3
      folder=$5/$config
      echo "build $config" >>"\(builds)"
      if [ "$config" = release ] && [ -n "$HOLD_RELEASE" ]; then
        python3 -c "$HOLDER" "\(hold)" "${HELD_FIFO:-}"
      fi
      if [ "$config" = release ] && [ -n "$FAIL_RELEASE" ]; then echo "error: no release today"; exit 1; fi
      mkdir -p "$folder"
      printf '#!/bin/sh\\necho ran %s "$@"\\n' "$config" >"$folder/host"
      chmod +x "$folder/host"
      if [ -n "$SAVE_DURING_FIRST_BUILD" ] && [ "$(wc -l <"\(builds)")" -eq 1 ]; then
        sleep 0.05; touch Sources/a.swift; sleep 0.05
      fi
      exit 0
      """
    try swift.write(toFile: "\(root)/bin/swift", atomically: true, encoding: .utf8)
    try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(root)/bin/swift")
  }

  func launch(_ settings: [String: String] = [:]) throws -> ChildResult {
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = "\(root)/bin:" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["HOLDER"] = holder
    environment.merge(settings) { $1 }
    return try ChildProcess("\(tree)/host", arguments: ["run", "counter"], environment: environment).run(
      timeout: .seconds(120))
  }

  var buildsSoFar: [String] {
    ((try? String(contentsOfFile: builds, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
  }

  /// Whether a background release build holds its lock now.
  func jobIsRunning() throws -> Bool {
    try ChildProcess("/usr/bin/flock", arguments: ["-n", jobLock, "true"]).run(timeout: .seconds(30)).termination
      != .exited(0)
  }

  /// Waits for the background release build to end: it holds its lock until then.
  func waitForJob() throws {
    let result = try ChildProcess("/usr/bin/flock", arguments: [jobLock, "true"]).run(timeout: .seconds(120))
    #expect(result.termination == .exited(0), "\(result.errorText)")
  }

  /// Lets a held release build go on (the write waits until the stand-in reads).
  func release() throws {
    let result = try ChildProcess("/bin/sh", arguments: ["-c", "echo go >'\(hold)'"]).run(timeout: .seconds(60))
    #expect(result.termination == .exited(0), "\(result.errorText)")
  }

  /// The pid of the held release build (read from the FIFO it writes it into).
  func heldProcess() throws -> pid_t {
    let read = try ChildProcess("/bin/cat", arguments: [held]).run(timeout: .seconds(60))
    return try #require(pid_t(read.outputText.trimmingCharacters(in: .whitespacesAndNewlines)))
  }

  /// Whether process `pid` is gone or only left to be reaped.
  static func hasEnded(_ pid: pid_t) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return true }
    return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
  }

  func save(_ date: Date = Date()) throws {
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: "\(tree)/Sources/a.swift")
  }

  @Test func aFirstRunRunsTheDebugBuildWhileTheReleaseBuildGoesOnInTheBackground() throws {
    // when the first run builds while its release build is held
    let first = try launch(["HOLD_RELEASE": "1"])
    // then it ran the debug build, and its output ended with the host although the job goes on
    #expect(first.termination == .exited(0), "\(first.errorText)")
    #expect(first.outputText == "ran debug run counter\n")
    #expect(first.errorText.contains("built FeatureHost (debug)"), "\(first.errorText)")
    #expect(first.errorText.contains("the release build goes on in the background"), "\(first.errorText)")
    #expect(try jobIsRunning())
    // and once the release build is done, the next run uses it without building
    try release()
    try waitForJob()
    #expect(buildsSoFar == ["build debug", "build release"])
    // in a folder of its own, not SwiftPM's .build/release, whose lock `swift build` takes
    #expect(FileManager.default.fileExists(atPath: "\(tree)/.build/launcher-release/release/host"))
    let second = try launch()
    #expect(second.outputText == "ran release run counter\n")
    #expect(buildsSoFar == ["build debug", "build release"], "\(second.errorText)")
    #expect(!second.errorText.contains("building"))
  }

  @Test func aSourceSavedDuringTheBuildIsBuiltByTheNextRunAndNothingElseIs() throws {
    let debugOnly = ["FEATUREHOST_RELEASE": "off", "SAVE_DURING_FIRST_BUILD": "1"]
    // when the first run builds, and a source is saved while it does
    let first = try launch(debugOnly)
    #expect(first.termination == .exited(0), "\(first.errorText)")
    #expect(first.outputText == "ran debug run counter\n")
    #expect(buildsSoFar == ["build debug"])
    // then the next run builds again: the edit is newer than the build's start
    let second = try launch(debugOnly)
    #expect(second.termination == .exited(0), "\(second.errorText)")
    #expect(buildsSoFar.count == 2, "\(second.errorText)")
    // and once nothing is newer than the last build, a run only runs
    try save(Date(timeIntervalSinceNow: -3_600))
    let third = try launch(debugOnly)
    #expect(third.outputText == "ran debug run counter\n")
    #expect(buildsSoFar.count == 2, "\(third.errorText)")
    #expect(!third.errorText.contains("building"))
    #expect(!FileManager.default.fileExists(atPath: jobLock), "off starts no release build")
  }

  @Test func waitBuildsTheReleaseOneFirstAndRunsIt() throws {
    let result = try launch(["FEATUREHOST_RELEASE": "wait"])
    #expect(result.termination == .exited(0), "\(result.errorText)")
    #expect(result.outputText == "ran release run counter\n")
    #expect(buildsSoFar == ["build release"])
    #expect(!FileManager.default.fileExists(atPath: jobLock))
  }

  @Test func aFailedReleaseBuildIsNotTriedAgainUntilASourceIsSaved() throws {
    // when the background release build fails
    _ = try launch(["FAIL_RELEASE": "1"])
    try waitForJob()
    #expect(buildsSoFar == ["build debug", "build release"])
    #expect(
      try String(contentsOfFile: "\(tree)/.build/featurehost-release.log", encoding: .utf8).contains(
        "no release today"))
    // then runs use the debug build and do not try again
    let second = try launch(["FAIL_RELEASE": "1"])
    #expect(second.outputText == "ran debug run counter\n")
    try waitForJob()
    #expect(buildsSoFar == ["build debug", "build release"], "\(second.errorText)")
    // until a source is saved: then both are built again
    try save()
    let third = try launch()
    #expect(third.outputText == "ran debug run counter\n")
    try waitForJob()
    #expect(buildsSoFar == ["build debug", "build release", "build debug", "build release"])
    #expect(try launch().outputText == "ran release run counter\n")
  }

  @Test func aReleaseBuildOfSourcesSavedSinceIsStoppedForTheDebugBuildAndStartedAgain() throws {
    // when a source is saved while the background release build runs
    _ = try launch(["HOLD_RELEASE": "1", "HELD_FIFO": held])
    #expect(try jobIsRunning())
    let first = try heldProcess()
    try save(Date(timeIntervalSinceNow: 1))
    // then the next run stops it, the process in a group of its own too (it ended, not released),
    // builds the debug one and starts the release one again
    let second = try launch(["HOLD_RELEASE": "1"])
    #expect(second.termination == .exited(0), "\(second.errorText)")
    #expect(second.outputText == "ran debug run counter\n")
    #expect(Self.hasEnded(first), "the held build \(first) still runs")
    try release()
    try waitForJob()
    #expect(buildsSoFar == ["build debug", "build release", "build debug", "build release"])
    #expect(!FileManager.default.fileExists(atPath: "\(tree)/.build/featurehost-release.failed"), "stopped, not failed")
  }

  @Test func anUnknownReleaseSettingIsAUsageError() throws {
    let result = try launch(["FEATUREHOST_RELEASE": "later"])
    #expect(result.termination == .exited(64))
    #expect(result.errorText.contains("FEATUREHOST_RELEASE is 'later'"), "\(result.errorText)")
    #expect(buildsSoFar.isEmpty)
  }
}
