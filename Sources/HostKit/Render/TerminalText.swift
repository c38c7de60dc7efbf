/// Makes text from plugins, servers and typed lines safe to print on a terminal.
///
/// A terminal obeys the control characters it is sent: ESC starts sequences that move the cursor,
/// clear the screen, set the window title or write the clipboard (OSC 52). Every text the host did
/// not write itself passes through `sanitized` before it is printed, so none of them reaches the
/// terminal as a control: each is shown as a visible `\u001b`-style escape instead.
public enum TerminalText {
  /// The longest echo of user input in a message, in characters.
  public static let echoLimit = 200

  /// `text` with every control character but newline and tab (C0, DEL, C1, and the bidirectional
  /// overrides that reorder what is shown) written as a visible `\u00XX` escape.
  public static func sanitized(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 16)
    for scalar in text.unicodeScalars {
      if isUnsafe(scalar) {
        result += "\\u" + hex4(scalar.value)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Typed input as a message shows it: sanitized, and cut at `limit` characters with
  /// `... (N more bytes)` so a pasted megabyte does not flood the terminal.
  public static func echoed(_ input: String, limit: Int = echoLimit) -> String {
    sanitized(cut(input, limit: limit))
  }

  /// `text` cut at `limit` characters, followed by `... (N more bytes)` when it was longer.
  public static func cut(_ text: String, limit: Int = echoLimit) -> String {
    guard let end = text.index(text.startIndex, offsetBy: limit, limitedBy: text.endIndex), end != text.endIndex
    else { return text }
    return "\(text[..<end])... (\(text.utf8.count - String(text[..<end]).utf8.count) more bytes)"
  }

  /// A message echoing input in single quotes (`unknown action '...'`) with each quoted part
  /// longer than `limit` characters cut, and everything sanitized.
  public static func message(_ text: String, limit: Int = echoLimit) -> String {
    guard text.count > limit else { return sanitized(text) }
    var result = ""
    var rest = Substring(text)
    while let open = rest.firstIndex(of: "'") {
      result += rest[...open]
      rest = rest[rest.index(after: open)...]
      // The quoted part ends at the last quote of the line when the input itself holds quotes.
      guard let close = closingQuote(in: rest) else { break }
      result += cut(String(rest[..<close]), limit: limit) + "'"
      rest = rest[rest.index(after: close)...]
    }
    result += rest
    return sanitized(result)
  }

  /// The quote closing a quoted part: the next one followed by the end, a space or punctuation.
  private static func closingQuote(in text: Substring) -> Substring.Index? {
    var index = text.startIndex
    while let quote = text[index...].firstIndex(of: "'") {
      let next = text.index(after: quote)
      if next == text.endIndex || " ,.:;)".contains(text[next]) { return quote }
      index = next
    }
    return nil
  }

  static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.value {
    case 0x0A, 0x09: false
    case 0x00...0x1F, 0x7F...0x9F: true
    // Bidirectional embeddings, overrides and isolates: they reorder the text shown after them.
    case 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }

  private static func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }
}
