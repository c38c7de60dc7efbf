import FeatureKit

/// The kittens as pictures: the lines of `render`, each numbered URL line an image whose
/// alternative text is that very line, so a host that cannot draw it shows today's text.
extension KittensFeature: StructuredViewFeature {
  public func viewItems(_ state: State) -> [ViewItem] {
    let first = max(0, state.urls.count - Self.shownURLs)
    var shown: [String: String] = [:]
    for index in first..<state.urls.count { shown["\(index + 1). \(state.urls[index])"] = state.urls[index] }
    return render(state).map { line in
      let numbered = String(line.drop { $0 == " " })
      guard let url = shown[numbered] else { return .text(line) }
      return .image(url: url, alt: line)
    }
  }
}
