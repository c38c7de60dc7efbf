import Dispatch
import FeatureJSON
import Synchronization

/// One feature on the navigation stack: its store, and where it came from.
public final class PresentedFeature: Sendable {
  public let plugin: LoadedPlugin
  public let store: Store
  /// Counts presentations, so two copies of one feature can be told apart.
  public let number: Int
  /// Whatever the launcher keeps with it (its journal).
  public let context: (any AnyObject & Sendable)?

  public init(plugin: LoadedPlugin, store: Store, number: Int, context: (any AnyObject & Sendable)? = nil) {
    self.plugin = plugin
    self.store = store
    self.number = number
    self.context = context
  }

  public var id: String { plugin.id }
}

/// Why the visible features are being shown.
public enum ShowReason: Sendable, Equatable {
  /// The flow's start.
  case start
  /// Pushed, presented or replaced: new features.
  case presented
  /// Uncovered by a pop: features that were there all along.
  case revealed
  /// The focus moved within the top frame.
  case focused
  /// The terminal changed size: the same features, drawn again to fit it.
  case resized
}

/// Creates, shows and retires the features the coordinator presents. Implemented by the CLI (and
/// by tests), which decide how stores are observed and drawn.
public protocol FeatureLauncher: AnyObject, Sendable {
  /// Loads `plugin` (the first time it is launched), creates and starts a store for it; route its
  /// `.step` events to `Coordinator.receive`. With `journal`, restore the feature from that
  /// journal (a session being restored). A plugin that fails to load throws, naming it.
  func launch(_ plugin: PluginRecord, number: Int, journal: String?) throws(HostError) -> PresentedFeature
  /// Stops a feature that was popped or replaced (cancelling its effects).
  func retire(_ feature: PresentedFeature)
  /// The stack after a navigation (bottom frame first, with the focused index of each), before
  /// it is shown: a session journals it here.
  func record(step: String, frames: [(features: [PresentedFeature], focus: Int)])
  /// The visible features changed: draw them.
  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason)
  /// One line of the navigation log, or a note about an ignored step.
  func log(_ line: String, isNote: Bool)
}

/// Applies navigation: a stack of frames, each one feature or several side by side. Steps from
/// the presented features, `:open`, `:back` and `:focus` all come through here, one at a time.
///
/// Covered features keep their state and stop drawing; popping a feature stops it. A step from a
/// feature that is not on the top frame is ignored, and the log says so.
// @unchecked: `stack` and `presentations` are touched on `queue` only; `visible` and `shown` are locked.
public final class Coordinator: FeatureStage, @unchecked Sendable {
  private struct Frame {
    var features: [PresentedFeature]
    var focus: Int
  }

  public let flow: Flow
  /// The features a flow may present, by id; none is loaded until it is launched.
  private let plugins: [String: PluginRecord]
  private let launcher: any FeatureLauncher
  private let logsNavigation: Bool
  /// Serializes navigation: steps arrive from store threads, commands from the terminal.
  private let queue = DispatchQueue(label: "featurehost.coordinator")
  // Touched on `queue` only.
  private var stack: [Frame] = []
  private var presentations = 0
  /// What is visible, readable from any thread (store observers ask before drawing).
  private let visible = Locked<Set<ObjectIdentifier>>([])
  /// The top frame as the queue last left it, readable from any thread under a lock.
  private let shown = Locked<(features: [PresentedFeature], focus: PresentedFeature)?>(nil)
  /// Bumped after each change of `shown`, from 1 (every coordinator's count starts past the
  /// others': a reader that compares it never takes one coordinator's for another's).
  private let shownVersion = Atomic<UInt64>(Coordinator.versions.add(1 << 32, ordering: .relaxed).newValue)
  private static let versions = Atomic<UInt64>(0)

