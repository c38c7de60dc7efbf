import Foundation
import HostKit
import Synchronization

/// One feature running in the terminal: reads lines, sends actions, prints views and errors.
final class RunSession: FeatureLauncher, @unchecked Sendable {
  struct Settings {
    var maxFeedbackSteps = 10_000
    var settleTimeout: Duration = .seconds(10)
    /// The named session the first feature journals into and restores from; without one every
    /// feature journals into a temporary file that time travel uses and that is removed at exit.
    var session: String?
    /// Whether `--config` was given (a restored session keeps the config it was created with).
    var configGiven = false
    /// Writes `will navigate` / `did navigate` lines to stderr.
    var logsNavigation = false
  }

  private let console: Console
  private let plugins: [LoadedPlugin]
  private let flow: Flow
  /// The config of the feature `host run ID` names (the flow's first feature).
  private let config: String
  private let settings: Settings
  private var coordinator: Coordinator?
  /// The session's navigation journal (with --session).
  private var navigation: NavigationJournal?
  /// Whether the first feature of the run was launched (it owns NAME.jsonl).
  private var launchedFirst = false
  /// The number of the last feature journal in the session's folder.
  private var nextJournalNumber = 1
  /// Holds the journals of features without a named session; removed at exit.
  private var temporaryFolder: String?

  init(console: Console, plugins: [LoadedPlugin], flow: Flow, config: String, settings: Settings) {
    self.console = console
    self.plugins = plugins
    self.flow = flow
    self.config = config
    self.settings = settings
  }

  /// What the launcher keeps with each presented feature.
  private final class Context {
    let journal: SessionJournal
    /// The journal's path relative to the sessions folder, when the run is a named session.
    let relativePath: String?
    /// The view last printed for this feature.
    private let lastDrawn = Mutex<String?>(nil)

    init(journal: SessionJournal, relativePath: String?) {
      self.journal = journal
      self.relativePath = relativePath
    }

    /// Whether `view` is to be printed (it changed, or `force`); remembers it.
    func draws(_ view: String, force: Bool) -> Bool {
      lastDrawn.withLock { last in
        guard force || last != view else { return false }
        last = view
        return true
      }
    }
  }

  func run() throws(HostError) -> Int32 {
    let folder = try Self.makeTemporaryFolder()
    temporaryFolder = folder
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let coordinator = Coordinator(
      flow: flow, plugins: plugins, launcher: self, logsNavigation: settings.logsNavigation)
    self.coordinator = coordinator
    defer { navigation?.close() }
    do {
      if let frames = try openNavigation() {
        try coordinator.restore(frames)
      } else {
        try coordinator.start()
      }
    } catch {
      coordinator.stopAll()
      throw error
    }
    return finish(coordinator)
  }

  // MARK: - FeatureLauncher

  func launch(_ plugin: LoadedPlugin, number: Int, journal recorded: String?) throws(HostError) -> PresentedFeature {
    let (journal, featureConfig, point, relative) = try openJournal(for: plugin, number: number, recorded: recorded)
    let holder = FeatureHolder()
    let store: Store
    do {
      store = try makeStore(plugin: plugin, config: featureConfig, journal: journal, holder: holder)
    } catch {
      journal.close()
      throw error
    }
    let feature = PresentedFeature(
      plugin: plugin, store: store, number: number, context: Context(journal: journal, relativePath: relative))
    holder.feature = feature
    do {
      if let point {
        try store.start(restored: true) { instance throws(HostError) in try point.apply(to: instance) }
      } else {
        let id = plugin.id
        try store.start(restored: false) { instance throws(HostError) in
          let state: String
          do {
            state = try instance.snapshot()
          } catch {
            throw HostError("feature '\(id)' could not snapshot its first state: \(error)")
          }
          try journal.recordInitialState(state)
        }
      }
    } catch {
      store.stop()
      throw error
    }
    return feature
  }

