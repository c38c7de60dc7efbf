#if canImport(Glibc)
  import Glibc
#endif

/// A journal header's `created` (`2025-11-29T21:20:00Z`, whole seconds, UTC), written and read
/// with the C library: Foundation's ISO-8601 format style cost a start half a millisecond on
/// its first use, to format one time and read one back.
enum UTCTime {
  /// Now, as `text` writes it.
  static var now: String { text(Int(time(nil))) }

  /// `seconds` since 1970 as `YYYY-MM-DDTHH:MM:SSZ`.
  static func text(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let year = String(parts.tm_year + 1900)
    return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):"
      + "\(two(parts.tm_sec))Z"
  }

  /// The seconds since 1970 of `text` when it has exactly that shape and names a real time; nil
  /// otherwise (a caller may try a wider reader).
  static func seconds(_ text: String) -> Int? {
    let bytes = Array(text.utf8)
    guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
      bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
      bytes[19] == UInt8(ascii: "Z")
    else { return nil }
    func number(_ range: Range<Int>) -> Int32? {
      var value: Int32 = 0
      for byte in bytes[range] {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + Int32(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
      let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
      (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
    else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = month - 1
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    let seconds = timegm(&parts)
    // timegm carries 31 April into May: such a date is not a real time.
    guard parts.tm_mday == day, parts.tm_mon == month - 1 else { return nil }
    return Int(seconds)
  }
}
