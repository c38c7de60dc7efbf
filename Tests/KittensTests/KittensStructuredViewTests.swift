import FeatureJSON
import FeatureKit
import KittensFeature
import Testing

/// Kittens' structured view (`fh.structured_view/1`): its URL lines are images whose
/// alternative text is the very line `render` shows, and everything else stays text.
@Suite("kittens' structured view")
struct KittensStructuredViewTests {
  let feature = KittensFeature(catalog: KittenCatalog(endpoint: "file:///nonexistent/catalog.json"))

  @Test func urlLinesBecomeImagesAndTheTextIsRendersText() {
    let state = KittensFeature.State(urls: ["https://cats.test/a.jpg", "https://cats.test/b.png"], endReached: true)
    let items = feature.viewItems(state)
    #expect(items.map(\.line) == feature.render(state))
    #expect(
      items.filter { if case .image = $0 { true } else { false } } == [
        .image(url: "https://cats.test/a.jpg", alt: "  1. https://cats.test/a.jpg"),
        .image(url: "https://cats.test/b.png", alt: "  2. https://cats.test/b.png"),
      ])
    #expect(items.first == .text("Kittens — 2 images"))
  }

  @Test func onlyTheShownURLsAreImages() {
    let urls = (1...25).map { "https://cats.test/\($0).jpg" }
    let state = KittensFeature.State(urls: urls)
    let images = feature.viewItems(state).compactMap { item -> String? in
      if case .image(let url, _, _, _) = item { url } else { nil }
    }
    #expect(images == Array(urls.suffix(KittensFeature.shownURLs)))
  }

  @Test func theJSONCarriesURLAndAlt() throws {
    let json = [ViewItem.text("t"), .image(url: "file:///c.png", alt: "1. c", width: 4, height: 2)].structuredViewJSON
    let value = try JSONValue.parse(json)
    #expect(value["items"]?.arrayValue?.count == 2)
    #expect(value["items"]?.arrayValue?[1]["image"]?["url"]?.stringValue == "file:///c.png")
    #expect(value["items"]?.arrayValue?[1]["image"]?["width"]?.intValue == 4)
  }
}
