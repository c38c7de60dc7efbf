/// Quoting of values in the validator's one-line reasons: what a plugin returned or was sent may
/// be megabytes long, hold line breaks or escape sequences, or not be UTF-8 at all.
public enum ConformanceText {
  /// `text` in single quotes, with control characters escaped (`\n`, `\x1B`), cut after `limit`
  /// characters with its full size noted.
  public static func quote(_ text: String, limit: Int = 80) -> String {
    quote(bytes: Array(text.utf8), limit: limit)
  }

  /// As `quote(_:limit:)` for raw bytes; bytes that are not valid UTF-8 are shown as `\xHH`.
  public static func quote(bytes: [UInt8], limit: Int = 80) -> String {
    var out = ""
    var shown = 0
    var cut = false
    if let text = String(validating: bytes, as: UTF8.self) {
      for scalar in text.unicodeScalars {
        if shown >= limit {
          cut = true
          break
        }
        out += escaped(scalar)
        shown += 1
      }
    } else {
      for byte in bytes {
        if shown >= limit {
          cut = true
          break
        }
        out += byte < 0x80 ? escaped(Unicode.Scalar(byte)) : "\\x" + hex(byte)
        shown += 1
      }
    }
    return cut ? "'\(out)...' (\(bytes.count) bytes)" : "'\(out)'"
  }

  /// `text` with its control characters escaped, so it fits on one line.
  public static func oneLine(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    return text.unicodeScalars.map(escaped).joined()
  }

  /// C0 controls, DEL and the C1 range (which holds the one-byte CSI, U+009B).
  package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
  }

  private static func escaped(_ scalar: Unicode.Scalar) -> String {
    switch scalar {
    case "\n": "\\n"
    case "\t": "\\t"
    case "\r": "\\r"
    default: isControl(scalar) ? "\\x" + hex(UInt8(truncatingIfNeeded: scalar.value)) : String(scalar)
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }
}
