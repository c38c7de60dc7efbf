/// Input echoed in a message, cut so that a huge value stays one short line.
public enum Excerpt {
  /// `text` itself when it has at most `limit` characters; else its first `limit` characters and
  /// `... (N more bytes)`, as the terminal's cut of echoed input reads. Line breaks become spaces.
  public static func of(_ text: String, limit: Int = 200) -> String {
    var cut = ""
    var count = 0
    for character in text {
      if count == limit { return cut + "... (\(text.utf8.count - cut.utf8.count) more bytes)" }
      cut.append(character.isNewline ? " " : character)
      count += 1
    }
    return cut
  }
}
