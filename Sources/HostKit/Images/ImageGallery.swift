/// Lays out a structured view for a 24-bit-colour terminal: text items as lines, each run of
/// images as rows of half-block thumbnails (`▀`, the upper pixel in the foreground colour, the
/// lower one in the background colour), each with its alternative line under it, cut to the
/// thumbnail's width. An image on its way is a grey placeholder; one that failed is its
/// alternative line with the reason after the row.
public enum ImageGallery {
  /// Columns between two thumbnails of a row.
  static let gap = 2

  /// The width of a thumbnail in columns (= pixels) for a terminal `columns` wide: four to a row
  /// at 80 columns, wider on wider terminals, at most 40.
  public static func tileWidth(columns: Int) -> Int {
    max(8, min(40, (columns + gap) / 4 - gap))
  }

  /// The lines of `view`, at most `columns` cells wide; `status` says where each image stands.
  public static func lines(
    _ view: StructuredView, columns: Int, status: (ImageItem) -> ImageLoader.Status
  ) -> [String] {
    var lines: [String] = []
    var run: [ImageItem] = []
    for item in view.items {
      switch item {
      case .text(let text):
        if !run.isEmpty { lines += images(run, columns: columns, status: status) }
        run = []
        lines.append(TerminalText.sanitized(text))
      case .image(let image):
        run.append(image)
      }
    }
    if !run.isEmpty { lines += images(run, columns: columns, status: status) }
    return lines
  }

  private enum Tile {
    case picture(Thumbnail)
    case placeholder(ImageItem)
  }

  private static func images(
    _ run: [ImageItem], columns: Int, status: (ImageItem) -> ImageLoader.Status
  ) -> [String] {
    let width = tileWidth(columns: columns)
    let perRow = max(1, (columns + gap) / (width + gap))
    var shown: [(ImageItem, Tile)] = []
    var failed: [String] = []
    for image in run {
      switch status(image) {
      case .ready(let thumbnail): shown.append((image, .picture(thumbnail)))
      case .loading: shown.append((image, .placeholder(image)))
      case .failed(let reason): failed.append(TerminalText.sanitized("\(image.alt)  (not shown: \(reason))"))
      }
    }
    var lines: [String] = []
    var start = 0
    while start < shown.count {
      let row = shown[start..<min(shown.count, start + perRow)]
      let blocks = row.map { block($0.1, width: width) }
      let height = blocks.map(\.count).max() ?? 0
      let blank = String(repeating: " ", count: width)
      let spacer = String(repeating: " ", count: gap)
      for index in 0..<height {
        lines.append(blocks.map { index < $0.count ? $0[index] : blank }.joined(separator: spacer))
      }
      lines.append(row.map { label($0.0.alt, width: width) }.joined(separator: spacer).trailingSpacesRemoved)
      start += perRow
    }
    return lines + failed
  }

  /// The alternative line without its indent, padded to `width` cells; a longer one keeps its
  /// number (`12. `) and the end of the rest, where a URL's file name is: `12. …/a1.jpg`.
  static func label(_ alt: String, width: Int) -> String {
    let text = Array(TerminalText.sanitized(String(alt.drop { $0 == " " })))
    guard text.count > width else { return String(text) + String(repeating: " ", count: width - text.count) }
    var number = 0
    while number < text.count, text[number].isNumber { number += 1 }
    let prefix =
      number > 0 && number + 1 < text.count && text[number] == "." && text[number + 1] == " " ? number + 2 : 0
    let room = width - prefix - 1
    guard room > 0 else { return String(text.prefix(width - 1)) + "…" }
    return String(text[0..<prefix]) + "…" + String(text.suffix(room))
  }