  public init(flow: Flow, plugins: [PluginRecord], launcher: any FeatureLauncher, logsNavigation: Bool) {
    self.flow = flow
    self.plugins = Dictionary(plugins.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    self.launcher = launcher
    self.logsNavigation = logsNavigation
  }

  /// Presents the flow's start.
  public func start() throws(HostError) {
    try onQueue { () throws(HostError) in try apply(flow.start, step: "start", fields: .object([:])) }
  }

  /// Re-presents a recorded stack (a session being restored): every feature from its journal.
  public func restore(_ frames: [NavigationJournal.Frame]) throws(HostError) {
    try onQueue { () throws(HostError) in
      for recorded in frames {
        var features: [PresentedFeature] = []
        for feature in recorded.features {
          guard let plugin = plugins[feature.id] else {
            throw HostError(NavigationFailure.restoredFeatureMissing(id: feature.id))
          }
          presentations += 1
          features.append(try launcher.launch(plugin, number: presentations, journal: feature.journal))
        }
        guard !features.isEmpty else { continue }
        stack.append(Frame(features: features, focus: min(max(recorded.focus, 0), features.count - 1)))
      }
      guard let frame = stack.last else { throw HostError(NavigationFailure.nothingRestored) }
      visible.withLock { $0 = Set(frame.features.map(ObjectIdentifier.init)) }
      if logsNavigation {
        launcher.log(
          "did navigate flow=\(flow.name) step=restore to=\(frame.features.map(\.id).joined(separator: ","))",
          isNote: false)
      }
      launcher.show(frame.features, focus: frame.features[frame.focus], reason: .start)
    }
  }

  /// `:open ID`: pushes a feature, as a step mapped to `push` would.
  public func open(_ id: String) throws(HostError) {
    try onQueue { () throws(HostError) in try apply(.push(.feature(id)), step: ":open \(id)", fields: .object([:])) }
  }

  /// `:back`: pops the top frame, stopping its features.
  public func back() throws(HostError) {
    try onQueue { () throws(HostError) in try apply(.pop, step: ":back", fields: .object([:])) }
  }

  /// `:focus ID`: sends input to another feature of the top frame.
  public func focus(_ id: String) throws(HostError) {
    try onQueue { () throws(HostError) in
      guard var frame = stack.last else { return }
      guard let index = frame.features.firstIndex(where: { $0.id == id }) else {
        throw HostError(NavigationFailure.notShown(id: id, shown: frame.features.map(\.id)))
      }
      frame.focus = index
      stack[stack.count - 1] = frame
      launcher.record(step: ":focus \(id)", frames: stack.map { ($0.features, $0.focus) })
      launcher.show(frame.features, focus: frame.features[index], reason: .focused)
    }
  }

  /// A step emitted by `feature` (any thread): handled after the navigation queued before it.
  public func receive(step json: String, from feature: PresentedFeature) {
    queue.async { [self] in
      let step = (try? JSONValue.parse(json)) ?? .null
      guard let name = step["step"]?.stringValue else {
        launcher.log("ignored a step from \(feature.id) without a string \"step\": \(json)", isNote: true)
        return
      }
      guard let top = stack.last, top.features.contains(where: { $0 === feature }) else {
        launcher.log("ignored step=\(name) from=\(feature.id): it is not presented", isNote: true)
        return
      }
      guard let rule = flow.rules[name] else {
        launcher.log("ignored step=\(name) from=\(feature.id): flow \(flow.name) has no rule for it", isNote: true)
        return
      }
      defer { publishTop() }
      do throws(HostError) {
        try apply(rule, step: name, fields: step)
      } catch {
        launcher.log("step=\(name) from=\(feature.id) failed: \(error.message)", isNote: true)
      }
    }
  }

  /// Waits until every step and command queued so far has been handled.
  public func flush() { queue.sync {} }

  /// The features on the top frame, and the focused one.
  public var top: (features: [PresentedFeature], focus: PresentedFeature)? {
    queue.sync {
      guard let frame = stack.last else { return nil }
      return (frame.features, frame.features[frame.focus])
    }
  }

  /// `top` as navigation last left it, under a lock instead of a wait on the navigation queue.
  public var shownTop: (features: [PresentedFeature], focus: PresentedFeature)? { shown.withLock { $0 } }

  /// Changes whenever `shownTop` may have: read once a line by piped input, which takes
  /// `shownTop` again only then (a lock and the features' retains a line cost 20% of it).
  public var shownTopVersion: UInt64 { shownVersion.load(ordering: .acquiring) }

  /// Keeps `shownTop` in step with the stack. On the queue.
  private func publishTop() {
    let frame = stack.last.map { ($0.features, $0.features[$0.focus]) }
    shown.withLock { $0 = frame }
    shownVersion.add(1, ordering: .releasing)
  }

  /// Every live feature, bottom of the stack first.
  public var all: [PresentedFeature] { queue.sync { stack.flatMap(\.features) } }

  /// The stack, bottom frame first: each frame's features and the index of its focus.
  public var frames: [(features: [PresentedFeature], focus: Int)] {
    queue.sync { stack.map { ($0.features, $0.focus) } }
  }

  /// How many frames the stack holds.
  public var depth: Int { queue.sync { stack.count } }

  /// How many features the top frame shows. Any thread, without waiting on navigation.
  public var visibleCount: Int { visible.withLock { $0.count } }

  /// Whether `feature` is on the top frame (it draws). Any thread.
  public func isVisible(_ feature: PresentedFeature) -> Bool {
    visible.withLock { $0.contains(ObjectIdentifier(feature)) }
  }

  /// Stops every feature, top first.
  public func stopAll() {
    queue.sync {
      for frame in stack.reversed() { for feature in frame.features { launcher.retire(feature) } }
      stack.removeAll()
      visible.withLock { $0.removeAll() }
      publishTop()
    }
  }

  // MARK: - On the queue

  private func onQueue(_ body: () throws(HostError) -> Void) throws(HostError) {
    let result: Result<Void, HostError> = queue.sync {
      defer { publishTop() }
      do throws(HostError) {
        try body()
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }

  private func apply(_ navigation: Flow.Navigation, step: String, fields: JSONValue) throws(HostError) {
    if logsNavigation { launcher.log("will navigate flow=\(flow.name) step=\(step)", isNote: false) }
    switch navigation {
    case .push(let target):
      stack.append(Frame(features: [try launch(target, fields: fields)], focus: 0))
    case .present(let targets):
      var features: [PresentedFeature] = []
      do {
        for target in targets { features.append(try launch(target, fields: fields)) }
      } catch {
        for feature in features { launcher.retire(feature) }
        throw error
      }
      stack.append(Frame(features: features, focus: 0))
    case .replace(let target):
      let feature = try launch(target, fields: fields)
      if let old = stack.popLast() { for gone in old.features { launcher.retire(gone) } }
      stack.append(Frame(features: [feature], focus: 0))
    case .pop:
      guard stack.count > 1, let old = stack.popLast() else {
        throw HostError(NavigationFailure.nothingToGoBackTo)
      }
      // Drawn no more before it stops, so nothing it prints while stopping shows.
      visible.withLock { $0.subtract(old.features.map(ObjectIdentifier.init)) }
      for gone in old.features { launcher.retire(gone) }
    }
    guard let frame = stack.last else { return }
    launcher.record(step: step, frames: stack.map { ($0.features, $0.focus) })
    visible.withLock { $0 = Set(frame.features.map(ObjectIdentifier.init)) }
    let shown = frame.features.map(\.id).joined(separator: ",")
    if logsNavigation { launcher.log("did navigate flow=\(flow.name) step=\(step) to=\(shown)", isNote: false) }
    let reason: ShowReason
    switch navigation {
    case .pop: reason = .revealed
    case _ where step == "start": reason = .start
    default: reason = .presented
    }
    launcher.show(frame.features, focus: frame.features[frame.focus], reason: reason)
  }

  private func launch(_ target: Flow.Target, fields: JSONValue) throws(HostError) -> PresentedFeature {
    guard let id = target.resolve(in: fields) else {
      throw HostError(NavigationFailure.stepLacksField(target: "\(target)", step: fields.serialized()))
    }
    guard let plugin = plugins[id] else {
      let known = plugins.keys.sorted()
      throw HostError(
        NavigationFailure.unknownFeature(id: id, suggestion: Suggestion.closest(to: id, in: known), known: known))
    }
    presentations += 1
    return try launcher.launch(plugin, number: presentations, journal: nil)
  }
}
