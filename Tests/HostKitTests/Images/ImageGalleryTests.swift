import HostKit
import Testing

/// The half-block layout: thumbnails in rows with their labels, placeholders while loading,
/// failed images as their alternative line with the reason, text lines as they are.
@Suite("image gallery layout")
struct ImageGalleryTests {
  static let view = StructuredView(items: [
    .text("Kittens — 3 images"),
    .image(ImageItem(url: "u1", alt: "  1. https://cats.test/images/first.png")),
    .image(ImageItem(url: "u2", alt: "  2. https://cats.test/images/second.jpg", width: 400, height: 200)),
    .image(ImageItem(url: "u3", alt: "  3. https://cats.test/images/third.gif")),
    .text("type 'loadMore' for the next page"),
  ])

  static let red = Thumbnail(width: 4, height: 4, rgb: TestImages.solid(width: 4, height: 4, 255, 0, 0))

  func lines(columns: Int = 80) -> [String] {
    ImageGallery.lines(Self.view, columns: columns) { image in
      switch image.url {
      case "u1": .ready(Self.red)
      case "u2": .loading
      default: .failed("a GIF (only JPEG and PNG are drawn)")
      }
    }
  }

  /// Found by the structured-view fuzz target: a view without items is valid and draws nothing.
  @Test func aViewWithoutItemsIsEmptyTextAndNoLines() throws {
    let view = try StructuredView.parse(#"{"items":[]}"#)
    #expect(view.items.isEmpty)
    #expect(view.text == "")
    #expect(ImageGallery.lines(view, columns: 40) { _ in .loading }.isEmpty)
  }

  @Test func thumbnailsAreHalfBlocksIn24BitColourWithLabelsUnderThem() {
    let lines = lines()
    let width = ImageGallery.tileWidth(columns: 80)
    #expect(width == 18)
    #expect(lines.first == "Kittens — 3 images")
    #expect(lines.last == "type 'loadMore' for the next page")
    // The red square: width x width pixels, two a line.
    let picture = lines.filter { $0.contains("\u{1B}[38;2;255;0;0;48;2;255;0;0m▀") }
    #expect(picture.count == width / 2)
    #expect(picture.allSatisfy { $0.filter { $0 == "▀" }.count == width })
    #expect(lines.contains("1. …ages/first.png  2. …ges/second.jpg"))
    #expect(lines.contains("  3. https://cats.test/images/third.gif  (not shown: a GIF (only JPEG and PNG are drawn))"))
  }

  @Test func aLoadingImageIsAPlaceholderOfItsPreferredProportions() {
    let lines = lines()
    // 400 x 200 at 18 pixels wide: 9 pixel rows, 5 lines; the red square's 9 lines make the row.
    #expect(lines.filter { $0.contains("loading…") }.count == 1)
    #expect(lines.filter { $0.contains("\u{1B}[48;2;48;48;48m") }.count == 5)
  }

  @Test func aNarrowTerminalGetsOneThumbnailARow() {
    let lines = lines(columns: 12)
    #expect(lines.contains { $0.hasPrefix("1. ") } && lines.contains { $0.hasPrefix("2. ") })
    #expect(!lines.contains { $0.contains("1. ") && $0.contains("2. ") })
  }

  @Test func onlyTrueColourTerminalsThatAllowColourDrawImages() {
    #expect(ImageViews.terminalDrawsImages(environment: ["COLORTERM": "truecolor", "TERM": "xterm-256color"]))
    #expect(ImageViews.terminalDrawsImages(environment: ["COLORTERM": "24bit", "NO_COLOR": ""]))
    #expect(!ImageViews.terminalDrawsImages(environment: ["TERM": "xterm-256color"]))
    #expect(!ImageViews.terminalDrawsImages(environment: ["COLORTERM": "truecolor", "NO_COLOR": "1"]))
    #expect(!ImageViews.terminalDrawsImages(environment: ["COLORTERM": "truecolor", "TERM": "dumb"]))
  }
}
