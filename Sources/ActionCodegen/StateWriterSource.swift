/// The `JSONObjectWritable` conformance of a feature's `State`, written when every stored member
/// is a plain `Int`, `Bool` or `String` (or an optional of one): a snapshot then skips
/// `Encodable`'s containers (`JSONBytesEncoder` gives the same bytes either way). With it, when
/// an initializer of the generated file may set every member (none `private(set)`, no `let` with
/// a value) and the author wrote no decoding, the `FlatStateDecodable` one: a restore then reads
/// the state in place. Whatever it does not follow for certain (a custom encoding, a member it
/// cannot type, a wrapper, an observer, a string literal in the state's body, conditional
/// compilation) leaves the state to `Codable`, as before.
struct StateWriterSource {
  /// The module's sources, comments stripped.
  let code: String
  let feature: String

  enum Kind: String {
    case int = "Int"
    case bool = "Bool"
    case string = "String"
  }

  struct Member: Equatable {
    let name: String
    let kind: Kind
    let optional: Bool
    /// Whether an initializer in another file of the module may set it.
    var settable = true
  }

  /// The conformances as lines of Swift, or nil when the state is left to `Codable`.
  var lines: [String]? {
    guard let members = members() else { return nil }
    var lines = ["extension \(feature).State: JSONObjectWritable {"]
    lines.append("  public func writeJSONObject(into writer: inout JSONObjectWriter) {")
    for member in members { lines.append("    writer.member(\"\(member.name)\", \(member.name))") }
    lines += ["  }", "}"]
    if let reader = readerLines(members) { lines += [""] + reader }
    return lines
  }

  /// The `FlatStateDecodable` conformance, or nil when a member cannot be set from here, the
  /// author decodes the state, or it has more members than a flat scan reads.
  func readerLines(_ members: [Member]) -> [String]? {
    let ownDecoding = ["init(from", "FlatStateDecodable"].contains(where: code.contains)
    guard !ownDecoding, members.allSatisfy(\.settable), members.count <= 8 else { return nil }
    let keys = members.map { "\"\($0.name)\"" }.joined(separator: ", ")
    var lines = [
      "extension \(feature).State: FlatStateDecodable {",
      "  public init?(flatState members: StateMembers) {",
      "    guard members.hasOnly(\(keys)) else { return nil }",
    ]
    // Read into locals of their own (a member may be called `members`), then set.
    for (index, member) in members.enumerated() {
      let read = member.optional ? "optional" : "value"
      lines.append(
        "    guard let m\(index) = members.\(read)(\"\(member.name)\", as: \(member.kind.rawValue).self) else { return nil }"
      )
    }
    for (index, member) in members.enumerated() { lines.append("    self.\(member.name) = m\(index)") }
    lines += ["  }", "}"]
    return lines
  }

  /// The state's stored members in the order their keys are written (UTF-8), or nil.
  func members() -> [Member]? {
    // A hand-written encoding or key mapping changes the bytes; a writer of the author's own wins.
    if ["CodingKeys", "encode(to", "JSONObjectWritable", "\"\"\""].contains(where: code.contains) { return nil }
    // A string literal in the body is not followed (the comment stripper does not know strings:
    // `"http://..."` loses its end, and what follows would be read as inside it), so nothing
    // below looks for strings. A string with a brace cuts the body inside it, or carries it past
    // its end: either way the body holds a quote.
    guard !code.contains("typealias State"), let body = stateBody(), !body.contains("\""),
      let statements = Self.split(body, at: ["\n", ";"], brackets: "{}()[]")?.filter({ !$0.isEmpty })
    else { return nil }
    if statements.contains(where: { $0.hasPrefix("#") }) { return nil }
    var members: [Member] = []
    for statement in statements {
      switch Self.storedMembers(statement) {
      case .none: continue
      case .some(nil): return nil
      case .some(let found?): members += found
      }
    }
    return members.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
  }