  func retire(_ feature: PresentedFeature) {
    let report = feature.store.stop()
    if report.unapplied > 0 {
      console.note("\(report.unapplied) action(s) still queued when \(feature.id) stopped were not applied")
    }
    if report.late > 0 {
      console.warn("\(feature.id) emitted \(report.late) action(s) after it was stopped; they were ignored")
    }
  }

  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    // In a pipe the start draws nothing (the final view comes at the end), every later
    // navigation shows where it led. A revealed feature has not changed: draw it anyway.
    if !console.inputIsTerminal && reason == .start { return }
    // Draw what the features reached once the actions the navigation started are applied (a
    // zero-interval feedback loop runs to its end), not a moment the thread schedule picked.
    for feature in features { feature.store.waitUntilIdle(timeout: settings.settleTimeout) }
    draw(features, focus: focus, force: reason == .revealed || reason == .focused)
  }

  /// Prints the views of `features` that differ from what was last drawn of them (all of them
  /// with `force`), each under a heading when several are shown. A new feature's first view can
  /// come both from its store and from the navigation that showed it: it is printed once.
  private func draw(_ features: [PresentedFeature], focus: PresentedFeature, force: Bool) {
    var lines: [String] = []
    for feature in features {
      guard let view = feature.store.perform({ try? $0.render() }) else { continue }
      guard let context = feature.context as? Context, context.draws(view, force: force) else { continue }
      lines.append(features.count > 1 ? "\(heading(feature, focused: feature === focus))\n\(view)" : view)
    }
    if !lines.isEmpty { console.out(lines.joined(separator: "\n")) }
  }

  func record(step: String, frames: [(features: [PresentedFeature], focus: Int)]) {
    guard let navigation else { return }
    let recorded = frames.map { frame in
      NavigationJournal.Frame(
        features: frame.features.map { feature in
          NavigationJournal.Feature(id: feature.id, journal: (feature.context as? Context)?.relativePath ?? "")
        }, focus: frame.focus)
    }
    do {
      try navigation.append(step: step, frames: recorded)
    } catch {
      console.report(error)
      console.warn("navigation goes on without a journal: a restore will not show where you were")
      self.navigation = nil
    }
  }

  func log(_ line: String, isNote: Bool) {
    if isNote { console.note(line) } else { console.err(line) }
  }

  private func heading(_ feature: PresentedFeature, focused: Bool) -> String {
    console.heading("── \(feature.id)\(focused ? " (focus)" : "") ──")
  }

  // MARK: - Stores and journals

  /// Lets a store's observer find its feature, which exists only once the store does.
  private final class FeatureHolder: @unchecked Sendable {
    weak var feature: PresentedFeature?
  }

  /// The journal of a feature: the named session (restored when it exists), or a temporary one.
  private func openJournal(
    for plugin: LoadedPlugin, number: Int, recorded: String?
  ) throws(HostError) -> (SessionJournal, String, JournalRestorePoint?, String?) {
    let featureConfig = self.featureConfig(for: plugin, number: number)
    guard let name = settings.session else {
      let path = "\(temporaryFolder ?? NSTemporaryDirectory())/\(number)-\(plugin.id).jsonl"
      let journal = try SessionJournal.create(at: path, plugin: plugin, config: featureConfig, temporary: true)
      return (journal, featureConfig, nil, nil)
    }
    let directory = try SessionDirectory.default()
    try directory.ensureExists()
    let relative: String
    if let recorded {
      relative = recorded
    } else if !launchedFirst {
      // The first feature of a session journals into NAME.jsonl, as a one-feature session does.
      relative = "\(name).\(SessionDirectory.fileExtension)"
    } else {
      nextJournalNumber += 1
      relative = "\(name).d/\(nextJournalNumber)-\(plugin.id).\(SessionDirectory.fileExtension)"
    }
    launchedFirst = true
    let path = "\(directory.root)/\(relative)"
    guard FileManager.default.fileExists(atPath: path) else {
      if recorded != nil {
        throw HostError(
          "the session's navigation names '\(relative)', which is missing",
          help: "remove the session ('host sessions rm \(name)') to start afresh")
      }
      let journal = try SessionJournal.create(at: path, plugin: plugin, config: featureConfig)
      return (journal, featureConfig, nil, relative)
    }
    let opened = try SessionJournal.open(at: path, plugin: plugin)
    if let torn = opened.tornTail { console.warn("\(torn)") }
    if settings.configGiven && number == 1 && opened.config != featureConfig {
      console.warn("session '\(name)' keeps the config it was created with, \(opened.config); --config is ignored")
    }
    return (opened.journal, opened.config, opened.restorePoint, relative)
  }

  /// Opens (or creates) the session's navigation journal; returns the stack to restore, if any.
  private func openNavigation() throws(HostError) -> [NavigationJournal.Frame]? {
    guard let name = settings.session else { return nil }
    let directory = try SessionDirectory.default()
    try directory.ensureExists()
    let folder = "\(directory.root)/\(name).d"
    let path = "\(folder)/navigation.jsonl"
    // Journals of features presented before are numbered; new ones come after them.
    let existing = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    nextJournalNumber = existing.compactMap { Int($0.prefix { $0.isNumber }) }.max() ?? 1
    guard FileManager.default.fileExists(atPath: path) else {
      navigation = try NavigationJournal.create(at: path, flow: flow.name)
      return nil
    }
    let (journal, last, torn) = try NavigationJournal.open(at: path)
    if torn { console.warn("navigation journal '\(path)': the last line was torn by a crash and is ignored") }
    navigation = journal
    return last?.frames
  }

  /// The first feature gets `--config`; the home menu gets the features it offers.
  private func featureConfig(for plugin: LoadedPlugin, number: Int) -> String {
    if number == 1 && plugin.id != HomeMenu.id { return config }
    guard plugin.id == HomeMenu.id else { return "{}" }
    return HomeMenu.config(offering: plugins)
  }

  private static func makeTemporaryFolder() throws(HostError) -> String {
    var template = Array((NSTemporaryDirectory() + "featurehost-run-XXXXXX").utf8CString)
    guard let folder = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
      throw HostError("cannot create a temporary folder for the run's journals: \(String(cString: strerror(errno)))")
    }
    return String(cString: folder)
  }

  private func makeStore(
    plugin: LoadedPlugin, config: String, journal: SessionJournal, holder: FeatureHolder
  ) throws(HostError) -> Store {
    let interactive = console.inputIsTerminal
    let console = self.console
    let id = plugin.id
    return try Store(
      plugin: plugin, config: config,
      options: Store.Options(maxFeedbackSteps: settings.maxFeedbackSteps, rendersViews: interactive),
      journal: journal
    ) { [weak self] event in
      switch event {
      case .viewChanged(let view):
        guard let self, let feature = holder.feature, let coordinator = self.coordinator,
          coordinator.isVisible(feature), let context = feature.context as? Context, context.draws(view, force: false)
        else { return }
        // The visible count, not `top`: this runs on the store thread, which navigation may be
        // waiting for while it stops this very store.
        console.out(coordinator.visibleCount > 1 ? "\(self.heading(feature, focused: false))\n\(view)" : view)
      case .step(let json):
        guard let feature = holder.feature else { return }
        self?.coordinator?.receive(step: json, from: feature)
      case .rejected(let action, let source, let error):
        console.report(
          HostError(
            "\(id) refused the \(source.rawValue) action \(action): \(error)",
            help: source == .user ? "the state is unchanged; ':help' lists the actions and their arguments" : nil))
      case .paused(let error):
        console.report(error)
      case .log(let level, let message):
        if level >= .warning { console.warn("\(id): \(message)") }
      case .journalFailed(let error):
        console.report(error)
        console.warn("\(id) goes on without a journal: what happens from now on is not recorded")
      case .applied:
        break
      }
    }
  }

  // MARK: - The input loop

  /// The feature input goes to.
  private var focused: PresentedFeature? { coordinator?.top?.focus }

  private func finish(_ coordinator: Coordinator) -> Int32 {
    let interactive = console.inputIsTerminal
    if interactive {
      console.note("type an action, ':help' for help, ':quit' to leave")
    }
    var quit = false
    while !quit {
      console.prompt("\(focused?.id ?? "host")> ")
      guard let line = readLine(strippingNewline: true) else { break }
      console.promptAnswered()
      quit = handle(line)
    }
    if !interactive {
      if !quit { settleAll() }
      if let top = coordinator.top { draw(top.features, focus: top.focus, force: false) }
    }
    coordinator.stopAll()
    return 0
  }

  /// Waits (bounded) until the shown features settled and the navigation they caused is done.
  private func settleAll() {
    var shown: [ObjectIdentifier] = []
    // A step handled while settling may present new features: settle those too.
    for _ in 0..<8 {
      guard let coordinator, let top = coordinator.top else { return }
      let ids = top.features.map(ObjectIdentifier.init)
      if ids == shown { return }
      shown = ids
      for feature in top.features { settle(feature) }
      coordinator.flush()
    }
  }

  /// Handles one input line; returns true to quit.
  private func handle(_ line: String) -> Bool {
    let text = line.trimmingWhitespace()
    if text.isEmpty || text.hasPrefix("#") { return false }
    guard let feature = focused else { return true }
    let store = feature.store
    let plugin = feature.plugin
    guard text.hasPrefix(":") else {
      do {
        store.send(try ActionLine.parse(text, manifest: plugin.manifest), source: .user)
        if console.inputIsTerminal {
          // At a terminal, draw the view of a quick action before the next prompt.
          _ = store.waitUntilSettled(timeout: .milliseconds(250))
        } else if !plugin.manifest.steps.isEmpty {
          // A step the action emits at once navigates before the next line is read, so every
          // line goes to the feature it was typed for. A feature that declares no step cannot
          // navigate: its lines stream on without waiting.
          store.waitUntilIdle(timeout: settings.settleTimeout)
        }
        coordinator?.flush()
      } catch {
        console.report(error)
      }
      return false
    }
    let words = String(text.dropFirst()).split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    let command = words.first ?? ""
    let argument = words.dropFirst().joined(separator: " ")
    switch command {
    case "history":
      timeTravel(feature) { (journal, _) throws(HostError) -> String in
        let actions = try journal.effectiveActions()
        let lines = actions.map {
          "\(String($0.seq).leftPadded(to: 6))  \($0.source.rawValue.padding(toLength: 10))\($0.json)"
        }
        return (lines.isEmpty ? ["(no actions yet)"] : lines).joined(separator: "\n")
      }
    case "undo":
      timeTravel(feature) { (journal, instance) throws(HostError) -> String in
        "back at seq \(try journal.undo(on: instance))"
      }
    case "redo":
      timeTravel(feature) { (journal, instance) throws(HostError) -> String in
        "forward at seq \(try journal.redo(on: instance))"
      }
    case "goto":
      guard let seq = Int(argument), seq >= 0 else {
        console.report(
          HostError("':goto' needs a seq, got '\(argument)'", help: "':history' lists the seqs, e.g. ':goto 3'"))
        return false
      }
      timeTravel(feature) { (journal, instance) throws(HostError) -> String in
        try journal.goto(seq, on: instance)
        return "at seq \(seq)"
      }
    case "save":
      save(to: argument, feature: feature)
    case "load":
      guard !argument.isEmpty else {
        console.report(HostError("':load' needs a file", help: "e.g. ':load state.json' (written by ':save')"))
        return false
      }
      let state: String
      do {
        state = try String(contentsOfFile: argument, encoding: .utf8)
      } catch {
        console.report(HostError("cannot read '\(argument)': \(error.localizedDescription)", help: "check the path"))
        return false
      }
      timeTravel(feature) { (journal, instance) throws(HostError) -> String in
        try journal.load(state.trimmingWhitespace(), on: instance)
        return "loaded '\(argument)'"
      }
    case "quit", "q", "exit":
      return true
    case "open", "back", "focus":
      navigate(command, argument)
    case "help", "h", "?":
      console.out(help(plugin.manifest))
    case "state":
      switch store.perform({ instance in Result { () throws(PluginCallError) in try instance.snapshot() } }) {
      case .success(let state): console.out(state)
      case .failure(let error): console.report(HostError("\(plugin.id) could not snapshot its state: \(error)"))
      }
    case "view":
      if let view = store.perform({ try? $0.render() }) { console.out(view) }
    case "settle":
      settleAll()
    case "resume":
      if store.isPaused {
        store.resume()
      } else {
        console.report(HostError("\(plugin.id) is not paused", help: "':resume' only follows a runaway-guard pause"))
      }
    default:
      let commands = [
        "help", "state", "view", "settle", "resume", "history", "undo", "redo", "goto", "save", "load", "open",
        "back", "focus", "quit",
      ]
      let hint = Suggestion.closest(to: command, in: commands).map { "did you mean ':\($0)'? " } ?? ""
      console.report(
        HostError(
          "unknown command ':\(command)'",
          help: "\(hint)commands: \(commands.map { ":" + $0 }.joined(separator: ", "))"))
    }
    return false
  }

  /// `:open ID`, `:back`, `:focus ID`: through the coordinator, like a step.
  private func navigate(_ command: String, _ argument: String) {
    guard let coordinator else { return }
    do throws(HostError) {
      switch command {
      case "back":
        try coordinator.back()
      case let verb:
        guard !argument.isEmpty else {
          throw HostError(
            "':\(verb)' needs a feature id",
            help: "features: \(plugins.map(\.id).joined(separator: ", ")) ('host list' shows them)")
        }
        try verb == "open" ? coordinator.open(argument) : coordinator.focus(argument)
      }
    } catch {
      console.report(error)
    }
  }

  /// Runs a journal command on the feature's store thread, after everything queued before it;
  /// prints its answer on stdout, or its error.
  private func timeTravel(
    _ feature: PresentedFeature, _ body: @escaping (SessionJournal, PluginInstance) throws(HostError) -> String
  ) {
    guard let journal = (feature.context as? Context)?.journal else { return }
    let store = feature.store
    let result: Result<String, HostError> = store.perform { instance in
      do throws(HostError) {
        let answer = try body(journal, instance)
        store.invalidateView()
        return .success(answer)
      } catch {
        return .failure(error)
      }
    }
    switch result {
    case .success(let answer): console.out(answer)
    case .failure(let error): console.report(error)
    }
  }

  /// `:save FILE`: the state as JSON, written whole or not at all.
  private func save(to path: String, feature: PresentedFeature) {
    let store = feature.store
    let plugin = feature.plugin
    guard !path.isEmpty else {
      console.report(
        HostError("':save' needs a file", help: "e.g. ':save state.json'; ':load state.json' reads it back"))
      return
    }
    let result = store.perform { instance in Result { () throws(PluginCallError) in try instance.snapshot() } }
    do {
      let state = try result.get()
      try (state + "\n").write(toFile: path, atomically: true, encoding: .utf8)
      console.out("saved the state to '\(path)'")
    } catch let error as PluginCallError {
      console.report(HostError("\(plugin.id) could not snapshot its state: \(error)"))
    } catch {
      console.report(
        HostError(
          "cannot write '\(path)': \(error.localizedDescription)", help: "check the folder exists and is writable"))
    }
  }

  private func settle(_ feature: PresentedFeature) {
    let store = feature.store
    let plugin = feature.plugin
    switch store.waitUntilSettled(timeout: settings.settleTimeout) {
    case .settled, .stopped:
      break
    case .paused:
      console.note("\(plugin.id) is paused by the runaway guard; ':resume' to go on")
    case .timedOut:
      console.report(
        HostError(
          "\(plugin.id) did not settle within \(settings.settleTimeout) (\(store.effectsRunning) effect(s) in flight)",
          help: "raise --settle-timeout, or check what the feature is waiting for"))
    }
  }

  private func help(_ manifest: PluginManifest) -> String {
    var lines = ["\(manifest.name) \(manifest.version) (\(manifest.id)): \(manifest.description)", "", "actions:"]
    let width = manifest.actions.map { ActionLine.usage($0).count }.max() ?? 0
    for action in manifest.actions {
      let usage = ActionLine.usage(action)
      lines.append("  \(usage)\(String(repeating: " ", count: width - usage.count))  \(action.help)")
      for argument in action.arguments where !argument.help.isEmpty {
        lines.append("      \(argument.name): \(argument.help)")
      }
    }
    lines += [
      "  {\"type\": ...}  any action as raw JSON", "",
      "commands:",
      "  :state   print the state as JSON      :view    print the view",
      "  :settle  wait for effects to finish   :resume  go on after a runaway-guard pause",
      "  :history the actions that made the state   :undo  :redo  :goto SEQ   travel through them",
      "  :save FILE  write the state as JSON   :load FILE  replace the state with a saved one",
      "  :open ID    present another feature  :back  go back to the one before   :focus ID  type into ID",
      "  :help    this help                    :quit    stop and leave",
    ]
    return lines.joined(separator: "\n")
  }
}