  /// The lines of one tile: the picture fitted within `width` x `width` pixels, or a placeholder
  /// of the image's preferred proportions.
  private static func block(_ tile: Tile, width: Int) -> [String] {
    switch tile {
    case .picture(let thumbnail):
      return halfBlocks(thumbnail, width: width, padTo: width)
    case .placeholder(let image):
      var rows = width / 2
      if let w = image.width, let h = image.height, w > 0 {
        rows = max(2, min(width, (width * h / w + 1) / 2))
      }
      let grey = "\u{1B}[48;2;48;48;48m"
      let text = "loading…"
      return (0..<rows).map { index in
        guard index == rows / 2, text.count <= width else {
          return grey + String(repeating: " ", count: width) + reset
        }
        let left = (width - text.count) / 2
        return grey + "\u{1B}[38;2;150;150;150m" + String(repeating: " ", count: left) + text
          + String(repeating: " ", count: width - left - text.count) + reset
      }
    }
  }

  static let reset = "\u{1B}[0m"

  /// `thumbnail` scaled (nearest pixel) to fit `width` x `width` pixels, two pixel rows a line,
  /// each line padded with spaces to `padTo` cells.
  public static func halfBlocks(_ thumbnail: Thumbnail, width: Int, padTo: Int) -> [String] {
    var w = width
    var h = thumbnail.height * width / thumbnail.width
    if h > width {
      h = width
      w = max(1, thumbnail.width * width / thumbnail.height)
    }
    h = max(1, h)
    let pad = String(repeating: " ", count: max(0, padTo - w))
    var lines: [String] = []
    lines.reserveCapacity((h + 1) / 2)
    var utf8: [UInt8] = []
    utf8.reserveCapacity(w * 40)
    let xs = (0..<w).map { $0 * thumbnail.width / w }
    thumbnail.rgb.withUnsafeBufferPointer { rgb in
      for top in stride(from: 0, to: h, by: 2) {
        utf8.removeAll(keepingCapacity: true)
        let upper = top * thumbnail.height / h
        let lower = top + 1 < h ? (top + 1) * thumbnail.height / h : -1
        var last: (Int, Int) = (-1, -1)
        for x in xs {
          let a = (upper * thumbnail.width + x) * 3
          let fg = Int(rgb[a]) << 16 | Int(rgb[a + 1]) << 8 | Int(rgb[a + 2])
          var bg = -2
          if lower >= 0 {
            let b = (lower * thumbnail.width + x) * 3
            bg = Int(rgb[b]) << 16 | Int(rgb[b + 1]) << 8 | Int(rgb[b + 2])
          }
          if fg != last.0 || bg != last.1 {
            utf8 += [
              0x1B, UInt8(ascii: "["), UInt8(ascii: "3"), UInt8(ascii: "8"), UInt8(ascii: ";"), UInt8(ascii: "2"),
            ]
            append(fg, to: &utf8)
            if bg == -2 {
              utf8 += [UInt8(ascii: ";"), UInt8(ascii: "4"), UInt8(ascii: "9")]
            } else {
              utf8 += [UInt8(ascii: ";"), UInt8(ascii: "4"), UInt8(ascii: "8"), UInt8(ascii: ";"), UInt8(ascii: "2")]
              append(bg, to: &utf8)
            }
            utf8.append(UInt8(ascii: "m"))
            last = (fg, bg)
          }
          utf8 += [0xE2, 0x96, 0x80]  // ▀
        }
        utf8 += Array(reset.utf8)
        lines.append(String(decoding: utf8, as: UTF8.self) + pad)
      }
    }
    return lines
  }

  /// `;R;G;B` of a 0xRRGGBB colour.
  private static func append(_ colour: Int, to utf8: inout [UInt8]) {
    for shift in [16, 8, 0] {
      utf8.append(UInt8(ascii: ";"))
      let value = (colour >> shift) & 0xFF
      if value >= 100 { utf8.append(UInt8(ascii: "0") + UInt8(value / 100)) }
      if value >= 10 { utf8.append(UInt8(ascii: "0") + UInt8(value / 10 % 10)) }
      utf8.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
  }
}

extension String {
  fileprivate var trailingSpacesRemoved: String {
    var text = self
    while text.last == " " { text.removeLast() }
    return text
  }
}
