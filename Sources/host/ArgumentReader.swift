import HostKit

/// Reads a command's arguments one at a time; an option's value is the argument after it.
struct ArgumentReader {
  private var rest: ArraySlice<String>
  /// The help line of the usage error for an option given without its value.
  private let help: String

  init(_ arguments: [String], help: String) {
    rest = arguments[...]
    self.help = help
  }

  /// The next argument, consumed.
  mutating func next() -> String? { rest.popFirst() }

  /// The value of `option`: the next argument, consumed. A usage error when there is none.
  mutating func value(of option: String) throws(HostError) -> String {
    guard let value = rest.popFirst() else { throw .usage("\(option) needs a value", help: help) }
    return value
  }
}
