/// The generated action decoder of one module's sources.
struct ActionDecoderSource {
  let sources: [(name: String, text: String)]

  /// The `FlatActionDecodable` conformance of the feature's `Action`, as lines of Swift.
  func decoderLines(_ found: (feature: String, cases: [Case], source: Int)) -> [String] {
    var lines: [String] = []
    lines.append("extension \(found.feature).Action: FlatActionDecodable {")
    lines.append("  public static func decodeFlat(tag: String, payload: ActionPayload) -> Self? {")
    lines.append("    switch tag {")
    for enumCase in found.cases {
      lines.append("    case \(swiftString(enumCase.name)):")
      // A member the case does not have: the general way refuses it by name.
      let keys = enumCase.parameters.enumerated().map { index, parameter in swiftString(parameter.label ?? "_\(index)")
      }
      if enumCase.parameters.contains(where: { $0.optionalWrapped != nil }) {
        lines.append("      guard payload.hasOnly(\(keys.joined(separator: ", "))) else { return nil }")
      } else {
        lines.append("      guard payload.memberCount == \(keys.count + 1) else { return nil }")
      }
      if enumCase.parameters.isEmpty {
        lines.append("      return .\(escaped(enumCase.name))")
        continue
      }
      var arguments: [String] = []
      for (index, parameter) in enumCase.parameters.enumerated() {
        let variable = "v\(index)"
        let key = parameter.label ?? "_\(index)"
        if let wrapped = parameter.optionalWrapped {
          lines.append(
            "      guard let \(variable) = payload.optional(\(swiftString(key)), as: (\(wrapped)).self) else { return nil }"
          )
        } else {
          lines.append(
            "      guard let \(variable) = payload.value(\(swiftString(key)), as: (\(parameter.type)).self) else { return nil }"
          )
        }
        arguments.append(parameter.label.map { "\(escaped($0)): \(variable)" } ?? variable)
      }
      lines.append("      return .\(escaped(enumCase.name))(\(arguments.joined(separator: ", ")))")
    }
    lines += ["    default:", "      return nil", "    }", "  }", "}"]
    return lines
  }

  struct Parameter {
    let label: String?
    let type: String

    /// `T` for a payload of type `T?` or `Optional<T>`: decoded as synthesized Codable does,
    /// missing or null meaning nil.
    var optionalWrapped: String? {
      if type.hasSuffix("?") { return String(type.dropLast()) }
      if type.hasPrefix("Optional<"), type.hasSuffix(">") { return String(type.dropFirst(9).dropLast()) }
      return nil
    }
  }

  struct Case {
    let name: String
    let parameters: [Parameter]
    /// Where its `case` keyword is: characters from the start of its source file.
    var offset = 0
  }

  /// The feature type's name, the cases it can decode and the source that declares them, or nil
  /// when there is nothing to do.
  func findAction() -> (feature: String, cases: [Case], source: Int)? {
    let all = sources.map(\.text).joined(separator: "\n")
    // A hand-written decoding or key mapping changes the meaning: leave it all to Codable.
    let code = stripComments(all)
    if code.contains("init(from") || code.contains("CodingKeys") { return nil }
    for (index, source) in sources.enumerated() {
      let text = stripComments(source.text)
      guard let feature = featureName(in: text), let body = enumBody(named: "Action", in: text) else { continue }
      let cases = parseCases(body)
      return cases.map { (feature, $0, index) }
    }
    return nil
  }

