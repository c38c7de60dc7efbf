/// The last view a store reported and whether the instance's view may have changed since:
/// views are reported distinct until changed.
///
/// Confined to the store thread (`StoreLoop`).
struct ViewCache {
  /// Whether an applied action (or a job) may have changed the view since it was last drawn.
  private(set) var isStale = true
  /// The last view reported (with the unsaved mark under it, when there was one).
  private(set) var last: String?
  /// Whether the next drawing is reported even when unchanged: error lines came after the last.
  private var redrawsUnchanged = false

  /// The view may have changed.
  mutating func invalidate() { isStale = true }

  /// The view is drawn again even when unchanged (a restart or a reload printed lines after it).
  mutating func redraw() {
    isStale = true
    redrawsUnchanged = true
  }

  /// About to draw: the view is no longer stale.
  mutating func drawing() { isStale = false }

  /// The view just drawn: returns it when it is to be reported, nil when it is the last one again.
  mutating func drawn(_ shown: String) -> String? {
    guard shown != last || redrawsUnchanged else { return nil }
    redrawsUnchanged = false
    last = shown
    return shown
  }

  /// What ends on screen when no instance can draw and none drew yet: `view()`, asked only then.
  mutating func endOn(_ view: () -> String?) {
    if last == nil { last = view() }
  }
}
