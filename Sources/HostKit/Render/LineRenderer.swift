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

  /// Draws the images of views that carry them (`fh.structured_view/1`), when given.
  private let images: ImageViews?

  /// `images`: where the terminal draws pictures (see `ImageViews.terminalDrawsImages`); nil
  /// draws every view as its text, as a pipe does.
  public init(sink: any LineSink, live: Bool, images: ImageViews? = nil) {
    self.sink = sink
    followsViews = live
    self.images = images
  }

  /// An action's view comes as `.viewChanged`.
  public var hearsApplied: Bool { false }

  public func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    if case .instanceRestarted = event, let feature = origin.feature {
      // After the crash's lines, the restarted feature's view is drawn again, changed or not.
      _ = drawn.withLock { $0.removeValue(forKey: ObjectIdentifier(feature)) }
      return
    }
    guard case .viewChanged(let view) = event, let feature = origin.feature, origin.isVisible,
      remembers(view, of: feature, force: false)
    else { return }
    let heading = origin.visibleCount > 1 ? heading(feature, focused: false) : nil
    if let pictures = pictures(of: view, feature: feature, heading: heading) {
      sink.writeLines(pictures)
      return
    }
    let safe = TerminalText.sanitized(view)
    sink.writeLines(heading.map { "\($0)\n\(safe)" } ?? safe)
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
      let heading = features.count > 1 ? heading(feature, focused: feature === focus) : nil
      if let pictures = pictures(of: view, feature: feature, heading: heading) {
        lines.append(pictures)
        continue
      }
      let safe = TerminalText.sanitized(view)
      lines.append(heading.map { "\($0)\n\(safe)" } ?? safe)
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

  /// `view` drawn with its images, under `heading`, when images are drawn here and the feature
  /// offers a structured view that says what `view` says; nil: draw the text. Later, as images
  /// arrive, the view is drawn again while it is still the one last drawn of `feature`.
  private func pictures(of view: String, feature: PresentedFeature, heading: String?) -> String? {
    guard let images else { return nil }
    let key = ObjectIdentifier(feature)
    guard let json = feature.store.perform({ try? $0.structuredView() }) ?? nil,
      var structured = try? StructuredView.parse(json)
    else {
      images.forget(key)
      return nil
    }
    // The line under a view whose journal cannot save is the host's, after the plugin's view.
    let text = structured.text
    if view != text {
      guard view.hasPrefix(text + "\n") else {
        images.forget(key)
        return nil
      }
      structured.items += view.dropFirst(text.count + 1).split(separator: "\n", omittingEmptySubsequences: false)
        .map { .text(String($0)) }
    }
    let lines = images.draw(structured, for: key) { [weak self, weak feature] lines in
      guard let self, let feature, self.isLastDrawn(view, of: feature) else { return }
      self.sink.writeLines(((heading.map { [$0] } ?? []) + lines).joined(separator: "\n"))
    }
    return ((heading.map { [$0] } ?? []) + lines).joined(separator: "\n")
  }

  private func isLastDrawn(_ view: String, of feature: PresentedFeature) -> Bool {
    drawn.withLock { drawn in
      guard let last = drawn[ObjectIdentifier(feature)] else { return false }
      return last.feature === feature && last.view == view
    }
  }

  private func heading(_ feature: PresentedFeature, focused: Bool) -> String {
    sink.heading("── \(feature.id)\(focused ? " (focus)" : "") ──")
  }
}
