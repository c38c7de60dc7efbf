#if canImport(Glibc)
  import Glibc
#endif

/// The environment of this process, read from `environ`.
public enum ProcessEnvironment {
  /// Every variable, by name.
  public static var current: [String: String] {
    var result: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        result[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    return result
  }
}
