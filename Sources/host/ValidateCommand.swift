import FeatureJSON
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// `host validate PLUGIN.so`: the conformance suite (HostKit's `ConformanceSuite`), each check in
/// a child process of its own with a timeout, so a plugin that crashes or hangs fails that check
/// and not the validator.
///
/// The child is this same executable in a hidden mode, `host validate --check NAME PLUGIN.so`.
/// It writes `step ...` lines while it works and one verdict line at the end to file descriptor 3,
/// a pipe of its own, so nothing the plugin prints can be mistaken for a verdict.
struct ValidateCommand {
  let console: Console
  let global: Global

  /// Its arguments are read against `CommandTable.validate`: a plugin file, `--config`,
  /// `--timeout`, and the children's hidden `--check`.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let path = arguments.positionals[0]
    var config: [String: JSONValue] = [:]
    for text in arguments.texts(CommandTable.Validate.config) { try RunCommand.merge(config: text, into: &config) }
    let timeout = arguments.seconds(CommandTable.Validate.timeout) ?? 10
    // The table allows only the checks there are.
    let child = arguments.text(CommandTable.Validate.check).flatMap(ConformanceCheck.init(rawValue:))
    let plugin = try child == nil ? resolve(path) : Self.absolute(path)
    let settings = ConformanceSuite.Settings(config: JSONValue.object(config).serialized(), timeout: timeout)
    let isolation = try Isolation.chosen(arguments)
    if let child { Self.runChild(child, plugin: plugin, settings: settings, isolation: isolation) }
    return try validate(plugin, settings: settings, isolation: isolation)
  }

  /// Runs every check in a child process, printing each line as it is known; the exit code.
  /// Each check already runs in a child process of its own; `isolation` is passed on to them.
  private func validate(_ plugin: String, settings: ConformanceSuite.Settings, isolation: Isolation)
    throws(HostError) -> Int32
  {
    let executable = try OwnExecutable.required("to run the checks in")
    // The checks run sandboxed with what the manifest's needs grant: read from a scan, which runs
    // no plugin code here.
    var environment = ChildProcess.currentEnvironment
    var removeFolder: () -> Void = {}
    defer { removeFolder() }
    if isolation == .process, let scanner = ScanCommand.process(timeout: .seconds(settings.timeout)) {
      if case .plugin(let json, _, _, _) = scanner.scan(plugin), let manifest = try? Manifest(json: json) {
        (environment, removeFolder) = ConformanceSandbox.childEnvironment(
          for: manifest, config: settings.config, base: environment)
      }
    }
    var passed = 0
    var failed = 0
    var skipped = 0
    var noted = 0
    var blocker: ConformanceCheck?
    for check in ConformanceCheck.allCases {
      let verdict: ConformanceVerdict
      if blocker != nil {
        // Cannot run without the structural step it needs: counted apart, not as a failure.
        verdict = .skip(needs: check.needs ?? .loads)
      } else if check == .sandbox && isolation == .none {
        verdict = .note("not judged: --isolation none runs the checks without a sandbox")
      } else {
        let arguments = [
          "validate", "--check", check.name, "--config", settings.config, "--timeout", "\(settings.timeout)",
          "--isolation", isolation.rawValue, plugin,
        ]
        verdict = try CheckProcess.run(
          executable: executable, arguments: arguments, environment: environment, timeout: settings.timeout
        ).verdict(timeout: settings.timeout)
      }
      let line = verdict.reportLine(for: check)
      switch verdict {
      case .pass:
        console.result(String(line.prefix(4)), passed: true, String(line.dropFirst(4)))
        passed += 1
      case .note:
        console.out(line)
        passed += 1
        noted += 1
      case .skip:
        console.out(line)
        skipped += 1
      case .fail:
        console.result(String(line.prefix(4)), passed: false, String(line.dropFirst(4)))
        failed += 1
        if check.isPrerequisite && blocker == nil { blocker = check }
      }
    }
    let notes = noted > 0 ? " (\(noted) with a note)" : ""
    console.out("\(passed) passed\(notes), \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped" : ""))
    return failed == 0 ? 0 : 1
  }

  /// The child's side: run one check, write its verdict, and leave at once, skipping exit
  /// handlers and static destructors (a plugin under test may have broken those too).
  private static func runChild(
    _ check: ConformanceCheck, plugin: String, settings: ConformanceSuite.Settings, isolation: Isolation
  ) -> Never {
    // The validator hands the child a pipe on descriptor 3; run by hand, it writes to stdout.
    let sink = HostChild.reportSink(3)
    if isolation == .process {
      do {
        try ConformanceSandbox.apply(
          grant: getenv(ConformanceSandbox.grantVariable).map { String(cString: $0) }, pluginPath: plugin)
      } catch {
        HostChild.writeLine(VerdictLine.verdict(.fail("cannot sandbox the check: \(error.message)")).text, to: sink)
        _exit(0)
      }
    }
    let verdict = ConformanceSuite.run(check, plugin: plugin, settings: settings) { step in
      HostChild.writeLine(VerdictLine.step(step).text, to: sink)
    }
    HostChild.writeLine(VerdictLine.verdict(verdict).text, to: sink)
    _exit(0)
  }

  /// A plugin file, or a feature id (a word without a slash or `.so` that names no file here):
  /// the file the host would run for it, found as `run` finds it.
  private func resolve(_ given: String) throws(HostError) -> String {
    var info = stat()
    guard stat(given, &info) != 0, !given.contains("/"), !given.hasSuffix(".so") else {
      return try Self.absolute(given)
    }
    let catalogue = global.discover()
    if let record = catalogue.plugin(id: given) { return record.path }
    let known = catalogue.ids.sorted()
    throw HostError(
      "no plugin file or feature '\(given)'",
      help: (Suggestion.closest(to: given, in: known).map { "did you mean '\($0)'? " } ?? "")
        + "give a feature id (found: \(known.isEmpty ? "none" : known.joined(separator: ", "))) or the path "
        + "of a built plugin, e.g. .build/debug/libCounter.so")
  }

  /// `path` made absolute (dlopen searches the library path for a name without a slash), once
  /// it is known to name a file.
  static func absolute(_ path: String) throws(HostError) -> String {
    var info = stat()
    guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw HostError(
        "no plugin file '\(path)'", help: "give the path of a built plugin, e.g. .build/debug/libCounter.so")
    }
    if path.hasPrefix("/") { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else {
      throw HostError("cannot read the current directory to resolve '\(path)'", help: "give an absolute path")
    }
    let folder = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return folder + "/" + path
  }

}