  /// The body of `struct State` declared right inside the feature's own body, the only
  /// `struct State` of the module.
  func stateBody() -> Substring? {
    let states = code.ranges(of: #/\bstruct\s+State\b/#)
    guard states.count == 1, let state = states.first,
      let pattern = try? Regex(#"\b(?:struct|class|enum)\s+\#(feature)\b[^{]*\{"#),
      let featureStart = code.firstRange(of: pattern), featureStart.upperBound <= state.lowerBound
    else { return nil }
    // Directly in the feature's body: no brace left open between the two.
    var depth = 0
    for character in code[featureStart.upperBound..<state.lowerBound] {
      if character == "{" { depth += 1 } else if character == "}" { depth -= 1 }
      if depth < 0 { return nil }
    }
    guard depth == 0, let open = code[state.upperBound...].firstIndex(of: "{"),
      !code[state.upperBound..<open].contains("}")
    else { return nil }
    return code.bracedText(from: code.index(after: open))
  }

  /// The stored members `statement` declares: `.none` when it declares none (a function, a
  /// computed property, a static one, a nested type), `.some(nil)` when it cannot tell for
  /// certain or a member is not plain.
  static func storedMembers(_ statement: Substring) -> [Member]?? {
    // Attributes on a property (a wrapper, an availability) change what it is: not followed.
    if statement.hasPrefix("@") {
      let words = statement.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") })
      return words.contains("var") || words.contains("let") ? .some(nil) : .none
    }
    var rest = statement
    var settable = true
    while let word = rest.firstWord {
      let modifiers: Set<Substring> = [
        "public", "internal", "package", "open", "final", "nonisolated", "private", "fileprivate",
      ]
      guard modifiers.contains(word) else { break }
      // `private` and `fileprivate` members are out of the generated file's reach; `private(set)` is not.
      rest = rest.dropFirst(word.count).trimmingWhitespace
      if rest.hasPrefix("(") {
        guard let close = rest.firstIndex(of: ")") else { return .some(nil) }
        if word == "private" || word == "fileprivate" { settable = false }
        rest = rest[rest.index(after: close)...].trimmingWhitespace
      } else if word == "private" || word == "fileprivate" {
        if rest.firstWord == "var" || rest.firstWord == "let" { return .some(nil) }
      }
    }
    // What declares no stored member of an instance; anything else not followed for certain.
    let declaresNone: Set<Substring> = [
      "func", "init", "deinit", "subscript", "struct", "enum", "class", "actor", "protocol", "typealias",
      "static", "mutating", "nonmutating", "consuming", "borrowing", "override", "required", "convenience",
      "indirect", "extension",
    ]
    guard let keyword = rest.firstWord else { return .some(nil) }
    if declaresNone.contains(keyword) { return .none }
    guard keyword == "var" || keyword == "let" else { return .some(nil) }
    rest = rest.dropFirst(keyword.count).trimmingWhitespace
    guard let bindings = split(rest, at: [","], brackets: "{}()[]<>") else { return .some(nil) }
    // A block: computed (skipped) when its one binding has a type and no initializer and no
    // observers; anything else with a block (observers, a closure) is not followed.
    if let brace = rest.firstIndex(of: "{") {
      let head = rest[..<brace]
      let block = rest[brace...]
      guard bindings.count == 1, !head.contains("="), head.contains(":"),
        !block.contains("didSet"), !block.contains("willSet")
      else { return .some(nil) }
      return .none
    }
    var members: [Member] = []
    for binding in bindings {
      guard var member = member(binding) else { return .some(nil) }
      // A `let` with a value is set once, where it is declared.
      member.settable = settable && !(keyword == "let" && binding.contains("="))
      members.append(member)
    }
    return .some(members)
  }

  /// `name: Type`, `name: Type = value` or `name = literal` (an integer or `true`/`false`) as a
  /// plain member, or nil.
  static func member(_ binding: Substring) -> Member? {
    let parts = binding.split(separator: "=", maxSplits: 1).map { $0.trimmingWhitespace }
    guard let declared = parts.first else { return nil }
    let nameAndType = declared.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace }
    guard let name = nameAndType.first, isIdentifier(name) else { return nil }
    if nameAndType.count == 2 {
      var type = nameAndType[1]
      var optional = false
      if type.hasSuffix("?") {
        type = type.dropLast().trimmingWhitespace
        optional = true
      } else if type.hasPrefix("Optional<"), type.hasSuffix(">") {
        type = type.dropFirst(9).dropLast().trimmingWhitespace
        optional = true
      }
      guard let kind = Kind(rawValue: String(type)) else { return nil }
      return Member(name: String(name), kind: kind, optional: optional)
    }
    // No type: one a literal gives it.
    guard parts.count == 2 else { return nil }
    let value = parts[1]
    if value == "true" || value == "false" { return Member(name: String(name), kind: .bool, optional: false) }
    if value.wholeMatch(of: #/-?[0-9][0-9_]*/#) != nil {
      return Member(name: String(name), kind: .int, optional: false)
    }
    return nil
  }

  /// `text` split at `separators` outside `brackets` (pairs of opening and closing characters),
  /// each part trimmed; nil when a bracket is unbalanced.
  static func split(_ text: Substring, at separators: Set<Character>, brackets: String) -> [Substring]? {
    let opening = Set(brackets.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
    let closing = Set(brackets.enumerated().filter { $0.offset % 2 == 1 }.map(\.element))
    var parts: [Substring] = []
    var depth = 0
    var start = text.startIndex
    for index in text.indices {
      let character = text[index]
      if opening.contains(character) {
        depth += 1
      } else if closing.contains(character) {
        depth -= 1
      } else if depth == 0, separators.contains(character) {
        parts.append(text[start..<index])
        start = text.index(after: index)
      }
    }
    parts.append(text[start...])
    return depth == 0 ? parts.map(\.trimmingWhitespace) : nil
  }

  /// A plain ASCII identifier (no backticks): its key is written as it is.
  static func isIdentifier(_ name: Substring) -> Bool {
    name.wholeMatch(of: #/[A-Za-z_][A-Za-z0-9_]*/#) != nil
  }
}

extension Substring {
  fileprivate var trimmingWhitespace: Substring {
    let start = firstIndex(where: { !$0.isWhitespace }) ?? endIndex
    let end = lastIndex(where: { !$0.isWhitespace }).map { index(after: $0) } ?? start
    return self[start..<end]
  }

  /// The identifier it starts with, if any.
  fileprivate var firstWord: Substring? {
    let word = prefix(while: { $0.isLetter || $0.isNumber || $0 == "_" })
    return word.isEmpty ? nil : word
  }
}
