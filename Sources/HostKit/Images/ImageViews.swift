import Dispatch
import Synchronization

/// Draws the images of structured views for the line renderer at a 24-bit-colour terminal: the
/// view at once with placeholders, then again (`redraw`) as its images arrive: when the last one
/// is in, or a second after the first of a batch, whichever comes first.
public final class ImageViews: Sendable {
  private struct Shown {
    var view: StructuredView
    var waiting: Set<String>
    var redrawScheduled = false
    let redraw: @Sendable ([String]) -> Void
  }

  /// Hands the loader's news to the views once they exist.
  private final class Relay: Sendable {
    let target = Mutex<(@Sendable (String) -> Void)?>(nil)
  }

  private let loader: ImageLoader
  private let columns: @Sendable () -> Int
  private let shown = Mutex<[ObjectIdentifier: Shown]>([:])

  /// `columns` reads the terminal's width at each drawing.
  public init(loader settings: ImageLoader.Settings, columns: @escaping @Sendable () -> Int) {
    let relay = Relay()
    loader = ImageLoader(settings: settings) { url in relay.target.withLock { $0 }?(url) }
    self.columns = columns
    relay.target.withLock { $0 = { [weak self] url in self?.settled(url) } }
  }

  /// Whether a terminal with this environment draws images: 24-bit colour (`COLORTERM` is
  /// `truecolor` or `24bit`), colours allowed (`NO_COLOR` unset or empty) and not `TERM=dumb`.
  public static func terminalDrawsImages(environment: [String: String]) -> Bool {
    guard ["truecolor", "24bit"].contains(environment["COLORTERM"]?.lowercased() ?? "") else { return false }
    if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
    return environment["TERM"] != "dumb"
  }

  /// The lines of `view`, shown for `key` (one feature) until the next call for it. `redraw` is
  /// called, on a loader thread, with the lines again once images have arrived.
  public func draw(_ view: StructuredView, for key: ObjectIdentifier, redraw: @escaping @Sendable ([String]) -> Void)
    -> [String]
  {
    var waiting: Set<String> = []
    let lines = ImageGallery.lines(view, columns: columns()) { image in
      let status = loader.status(of: image.url)
      if status == .loading { waiting.insert(image.url) }
      return status
    }
    shown.withLock { $0[key] = waiting.isEmpty ? nil : Shown(view: view, waiting: waiting, redraw: redraw) }
    return lines
  }

  /// Forgets what was shown for `key` (its feature is gone or shows text).
  public func forget(_ key: ObjectIdentifier) { _ = shown.withLock { $0.removeValue(forKey: key) } }

  public func close() { loader.close() }

  private func settled(_ url: String) {
    let now = shown.withLock { shown -> [ObjectIdentifier] in
      var due: [ObjectIdentifier] = []
      for (key, var entry) in shown where entry.waiting.contains(url) {
        entry.waiting.remove(url)
        if entry.waiting.isEmpty {
          due.append(key)
        } else if !entry.redrawScheduled {
          entry.redrawScheduled = true
          DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in self?.redrawIfShown(key) }
        }
        shown[key] = entry
      }
      return due
    }
    for key in now { redrawIfShown(key) }
  }

  private func redrawIfShown(_ key: ObjectIdentifier) {
    guard let entry = shown.withLock({ $0[key] }) else { return }
    let lines = draw(entry.view, for: key, redraw: entry.redraw)
    entry.redraw(lines)
  }
}
