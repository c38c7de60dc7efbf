import HostKit

/// What Tab completes at the prompt: action names, their argument names (`set le` -> `set left=`),
/// `:` commands, and feature ids after a command that takes one (`:open`, `:focus`).
struct Completion: Sendable {
  /// The focused feature's actions and their argument names.
  var actions: [(name: String, arguments: [String])]
  /// The `:` commands (`ColonCommand.all`).
  var commands: [ColonCommand]
  /// The features `:open` and `:focus` may name.
  var features: [String]

  init(actions: [(name: String, arguments: [String])], commands: [ColonCommand], features: [String]) {
    self.actions = actions
    self.commands = commands
    self.features = features
  }

  init(manifest: Manifest, commands: [ColonCommand], features: [String]) {
    self.init(
      actions: manifest.actions.map { ($0.type, $0.arguments.map(\.name)) }, commands: commands, features: features)
  }

  /// The words that may replace `word`, the word being typed, after `before` (the line up to it).
  /// An argument name comes with its `=`, so typing goes straight on with the value.
  func candidates(before: String, word: String) -> [String] {
    let previous = before.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    guard let first = previous.first else {
      if word.hasPrefix(":") { return matching(commands.map { ":" + $0.name }, word) }
      return matching(actions.map(\.name), word)
    }
    if first.hasPrefix(":") {
      let takesFeature = ColonCommand.named(String(first.dropFirst()), in: commands)?.argument == .featureID
      return takesFeature && previous.count == 1 ? matching(features, word) : []
    }
    // Raw JSON or a value being typed: nothing to offer.
    guard let action = actions.first(where: { $0.name == first }), !word.contains("="), !before.hasSuffix("=")
    else { return [] }
    let given = Set(previous.dropFirst().compactMap { $0.split(separator: "=").first.map(String.init) })
    return matching(action.arguments.filter { !given.contains($0) }.map { $0 + "=" }, word)
  }

  private func matching(_ names: [String], _ word: String) -> [String] {
    names.filter { $0.hasPrefix(word) }.sorted()
  }
}
