import FeatureKit

extension KittensFeature {
  /// URL lines shown at most; the rest are counted in one `... N more` line.
  public static let shownURLs = 20

  /// The title, what is going on (loading, error, end), then the numbered URLs.
  public func render(_ state: State) -> [String] {
    let count = state.urls.count
    var lines = ["Kittens — \(count) \(count == 1 ? "image" : "images")"]
    if state.isLoading {
      lines.append("loading page at offset \(state.loadingOffset)...")
    }
    if let error = state.error {
      lines.append("error: \(error)")
      lines.append("type 'refresh' to try again")
    }
    for (index, url) in state.urls.prefix(Self.shownURLs).enumerated() {
      // Numbers right-aligned in three columns: "  1." to " 20.".
      let number = String(index + 1)
      lines.append("\(String(repeating: " ", count: max(0, 3 - number.count)))\(number). \(url)")
    }
    if count > Self.shownURLs {
      lines.append("... \(count - Self.shownURLs) more")
    }
    if state.endReached {
      lines.append("end of the catalog: 'loadMore' has nothing more to load")
    } else if !state.isLoading, count > 0 {
      lines.append("type 'loadMore' for the next page")
    }
    return lines
  }
}