/// One check in a child process (a `ChildProcess` in a process group of its own, killed whole at
/// the timeout): its verdict pipe on descriptor 3 and the end of its output.
struct CheckProcess {
  var termination: ChildTermination
  /// The `step` and verdict lines the child wrote on descriptor 3.
  var lines: [VerdictLine]
  /// The end of what the child (the plugin, mostly) printed on stdout and stderr.
  var outputTail: String

  /// How much of the child's output is kept: enough for the last message before a crash.
  private static let outputKept = 4096

  static func run(executable: String, arguments: [String], environment: [String: String], timeout: Double)
    throws(HostError) -> CheckProcess
  {
    var environment = environment
    // A Swift plugin that traps would otherwise spend seconds printing a symbolicated backtrace.
    environment["SWIFT_BACKTRACE"] = "enable=no"
    var process = ChildProcess(executable, arguments: arguments, environment: environment)
    process.standardOutput = .captureLast(outputKept)
    process.errorIntoOutput = true
    process.extraOutputs = [3]
    let result: ChildResult
    do {
      // A check slowed by a busy machine is not a hung plugin: waiting for a CPU does not count.
      result = try process.run(budget: .milliseconds(Int64(timeout * 1000)))
    } catch {
      throw HostError(error)
    }
    let lines = String(decoding: result.extraOutputs[3] ?? [], as: UTF8.self).split(separator: "\n").compactMap(
      VerdictLine.init(parsing:))
    return CheckProcess(termination: result.termination, lines: lines, outputTail: result.outputText)
  }

  /// The verdict: the child's own, unless it crashed, timed out or ended without one.
  func verdict(timeout: Double) -> ConformanceVerdict {
    var lastStep: String?
    var reported: ConformanceVerdict?
    for line in lines {
      switch line {
      case .step(let text): lastStep = text
      case .verdict(let verdict): reported = verdict
      }
    }
    let place = lastStep.map { " at: \($0)" } ?? ""
    let said =
      outputTail.split(separator: "\n").map(String.init).last { !$0.trimmingWhitespace().isEmpty }
      .map { "; it printed \(ConformanceText.quote($0, limit: 160))" } ?? ""
    switch termination {
    case .timedOut:
      let seconds = timeout == timeout.rounded() ? "\(Int(timeout))" : "\(timeout)"
      return .fail("timed out after \(seconds) s\(place)")
    case .signalled(let signal):
      let name = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
      return .fail("crashed with signal \(signal) (\(name))\(place)\(said)")
    case .exited(0):
      return reported ?? .fail("ended without a verdict\(place)\(said); did the plugin call exit()?")
    case .exited(let code):
      return .fail("exited with status \(code)\(place)\(said)")
    }
  }
}
