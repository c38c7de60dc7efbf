import Foundation
import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// `host check FILE...`: runs transcripts through this host and the real plugins.
struct CheckCommand {
  let console: Console
  let global: Global

  /// Its arguments are read against `CommandTable.check`: files and folders, `--update`, `--timeout`.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let paths = arguments.positionals
    let update = arguments.has(CommandTable.Check.update)
    let timeout = arguments.duration(CommandTable.Check.timeout) ?? .seconds(30)
    // The hosts it runs inherit the choice; a section that sets the variable itself wins.
    setenv(Isolation.variable, try Isolation.chosen(arguments).rawValue, 1)
    let runner = TranscriptRunner(
      hostExecutable: try OwnExecutable.required("to run the transcripts"), pluginDirectories: global.pluginDirectories,
      stepTimeout: timeout)
    var passed = 0
    var failed = 0
    for file in try Self.transcripts(in: paths) {
      if check(file, runner: runner, update: update) { passed += 1 } else { failed += 1 }
    }
    console.out("\(passed) passed, \(failed) failed")
    return failed == 0 ? 0 : 1
  }

  /// Checks one file; true when it passed.
  private func check(_ file: String, runner: TranscriptRunner, update: Bool) -> Bool {
    let transcript: Transcript
    do {
      let text = try RegularFile.readText(file)
      let directory = URL(fileURLWithPath: file).standardizedFileURL.deletingLastPathComponent().path
      transcript = try Transcript(parsing: text, directory: directory)
    } catch let error as Transcript.ParseError {
      console.result("fail", passed: false, " \(file)")
      console.report(
        HostError(
          "\(file):\(error.line): \(error.message)", help: "see 'host check --help' for the transcript format"))
      return false
    } catch let error as HostError {
      console.out("fail \(file)")
      console.report(error)
      return false
    } catch {
      console.result("fail", passed: false, " \(file)")
      console.report(HostError("cannot read '\(file)': \(error)"))
      return false
    }
    let outcomes = runner.run(transcript)
    if transcript.matches(outcomes) {
      console.result("pass", passed: true, " \(file)")
      return true
    }
    let actual = transcript.rendered(with: outcomes)
    if update {
      do {
        try (actual.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        console.out("updated \(file)")
      } catch {
        console.result("fail", passed: false, " \(file)")
        console.report(HostError("cannot write '\(file)': \(SystemReason.of(error, naming: file))"))
      }
      return false
    }
    console.result("fail", passed: false, " \(file)")
    let diff = LineDiff.unified(
      old: transcript.rawLines, new: actual, oldName: "\(file) (expected)", newName: "\(file) (actual)")
    // Equal text can still fail: an exit status or a timeout the format could not show apart.
    if !diff.isEmpty { console.out(diff) }
    for problem in outcomes.compactMap(\.problem) {
      console.report(HostError("\(file): \(problem)", help: "raise --timeout, or check what the feature waits for"))
    }
    return false
  }

  /// The files to check: each FILE as given, and the `*.transcript` files of each DIR, sorted.
  private static func transcripts(in paths: [String]) throws(HostError) -> [String] {
    var files: [String] = []
    for path in paths {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw HostError("no transcript at '\(path)'", help: "give a .transcript file or a folder that holds some")
      }
      guard isDirectory.boolValue else {
        files.append(path)
        continue
      }
      let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
      let found = names.filter { $0.hasSuffix(".transcript") }.sorted()
      guard !found.isEmpty else {
        throw HostError("folder '\(path)' holds no .transcript file", help: "name transcripts NAME.transcript")
      }
      files += found.map { path.hasSuffix("/") ? path + $0 : "\(path)/\($0)" }
    }
    return files
  }

}
