import FeatureJSON

/// What one setting's value (or a fixed target) names for a kind of need: a port, a path, or
/// nothing with the reason. Reads URLs by hand: this module runs inside plugins and does without
/// Foundation.
enum NeedValue: Equatable {
  case port(UInt16)
  /// An absolute path, or one starting with `~/` (expanded by the caller, who knows $HOME).
  case path(String)
  case nothing(String)

  /// What `text` names for `kind`: in connect a port number or an http(s) URL's port, in read and
  /// write an absolute path or a `file:` URL's path.
  init(_ text: String, for kind: Needs.Kind) {
    switch kind {
    case .connect: self = Self.port(in: text)
    case .read, .write: self = Self.path(in: text)
    }
  }

  /// What a config value names for `kind`: a string as `init(_:for:)`, an integer as a port.
  init(config value: JSONValue, for kind: Needs.Kind) {
    if let text = value.stringValue {
      self.init(text, for: kind)
    } else if kind == .connect, let number = value.intValue {
      self = Self.port(number: number, written: value.serialized())
    } else {
      let wanted = kind == .connect ? "a URL or a port" : "a path"
      self = .nothing("config value \(value.serialized()) is not \(wanted)")
    }
  }

  private static func port(in text: String) -> NeedValue {
    if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
      return port(number: Int64(text), written: "'\(text)'")
    }
    guard let (scheme, rest) = schemeAndRest(text), scheme == "http" || scheme == "https" else {
      return .nothing("'\(text)' is not an http or https URL")
    }
    guard rest.hasPrefix("//") else { return .nothing("'\(text)' is not an http or https URL") }
    var authority = Substring(rest.dropFirst(2).prefix { $0 != "/" && $0 != "?" && $0 != "#" })
    if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
    var hostAndPort = authority
    if authority.hasPrefix("[") {
      guard let close = authority.firstIndex(of: "]") else { return .nothing("'\(text)' has a bad host") }
      hostAndPort = authority[authority.index(after: close)...]
      guard hostAndPort.isEmpty || hostAndPort.hasPrefix(":") else { return .nothing("'\(text)' has a bad host") }
    } else if hostAndPort.prefix(while: { $0 != ":" }).isEmpty {
      return .nothing("'\(text)' names no host")
    }
    guard let colon = hostAndPort.firstIndex(of: ":") else { return .port(scheme == "https" ? 443 : 80) }
    let portText = hostAndPort[hostAndPort.index(after: colon)...]
    if portText.isEmpty { return .port(scheme == "https" ? 443 : 80) }
    guard portText.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return .nothing("'\(text)' has a bad port") }
    return port(number: Int64(portText), written: "'\(text)'")
  }

  private static func port(number: Int64?, written: String) -> NeedValue {
    guard let number, let port = UInt16(exactly: number), port > 0 else {
      return .nothing("\(written) is not a port (1...65535)")
    }
    return .port(port)
  }

  private static func path(in text: String) -> NeedValue {
    if Needs.isAbsolute(text) { return .path(text) }
    guard let (scheme, rest) = schemeAndRest(text) else {
      return .nothing("'\(text)' is not an absolute path or a file: URL")
    }
    guard scheme == "file" else { return .nothing("'\(text)' is not a path or a file: URL") }
    var path = Substring(rest.prefix { $0 != "?" && $0 != "#" })
    if path.hasPrefix("//") {
      let afterSlashes = path.dropFirst(2)
      let host = afterSlashes.prefix { $0 != "/" }
      guard host.isEmpty || host.lowercased() == "localhost" else {
        return .nothing("'\(text)' names the host '\(host)'; a file URL here is file:///PATH")
      }
      path = afterSlashes.dropFirst(host.count)
    }
    guard path.hasPrefix("/"), let decoded = percentDecoded(path) else {
      return .nothing("'\(text)' is not a file URL of an absolute path")
    }
    return .path(decoded)
  }

  /// `text`'s lowercased scheme and what follows its colon, or nil when it does not start with one.
  private static func schemeAndRest(_ text: String) -> (String, Substring)? {
    guard let colon = text.firstIndex(of: ":") else { return nil }
    let scheme = text[..<colon]
    guard let first = scheme.utf8.first, isLetter(first),
      scheme.utf8.allSatisfy({ isLetter($0) || ($0 >= 48 && $0 <= 57) || $0 == 43 || $0 == 45 || $0 == 46 })
    else { return nil }
    return (scheme.lowercased(), text[text.index(after: colon)...])
  }

  private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 97 && (byte | 0x20) <= 122 }

  /// `%XX` escapes decoded, or nil when one is malformed or the result is not UTF-8.
  private static func percentDecoded(_ text: Substring) -> String? {
    var bytes: [UInt8] = []
    var iterator = text.utf8.makeIterator()
    while let byte = iterator.next() {
      guard byte == 37 else {
        bytes.append(byte)
        continue
      }
      guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
        return nil
      }
      bytes.append(high << 4 | low)
    }
    guard !bytes.contains(0) else { return nil }
    return String(validating: bytes, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 48...57: byte - 48
    case 65...70: byte - 55
    case 97...102: byte - 87
    default: nil
    }
  }
}