  /// The type declared as conforming to `Feature`.
  func featureName(in text: String) -> String? {
    let pattern = #"(?:struct|class|enum)\s+([A-Za-z_][A-Za-z0-9_]*)\s*:\s*[^{]*\bFeature\b"#
    guard let match = text.range(of: pattern, options: .regularExpression) else { return nil }
    let declaration = String(text[match])
    let words = declaration.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "\n" || $0 == "\t" })
    return words.count > 1 ? String(words[1]) : nil
  }

  /// The text between the braces of `enum NAME`.
  func enumBody(named name: String, in text: String) -> Substring? {
    guard let start = text.range(of: #"\benum\s+\#(name)\b[^{]*\{"#, options: .regularExpression) else { return nil }
    return text.bracedText(from: start.upperBound)
  }

  /// Every `case` of the enum body, or nil when the body holds something it does not follow
  /// (nested types, members, attributes, conditional compilation).
  func parseCases(_ body: Substring) -> [Case]? {
    var cases: [Case] = []
    var rest = Substring(body)
    while true {
      rest = rest.drop(while: { $0.isWhitespace || $0 == ";" })
      if rest.isEmpty { return cases }
      guard rest.hasPrefix("case"), rest.dropFirst(4).first?.isWhitespace == true else { return nil }
      let offset = rest.base.distance(from: rest.base.startIndex, to: rest.startIndex)
      rest = rest.dropFirst(4)
      // Elements separated by commas at depth 0, up to the end of the line.
      while true {
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        let name = rest.prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
        guard !name.isEmpty else { return nil }
        rest = rest.dropFirst(name.count)
        var parameters: [Parameter] = []
        if rest.first == "(" {
          guard let close = matchingParenthesis(rest) else { return nil }
          let inside = rest[rest.index(after: rest.startIndex)..<close]
          guard let parsed = parseParameters(inside) else { return nil }
          parameters = parsed
          rest = rest[rest.index(after: close)...]
        }
        cases.append(Case(name: String(name), parameters: parameters, offset: offset))
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        if rest.first == "," {
          rest = rest.dropFirst().drop(while: { $0.isWhitespace })
          continue
        }
        guard rest.isEmpty || rest.first == "\n" || rest.first == ";" else { return nil }
        break
      }
    }
  }

  func matchingParenthesis(_ text: Substring) -> Substring.Index? {
    var match: Substring.Index?
    walkBrackets(text) { index, character, depth in
      guard depth == 0, character == ")" || character == "]" || character == ">" else { return true }
      match = character == ")" ? index : nil
      return false
    }
    return match
  }

  /// Walks `text` keeping the bracket depth (`(`, `[`, `<` open; `)`, `]`, `>` close): calls
  /// `visit` with each index, its character and the depth after it, until `visit` returns false.
  func walkBrackets<Text: StringProtocol>(_ text: Text, _ visit: (Text.Index, Character, Int) -> Bool) {
    var depth = 0
    var index = text.startIndex
    while index < text.endIndex {
      let character = text[index]
      switch character {
      case "(", "[", "<": depth += 1
      case ")", "]", ">": depth -= 1
      default: break
      }
      guard visit(index, character, depth) else { return }
      index = text.index(after: index)
    }
  }

  func parseParameters(_ text: Substring) -> [Parameter]? {
    var parts: [Substring] = []
    var start = text.startIndex
    walkBrackets(text) { index, character, depth in
      if character == ",", depth == 0 {
        parts.append(text[start..<index])
        start = text.index(after: index)
      }
      return true
    }
    parts.append(text[start..<text.endIndex])
    var parameters: [Parameter] = []
    for part in parts {
      let trimmed = part.trimmingCharacters(in: .whitespacesAndNewlines)
      // Defaults, closures, variadics and `_ name:` are Codable's to handle.
      if trimmed.isEmpty || trimmed.contains("=") || trimmed.contains("->") || trimmed.contains("...")
        || trimmed.contains("@") || trimmed.hasPrefix("_ ")
      {
        return nil
      }
      if let colon = topLevelColon(trimmed) {
        let label = trimmed[..<colon].trimmingCharacters(in: .whitespaces)
        let type = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        guard !label.contains(" "), !type.isEmpty else { return nil }
        parameters.append(Parameter(label: label, type: type))
      } else {
        parameters.append(Parameter(label: nil, type: trimmed))
      }
    }
    return parameters
  }

  /// The colon between a label and its type (not one inside `[K: V]`).
  func topLevelColon(_ text: String) -> String.Index? {
    var colon: String.Index?
    walkBrackets(text) { index, character, depth in
      guard character == ":", depth == 0 else { return true }
      colon = index
      return false
    }
    return colon
  }

  /// The text with `//` and `/* */` comments blanked out, character for character (newlines
  /// kept), so a position in it is the same position in the source (string literals are not
  /// expected in an enum's cases).
  func stripComments(_ text: String) -> String {
    var result = ""
    var index = text.startIndex
    func blank(upTo end: String.Index) {
      while index < end {
        result.append(text[index] == "\n" ? "\n" : " ")
        index = text.index(after: index)
      }
    }
    while index < text.endIndex {
      if text[index...].hasPrefix("//") {
        blank(upTo: text[index...].firstIndex(of: "\n") ?? text.endIndex)
      } else if text[index...].hasPrefix("/*") {
        blank(upTo: text[index...].range(of: "*/")?.upperBound ?? text.endIndex)
      } else {
        result.append(text[index])
        index = text.index(after: index)
      }
    }
    return result
  }

  func swiftString(_ text: String) -> String { "\"\(text)\"" }

  func escaped(_ name: String) -> String {
    ["default", "in", "is", "as", "self", "Type", "init", "return"].contains(name) ? "`\(name)`" : name
  }
}
