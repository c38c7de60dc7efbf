import Synchronization

/// Draws views as plain lines through a `LineSink`: each view once until it changes, under a
/// heading per feature when several are shown, nothing of a covered feature. A view's control
/// characters reach the sink as visible escapes (`TerminalText`), never as controls.
///
/// Live (input from a terminal), it draws views as they change and at every navigation. Not live
/// (a pipe), stores do not render as they go: navigation after the start draws where it led, and
/// `finish` draws the final view.
public final class LineRenderer: FeatureRenderer {
  private let sink: any LineSink
  public let followsViews: Bool
  /// The view last drawn of each feature.
  private let drawn = Mutex<[ObjectIdentifier: Drawn]>([:])

  private struct Drawn: Sendable {
    weak var feature: PresentedFeature?
    var view: String
  }

  public init(sink: any LineSink, live: Bool) {
    self.sink = sink
    followsViews = live
  }

  public func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    if case .instanceRestarted = event, let feature = origin.feature {
      // After the crash's lines, the restarted feature's view is drawn again, changed or not.
      _ = drawn.withLock { $0.removeValue(forKey: ObjectIdentifier(feature)) }
      return
    }
    guard case .viewChanged(let view) = event, let feature = origin.feature, origin.isVisible,
      remembers(view, of: feature, force: false)
    else { return }
    let safe = TerminalText.sanitized(view)
    sink.writeLines(origin.visibleCount > 1 ? "\(heading(feature, focused: false))\n\(safe)" : safe)
  }

  public func draws(on reason: ShowReason) -> Bool {
    // In a pipe the start draws nothing: the final view comes at the end.
    followsViews || reason != .start
  }

  public func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    guard draws(on: reason) else { return }
    // A revealed or refocused feature has not changed: draw it anyway.
    draw(features, focus: focus, force: reason != .presented && reason != .start)
  }

  public func finish(_ features: [PresentedFeature], focus: PresentedFeature) {
    // Live, every view was drawn as it came.
    guard !followsViews else { return }
    draw(features, focus: focus, force: false)
  }

  /// Prints the views of `features` that differ from what was last drawn of them (all of them
  /// with `force`), each under a heading when several are shown. A new feature's first view can
  /// come both from its store and from the navigation that showed it: it is printed once.
  private func draw(_ features: [PresentedFeature], focus: PresentedFeature, force: Bool) {
    var lines: [String] = []
    for feature in features {
      let hints = feature.store.renderHints
      guard let drawn = feature.store.perform({ try? $0.render(hints) }),
        case let view = feature.store.unsavedMark.map({ drawn + "\n" + $0 }) ?? drawn,
        remembers(view, of: feature, force: force)
      else {
        continue
      }
      let safe = TerminalText.sanitized(view)
      lines.append(features.count > 1 ? "\(heading(feature, focused: feature === focus))\n\(safe)" : safe)
    }
    if !lines.isEmpty { sink.writeLines(lines.joined(separator: "\n")) }
  }

  /// Whether `view` is to be drawn for `feature` (it changed, or `force`); remembers it.
  private func remembers(_ view: String, of feature: PresentedFeature, force: Bool) -> Bool {
    drawn.withLock { drawn in
      let key = ObjectIdentifier(feature)
      // An entry of a feature that is gone may share its address with a new one: it does not count.
      if let last = drawn[key], last.feature === feature, last.view == view, !force { return false }
      // A new feature: forget the ones that are gone.
      if drawn[key]?.feature !== feature { drawn = drawn.filter { $0.value.feature != nil } }
      drawn[key] = Drawn(feature: feature, view: view)
      return true
    }
  }

  private func heading(_ feature: PresentedFeature, focused: Bool) -> String {
    sink.heading("── \(feature.id)\(focused ? " (focus)" : "") ──")
  }
}
