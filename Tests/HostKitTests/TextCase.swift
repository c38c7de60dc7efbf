import Testing

/// One row of a table-driven test on text: an id that names the case, the text given, and the
/// text expected of it (what it becomes, or a piece of the message it is refused with).
struct TextCase: CustomTestStringConvertible, Sendable {
  let id: String
  let text: String
  let expected: String
  var testDescription: String { id }
}
