import FeatureJSON
import Foundation
import HostKit

/// `host explore ID`: random action sequences through the real path, each failure shrunk to a
/// transcript `host check` fails on.
struct ExploreCommand {
  let console: Console
  let global: Global

  /// What it found: the failures, each with its transcript.
  struct Found {
    var violation: ContractViolation
    var steps: [ExploreStep]
    var file: String
  }

  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let found = global.discover()
    let id = arguments.positionals.first
    let flowFile = arguments.text(CommandTable.Explore.flow)
    let flow: Flow
    if let id {
      guard found.plugin(id: id) != nil else {
        let hint = Suggestion.closest(to: id, in: found.ids).map { "did you mean '\($0)'? " } ?? ""
        throw .usage(
          "unknown feature '\(id)'",
          help: "\(hint)known features: \(found.ids.sorted().joined(separator: ", ")) ('host list' shows them)")
      }
      flow = .single(id)
    } else {
      // `--flow FILE`, or neither: the main flow, as `host` alone runs it.
      do throws(HostError) {
        flow = try RunCommand.loadFlow(flowFile, found: found)
      } catch {
        // A flow that cannot be read or checked is bad input, as a bad option is.
        throw .usage(error.message, help: error.help ?? "check the path (--flow FILE)")
      }
    }
    var config: [String: JSONValue] = [:]
    for text in arguments.texts(CommandTable.Explore.config) { try RunCommand.merge(config: text, into: &config) }
    let runs = arguments.count(CommandTable.Explore.runs) ?? 10
    let stepsPerRun = arguments.count(CommandTable.Explore.steps) ?? 100
    let seed =
      arguments.count(CommandTable.Explore.seed).map(UInt64.init) ?? UInt64(Date().timeIntervalSince1970 * 1000)
    let budget = arguments.duration(CommandTable.Explore.time)
    let out = arguments.text(CommandTable.Explore.out) ?? "."
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), isDirectory.boolValue else {
      throw .usage("--out '\(out)' is not a folder", help: "create it first, or name another with --out DIR")
    }
    var settings = RunSettings()
    settings.instances = try Isolation.factory(arguments)
    settings.reload = try global.reloadSettings(arguments)
    if let timeout = arguments.duration(CommandTable.Run.settleTimeout) { settings.settleTimeout = timeout }
    settings.store.rendersViews = false
    // Paced features (levels) explore on the manual clock: no step waits for their pace.
    settings.store.clock = .manual
    let isolated = try Isolation.chosen(arguments) == .process
    var explorer = ExploreRun(
      plugins: found.plugins, flow: flow, config: JSONValue.object(config).serialized(), settings: settings)
    let generator = FlowSteps(
      plugins: found.plugins, navigates: id == nil, openable: flowFile == nil ? nil : FlowSteps.named(in: flow),
      events: isolated ? [.undo, .redo, .gotoEarlier, .reload] : [.undo, .redo, .gotoEarlier])
    if let id, generator.isEmpty(id) {
      throw HostError("\(id) has no action in its catalogue to explore", help: "its manifest lists none")
    }
    let name = id ?? flow.name
    let command = id.map { ["run", $0] } ?? flowFile.map { ["run", "--flow", Self.absolute($0)] } ?? []
    let writer = ExploreTranscript(
      id: name, hostArguments: command + Self.passedOn(arguments), pluginDirectories: global.pluginDirectories,
      folder: out)
    if !isolated {
      // In process a hang cannot be stopped: the watch reports it, shrunk in workers, and ends.
      let limit = arguments.duration(CommandTable.Isolation.callTimeout) ?? RunSettingCatalogue.callTimeout.defaultValue
      explorer.hangLimit = limit
      var workerSettings = settings
      workerSettings.instances = try Isolation.workerFactory(arguments)
      let inWorkers = ExploreRun(
        plugins: explorer.plugins, flow: flow, config: explorer.config, settings: workerSettings)
      let workerWriter = ExploreTranscript(
        id: name, hostArguments: command + Self.passedOn(arguments, isolation: .process),
        pluginDirectories: global.pluginDirectories, folder: out)
      let report = HangReport(
        console: console, id: name, seed: seed, inWorkers: inWorkers, generator: generator,
        writers: (inProcess: writer, inWorkers: workerWriter))
      explorer.onHang = { steps, violation in report.report(steps, violation: violation) }
    }
    let clock = ContinuousClock()
    let started = clock.now
    var stepsRun = 0
    var ticks = 0
    var failures: [Found] = []
    var kinds = Set<String>()
    let progress = console.outputIsTerminal
    for run in 0..<runs {
      if let budget, clock.now - started >= budget { break }
      var random = SeededRandom(seed: SeededRandom.seed(seed, run: run))
      var left = stepsPerRun
      let outcome = try explorer.run { position -> ExploreStep? in
        guard left > 0 else { return nil }
        left -= 1
        return generator.next(using: &random, at: position)
      }
      stepsRun += outcome.steps.count
      ticks += outcome.ticks
      // One transcript per kind of failure: the others are most likely the same bug again.
      if let violation = outcome.violation, !kinds.contains(violation.kind) {
        kinds.insert(violation.kind)
        let shrunk = Self.shrink(outcome.steps, violation: violation, explorer: explorer, generator: generator)
        let (file, reproduces) = try writer.write(
          shrunk.steps, violation: shrunk.violation, seed: seed, number: failures.count + 1)
        failures.append(Found(violation: shrunk.violation, steps: shrunk.steps, file: file))
        if progress { console.clearProgress() }
        console.out(Self.line(id: name, found: failures[failures.count - 1], seed: seed))
        if !reproduces {
          console.warn("\(file) passes under 'host check': the failure did not show in a plain run (timing?)")
        }
      }
      if progress {
        let seconds = max(0.001, (clock.now - started).seconds)
        console.showProgress(
          "explore \(name): run \(run + 1)/\(runs), \(stepsRun) steps, \(Int(Double(stepsRun) / seconds)) steps/s, "
            + "\(failures.count) failure\(failures.count == 1 ? "" : "s")")
      }
    }
    if progress { console.clearProgress() }
    if failures.isEmpty {
      // Paced features: how often the manual clock moved to their next timer, instead of waiting.
      let clock = ticks > 0 ? "; \(ticks) tick\(ticks == 1 ? "" : "s") of the manual clock" : ""
      console.out("explore: \(name): no failure in \(stepsRun) steps\(clock); seed \(seed)")
      return 0
    }
    return 1
  }

  /// The line that reports one failure.
  static func line(id: String, found: Found, seed: UInt64) -> String {
    let actions = found.steps.filter(\.isAction).count
    let steps = found.steps.map(\.line).joined(separator: ", ")
    return "explore: \(id): \(found.violation.summary) after \(actions) action\(actions == 1 ? "" : "s") "
      + "(\(found.violation.kind)): \(steps); written to \(found.file); seed \(seed) (--seed \(seed) runs it again)"
  }

  /// `steps` shrunk to a short sequence failing the same way (the same kind of violation).
  static func shrink(
    _ steps: [ExploreStep], violation: ContractViolation, explorer: ExploreRun, generator: FlowSteps
  ) -> (steps: [ExploreStep], violation: ContractViolation) {
    var last = violation
    var shrinker = StepShrinker(simpler: generator.simpler)
    let shrunk = shrinker.shrink(steps) { candidate in
      guard let found = try? explorer.run(candidate).violation, found.kind == violation.kind else { return false }
      last = found
      return true
    }
    // The violation of the shrunk sequence itself, as its transcript shows it.
    if let again = try? explorer.run(shrunk).violation, again.kind == violation.kind { last = again }
    return (shrunk, last)
  }

  /// `path` from the root, so a transcript finds it wherever it is run.
  static func absolute(_ path: String) -> String {
    URL(fileURLWithPath: path).standardizedFileURL.path
  }

  /// The options a transcript's `host run` needs to run as this exploration did.
  /// `isolation`: the isolation the transcript runs in, when not the exploration's.
  static func passedOn(_ arguments: ParsedArguments, isolation: Isolation? = nil) -> [String] {
    var words: [String] = []
    for text in arguments.texts(CommandTable.Explore.config) { words += ["--config", text] }
    if let isolation {
      words += [CommandTable.Isolation.isolation.name, isolation.rawValue]
    } else if let value = arguments.text(CommandTable.Isolation.isolation) {
      words += [CommandTable.Isolation.isolation.name, value]
    }
    // Numbers, not texts: as the run reads them back.
    if let seconds = arguments.seconds(CommandTable.Isolation.callTimeout) {
      words += [CommandTable.Isolation.callTimeout.name, seconds.formatted(.number.grouping(.never))]
    }
    if let bytes = arguments.size(CommandTable.Isolation.maxMemory) {
      words += [CommandTable.Isolation.maxMemory.name, String(bytes)]
    }
    if let seconds = arguments.seconds(CommandTable.Run.settleTimeout) {
      words += [CommandTable.Run.settleTimeout.name, seconds.formatted(.number.grouping(.never))]
    }
    return words
  }
}
