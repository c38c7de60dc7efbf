import Foundation

/// The manifest's action catalogue, derived from the feature's `Action` enum: each case with a
/// `///` comment is an action a person may type, its comment the help (see `DocComment`). A case
/// without one (an effect's result, a feedback's step) is not typed, nor are the lifecycle
/// actions `created` and `restored`, which only the host sends.
struct ActionCatalogueSource {
  let sources: [(name: String, text: String)]

  /// What the catalogue cannot say: a file, a line in it, and what to do.
  struct Problem: Error, Equatable {
    let file: String
    let line: Int
    let message: String

    /// As the compiler says it, so a build shows it at its place.
    var diagnostic: String { "\(file):\(line):1: error: \(message)" }
  }

  /// The JSON kind of each argument type a typed action may carry.
  static let kinds: [String: String] = [
    "Int": "integer", "Int8": "integer", "Int16": "integer", "Int32": "integer", "Int64": "integer",
    "UInt": "integer", "UInt8": "integer", "UInt16": "integer", "UInt32": "integer", "UInt64": "integer",
    "Double": "number", "Float": "number", "String": "string", "Bool": "boolean",
  ]

  /// The `CataloguedAction` conformance of the feature's `Action`, as lines of Swift.
  func catalogueLines(_ found: (feature: String, cases: [ActionDecoderSource.Case], source: Int)) throws(Problem)
    -> [String]
  {
    let file = sources[found.source]
    var specs: [String] = []
    for enumCase in found.cases where !["created", "restored"].contains(enumCase.name) {
      guard let comment = DocComment.lines(above: enumCase.offset, in: file.text) else { continue }
      let line = file.text.prefix(enumCase.offset).filter { $0 == "\n" }.count + 1
      let doc: DocComment
      do {
        doc = try DocComment(lines: comment.lines, first: comment.first)
      } catch {
        throw Problem(
          file: file.name, line: error.line, message: "the comment of case '\(enumCase.name)': \(error.message)")
      }
      specs.append(try spec(enumCase, doc: doc, file: file.name, line: line))
    }
    var lines = [
      "extension \(found.feature).Action: CataloguedAction {", "  public static var catalogue: [ActionSpec] {",
    ]
    lines.append(specs.isEmpty ? "    []" : "    [")
    if !specs.isEmpty { lines += specs.map { "      \($0)," } + ["    ]"] }
    lines += ["  }", "}"]
    return lines
  }

  /// One `ActionSpec(...)` expression.
  private func spec(_ enumCase: ActionDecoderSource.Case, doc: DocComment, file: String, line: Int) throws(Problem)
    -> String
  {
    let name = enumCase.name
    guard !doc.summary.isEmpty else {
      throw Problem(
        file: file, line: line,
        message:
          "case '\(name)' has a comment but no help: its first line is what ':help' shows (write '/// What it does.'), "
          + "or make it a plain '//' comment if people do not type '\(name)'")
    }
    // A name the case does not take first: a misspelt one also leaves its argument undescribed.
    if let stray = doc.parameters.first(where: { documented in
      !enumCase.parameters.contains { $0.label == documented.name }
    }) {
      throw Problem(
        file: file, line: line,
        message: "the comment of case '\(name)' describes '\(stray.name)', which the case does not take; "
          + "its arguments: \(enumCase.parameters.compactMap(\.label).joined(separator: ", ").ifEmpty("none"))")
    }
    var arguments: [String] = []
    for (index, parameter) in enumCase.parameters.enumerated() {
      guard let label = parameter.label else {
        throw Problem(
          file: file, line: line,
          message: "case '\(name)' has an argument without a label (number \(index + 1)); a typed action names each "
            + "argument: write '\(name)(NAME: \(parameter.type))', or make its comment a plain '//' if people do not type it"
        )
      }
      let type = (parameter.optionalWrapped ?? parameter.type).trimmingCharacters(in: .whitespaces)
      guard let kind = Self.kinds[type] else {
        throw Problem(
          file: file, line: line,
          message:
            "case '\(name)' takes '\(label)' of type \(parameter.type), which a typed line cannot carry; use Int, "
            + "Double, String or Bool (or an optional of one), or make its comment a plain '//' if people do not type "
            + "'\(name)' (an effect's result), or write the manifest's 'actions:' by hand")
      }
      guard let help = doc.parameters.first(where: { $0.name == label })?.help else {
        throw Problem(
          file: file, line: line,
          message: "case '\(name)' does not say what '\(label)' is; add '/// - Parameter \(label): what it is' to its "
            + "comment (a range such as '1 to 10' there lets validate try good values)")
      }
      let required = parameter.optionalWrapped == nil ? "" : ", required: false"
      arguments.append("ArgumentSpec(\(literal(label)), .\(kind), help: \(literal(help))\(required))")
    }
    let list = arguments.isEmpty ? "" : ", arguments: [\(arguments.joined(separator: ", "))]"
    return "ActionSpec(\(literal(name)), help: \(literal(doc.summary))\(list))"
  }

  /// A Swift string literal holding `text` exactly.
  func literal(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
  }
}

extension String {
  fileprivate func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}
