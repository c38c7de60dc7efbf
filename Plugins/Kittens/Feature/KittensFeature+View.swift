import FeatureKit

extension KittensFeature {
  /// URL lines shown at most: the latest ones, so the page just loaded is in view.
  public static let shownURLs = 20

  /// How the reasons of a failure to reach a server begin: the network may be down.
  static let offlineReasons = ["no answer from", "cannot connect to", "cannot find the host of", "no network to reach"]

  /// The title, what is going on (loading, error, end), then the latest URLs with their numbers
  /// in the whole list, after a line counting the earlier ones.
  public func render(_ state: State) -> [String] { render(state, options: RenderOptions()) }

  /// As `render(_:)`; with `options.complete` (the host's `:view`) every URL, none counted away.
  public func render(_ state: State, options: RenderOptions) -> [String] {
    let count = state.urls.count
    var lines = ["Kittens — \(count) \(count == 1 ? "image" : "images")"]
    if state.isLoading {
      lines.append("loading page at offset \(state.loadingOffset)...")
    }
    if let error = state.error {
      lines.append("error: \(error)")
      lines.append("type 'refresh' to try again")
      if Self.offlineReasons.contains(where: error.hasPrefix) {
        lines.append(
          "offline? a catalog file works without a network: --config endpoint=file://$PWD/Plugins/Kittens/catalog.json")
      }
    }
    let first = options.complete ? 0 : max(0, count - Self.shownURLs)
    if first > 0 {
      lines.append("... \(first) earlier (':view' lists every URL)")
    }
    let width = max(3, String(count).count)
    for index in first..<count {
      let number = String(index + 1)
      lines.append("\(String(repeating: " ", count: width - number.count))\(number). \(state.urls[index])")
    }
    if state.endReached {
      lines.append("end of the catalog: 'loadMore' has nothing more to load")
    } else if !state.isLoading, count > 0 {
      lines.append("type 'loadMore' for the next page")
    }
    return lines
  }
}
