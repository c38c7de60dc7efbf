import Foundation

/// The `///` comment above an `Action` case, read as the catalogue's help: its first paragraph
/// is the action's help, and `- Parameter name: text` lines (or a `- Parameters:` list of
/// `- name: text`) are its arguments' help. Other callouts (`- Note:`) are for readers only.
struct DocComment {
  var summary: String
  var parameters: [(name: String, help: String)]

  /// Why a comment cannot be read: said with the line it is on.
  struct Problem: Error, Equatable {
    let line: Int
    let message: String
  }

  /// The `///` lines right above the line at `offset` (characters into `text`), with the line
  /// number of the first, or nil when there are none.
  static func lines(above offset: Int, in text: String) -> (first: Int, lines: [String])? {
    let before = text.prefix(offset)
    var all = before.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    all.removeLast()  // the case's own line, up to the keyword
    var found: [String] = []
    while let last = all.last, last.trimmingCharacters(in: .whitespaces).hasPrefix("///") {
      let body = last.trimmingCharacters(in: .whitespaces).dropFirst(3)
      found.insert(String(body.first == " " ? body.dropFirst() : body), at: 0)
      all.removeLast()
    }
    return found.isEmpty ? nil : (all.count + 1, found)
  }

  /// Reads the comment whose first line is line `first` of its file.
  init(lines: [String], first: Int) throws(Problem) {
    var summary: [String] = []
    var parameters: [(name: String, help: String)] = []
    var inSummary = true
    var inParameterList = false
    // The callout the following indented lines continue, if it is a parameter's.
    var continuing = false
    for (index, raw) in lines.enumerated() {
      let line = raw.trimmingCharacters(in: .whitespaces)
      let number = first + index
      if line.isEmpty {
        inSummary = false
        continuing = false
        continue
      }
      guard line.hasPrefix("- ") else {
        if inSummary {
          summary.append(line)
        } else if continuing {
          parameters[parameters.count - 1].help += " " + line
        }
        continue
      }
      inSummary = false
      let callout = line.dropFirst(2)
      let indented = raw.hasPrefix(" ") || raw.hasPrefix("\t")
      if callout.lowercased().hasPrefix("parameters:") {
        inParameterList = true
        continuing = false
      } else if callout.lowercased().hasPrefix("parameter ") {
        inParameterList = false
        parameters.append(try Self.parameter(callout.dropFirst("parameter ".count), line: number, form: "- Parameter"))
        continuing = true
      } else if inParameterList && indented {
        parameters.append(try Self.parameter(callout, line: number, form: "- Parameters: list's"))
        continuing = true
      } else {
        inParameterList = false
        continuing = false
      }
    }
    self.summary = summary.joined(separator: " ")
    self.parameters = parameters
  }

  /// `name: help` of a parameter line.
  private static func parameter(_ text: Substring, line: Int, form: String) throws(Problem) -> (String, String) {
    guard let colon = text.firstIndex(of: ":") else {
      throw Problem(line: line, message: "the \(form) line '\(text)' has no ':'; write '- Parameter NAME: what it is'")
    }
    let name = text[..<colon].trimmingCharacters(in: .whitespaces)
    let help = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty, !name.contains(" ") else {
      throw Problem(
        line: line, message: "the \(form) line '\(text)' names no argument; write '- Parameter NAME: what it is'")
    }
    guard !help.isEmpty else {
      throw Problem(
        line: line, message: "the \(form) line for '\(name)' says nothing; write what the argument is after the ':'")
    }
    return (name, help)
  }
}
