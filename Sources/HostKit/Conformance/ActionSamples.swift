import FeatureJSON

/// Sample actions built from a feature's catalogue, so the validator can send every catalogued
/// action without knowing the feature: candidates with typical argument values, best first,
/// tried in order until the plugin accepts one.
public enum ActionSamples {
  /// Typical values of each kind, tried first.
  static func defaults(_ kind: ArgumentSpec.Kind) -> [JSONValue] {
    switch kind {
    case .integer: [1, 0, 2, -1, 10]
    case .number: [1, 0.5, 0, -1]
    case .string: ["sample", "a"]
    case .boolean: [true, false]
    }
  }

  /// The most candidates tried for one action.
  static let candidateLimit = 16

  /// The values tried for `argument`: the typical ones, then those its help text names (numbers
  /// for a numeric argument, words for a string), so "off, heat or cool" and "5 to 35" are tried.
  public static func values(for argument: ArgumentSpec) -> [JSONValue] {
    var values = defaults(argument.kind)
    switch argument.kind {
    case .integer: values += numbers(in: argument.help).compactMap { Int64(exactly: $0) }.map { .number(.int($0)) }
    case .number: values += numbers(in: argument.help).map { .number(.double($0)) }
    case .string: values += words(in: argument.help).map { .string($0) }
    case .boolean: break
    }
    var seen = Set<JSONValue>()
    return values.filter { seen.insert($0).inserted }
  }

  /// The candidate actions for `action`, as JSON: first with only the required arguments, then
  /// with all. In the i-th candidate the k-th argument takes value i + k of its list (shorter
  /// lists start over), so two arguments of one kind differ: `set left=1 right=0`.
  public static func candidates(for action: ActionSpec) -> [String] {
    let lists = action.arguments.map { values(for: $0) }
    func candidate(_ index: Int, optionals: Bool) -> String {
      var object: [String: JSONValue] = ["type": .string(action.type)]
      for (position, (argument, list)) in zip(action.arguments, lists).enumerated() where argument.required || optionals
      {
        object[argument.name] = list[(index + position) % list.count]
      }
      return JSONValue.object(object).serialized()
    }
    let rounds = min(candidateLimit, lists.map(\.count).max() ?? 1)
    var seen = Set<String>()
    let all = [candidate(0, optionals: false)] + (0..<rounds).map { candidate($0, optionals: true) }
    return all.filter { seen.insert($0).inserted }
  }

  /// The numbers written in `text`, in order: "between -1000000 and 1000000", "1...100".
  public static func numbers(in text: String) -> [Double] {
    var found: [Double] = []
    var current = ""
    func flush() {
      while current.hasSuffix(".") { current.removeLast() }
      if let number = Double(current), current.contains(where: \.isNumber) { found.append(number) }
      current = ""
    }
    for character in text {
      if character.isASCII && character.isNumber {
        current.append(character)
      } else if character == "-" && current.isEmpty {
        current.append(character)
      } else if character == "." && !current.isEmpty && !current.contains(".") {
        current.append(character)
      } else {
        flush()
        if character == "-" { current = "-" }
      }
    }
    flush()
    return found
  }

  /// The words of `text` made of letters, digits, '-' and '_', in order, without repeats.
  public static func words(in text: String) -> [String] {
    let isWordCharacter: (Character) -> Bool = { ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") && $0.isASCII }
    var seen = Set<String>()
    return text.split { !isWordCharacter($0) }.map(String.init).filter { seen.insert($0).inserted }
  }
}
