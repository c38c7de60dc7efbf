/// Fits text to a terminal's width, counting character cells rather than bytes.
///
/// A line wider than the terminal is broken at its last space that fits (the space ends the row),
/// or at the width when a word alone is wider. A character counts one cell, an East Asian wide or
/// fullwidth one two, a combining mark or zero-width joiner none. The host's own styling (`ESC [`
/// ... final byte) takes no room and is never cut, and neither is a sanitizer's visible escape
/// (`\u001b`): both move to the next row whole.
public enum TerminalWrap {
  /// `text` with each line no wider than `columns` cells (lines already narrow are unchanged).
  public static func wrapped(_ text: String, columns: Int) -> String {
    guard columns > 0 else { return text }
    return text.split(separator: "\n", omittingEmptySubsequences: false)
      .map { wrapLine(Substring($0), columns: columns) }
      .joined(separator: "\n")
  }

  /// The cells `text` (one line) takes on a terminal; the host's styling takes none.
  public static func width(_ text: String) -> Int {
    pieces(of: Substring(text)).reduce(0) { $0 + $1.width }
  }

  /// A piece that is never cut: a character, a styling sequence, a visible escape.
  private struct Piece {
    var text: Substring
    var width: Int
    var isSpace: Bool
  }

  private static func wrapLine(_ line: Substring, columns: Int) -> String {
    let pieces = self.pieces(of: line)
    guard pieces.reduce(0, { $0 + $1.width }) > columns else { return String(line) }
    var rows: [String] = []
    var row: [Piece] = []
    var width = 0
    for piece in pieces {
      if width + piece.width > columns && piece.width > 0 {
        if piece.isSpace {
          // The space that would overflow ends the row.
          rows.append(row.map { String($0.text) }.joined())
          row = []
          width = 0
          continue
        }
        // Break after the row's last space, carrying the word begun on to the next row.
        if let space = row.lastIndex(where: { $0.isSpace }), space > 0 {
          rows.append(row[..<space].map { String($0.text) }.joined())
          row = Array(row[(space + 1)...])
        } else {
          rows.append(row.map { String($0.text) }.joined())
          row = []
        }
        width = row.reduce(0) { $0 + $1.width }
      }
      row.append(piece)
      width += piece.width
    }
    rows.append(row.map { String($0.text) }.joined())
    return rows.joined(separator: "\n")
  }

  private static func pieces(of line: Substring) -> [Piece] {
    var pieces: [Piece] = []
    var index = line.startIndex
    let scalars = line.unicodeScalars
    while index < line.endIndex {
      let scalar = scalars[index]
      if scalar == "\u{1B}", let end = styleEnd(in: line, from: index) {
        pieces.append(Piece(text: line[index..<end], width: 0, isSpace: false))
        index = end
        continue
      }
      if scalar == "\\", let end = visibleEscapeEnd(in: line, from: index) {
        pieces.append(Piece(text: line[index..<end], width: 6, isSpace: false))
        index = end
        continue
      }
      let next = line.unicodeScalars.index(after: index)
      pieces.append(Piece(text: line[index..<next], width: cells(scalar), isSpace: scalar == " "))
      index = next
    }
    return pieces
  }

  /// The end of a CSI sequence (`ESC [` parameters, final byte 0x40-0x7E) starting at `start`.
  private static func styleEnd(in line: Substring, from start: Substring.Index) -> Substring.Index? {
    let scalars = line.unicodeScalars
    var index = scalars.index(after: start)
    guard index < scalars.endIndex, scalars[index] == "[" else { return nil }
    index = scalars.index(after: index)
    while index < scalars.endIndex {
      let value = scalars[index].value
      index = scalars.index(after: index)
      if (0x40...0x7E).contains(value) { return index }
    }
    return nil
  }

  /// The end of a `\uXXXX` escape (backslash, `u`, four hex digits) starting at `start`.
  private static func visibleEscapeEnd(in line: Substring, from start: Substring.Index) -> Substring.Index? {
    let scalars = line.unicodeScalars
    var index = scalars.index(after: start)
    guard index < scalars.endIndex, scalars[index] == "u" else { return nil }
    for _ in 0..<4 {
      index = scalars.index(after: index)
      guard index < scalars.endIndex, scalars[index].properties.isASCIIHexDigit else { return nil }
    }
    return scalars.index(after: index)
  }

  /// The cells `scalar` takes on a terminal.
  static func cells(_ scalar: Unicode.Scalar) -> Int {
    let value = scalar.value
    switch scalar.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .format: return 0
    default: break
    }
    if value == 0x200B { return 0 }
    // East Asian Wide and Fullwidth ranges (Unicode's EastAsianWidth.txt, main blocks).
    switch value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
      return 2
    default:
      return 1
    }
  }
}
