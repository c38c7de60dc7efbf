import FeatureABI
import Foundation

/// One check's run: the opened plugin, its settings, the deadline of its waits, and the callback
/// bindings of every instance it made.
final class ConformanceRun {
  let subject: ConformanceSubject
  let settings: ConformanceSuite.Settings
  let deadline: Date
  let progress: (String) -> Void
  private var bindings: [CallbackBinding] = []

  /// Opens the plugin as far as `check` needs; nil when `check` is a structural step that passed
  /// (there is nothing more to do). A structural failure is `check`'s own reason, or, for a later
  /// check, why it could not run.
  init?(
    check: ConformanceCheck, path: String, settings: ConformanceSuite.Settings, progress: @escaping (String) -> Void
  ) throws(CheckFailure) {
    do throws(ConformanceSubject.StepFailure) {
      progress("dlopen")
      let handle = try ConformanceSubject.load(path)
      if check == .loads { return nil }
      progress("\(FH_ENTRY_SYMBOL)()")
      let descriptor = try ConformanceSubject.entry(handle, path: path)
      if check == .entry { return nil }
      progress("reading the descriptor")
      subject = try ConformanceSubject.checkDescriptor(descriptor, path: path)
      if check == .descriptor { return nil }
    } catch {
      throw CheckFailure(error.check == check ? error.why : "not run: '\(error.check.name)' failed: \(error.why)")
    }
    self.settings = settings
    self.progress = progress
    deadline = Date(timeIntervalSinceNow: settings.timeout * 0.8)
  }

  deinit {
    // Never freed: a plugin that breaks the contract may call back after destroy, and the check
    // process exits right after its verdict anyway.
    for binding in bindings { _ = Unmanaged.passRetained(binding) }
  }

  /// The catalogue, or why the behaviour checks built on it cannot run.
  func catalogue() throws(CheckFailure) -> [ActionSpec] { try subject.catalogue() }

  /// A new instance, created with the config and not started.
  func makeInstance() throws(CheckFailure) -> ConformanceInstance {
    try ConformanceInstance(subject: subject, config: settings.config) { bindings.append($0) }
  }

  /// create's answer to `config` (NULL when nil); what it made is destroyed.
  func probeCreate(config: String?) throws(CheckFailure) -> CallResult {
    try ConformanceInstance.probeCreate(subject: subject, config: config) { bindings.append($0) }
  }

  /// A new instance, started and sent `created`.
  func startedInstance() throws(CheckFailure) -> ConformanceInstance {
    let instance = try makeInstance()
    try instance.startFresh()
    return instance
  }

  /// A started instance, settled after `created`, and the catalogue's samples, by action: where
  /// the checks that try every sample begin. The caller destroys the instance.
  func settledInstanceWithSamples() throws(CheckFailure) -> (ConformanceInstance, samples: [[String]]) {
    let samples = try catalogue().map(ActionSamples.candidates(for:))
    let instance = try startedInstance()
    do {
      try settle(instance, after: "created")
    } catch {
      instance.destroy()
      throw error
    }
    return (instance, samples)
  }

  /// Applies what `instance` emits until it settles; a plugin that does not settle by the
  /// deadline fails the check, saying what it waited for. `applied` sees each applied action;
  /// emitted actions the plugin refuses are left in `refusedEmits` (the `catalogue` check's).
  func settle(
    _ instance: ConformanceInstance, after label: String,
    applied: (String) throws(CheckFailure) -> Void = { _ in }
  ) throws(CheckFailure) {
    switch try instance.settle(until: deadline, applied: applied) {
    case .settled:
      break
    case .timedOut(let effects):
      throw CheckFailure(
        "did not settle after \(label): \(effects) effect(s) still in flight after "
          + "\(Self.seconds(settings.timeout * 0.8)); point the feature's effects at something local with "
          + "--config, or raise --timeout")
    case .runaway:
      throw CheckFailure(
        "did not settle after \(label): it emitted more than \(ConformanceInstance.settleStepLimit) actions in a row")
    }
  }

  static func seconds(_ value: Double) -> String {
    value == value.rounded() ? "\(Int(value)) s" : "\((value * 10).rounded() / 10) s"
  }
}
