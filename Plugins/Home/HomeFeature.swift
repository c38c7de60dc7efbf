import FeatureKit

/// The home menu of the main flow: lists the features the host found and, when one is picked,
/// emits the step `featurePicked`. It never decides where to go: the flow does.
public struct HomeFeature: Feature {
  /// One feature the menu offers.
  public struct Entry: Codable, Equatable, Sendable {
    public var id: String
    public var name: String
    public var description: String

    public init(id: String, name: String, description: String = "") {
      self.id = id
      self.name = name
      self.description = description
    }
  }

  public struct State: Codable, Equatable, Sendable {
    public var entries: [Entry]
    /// The id of the feature picked last.
    public var picked: String?

    public init(entries: [Entry], picked: String? = nil) {
      self.entries = entries
      self.picked = picked
    }
  }

  public enum Action: Codable, Sendable, Equatable {
    /// Open an entry of the menu.
    /// - Parameter entry: its number in the list (1, 2, ...) or its id
    case pick(entry: String)
  }

  public static let manifest = Manifest(
    id: "home",
    name: "Home",
    version: "1.0.0",
    description: "The menu of the features found: pick one to open it.",
    steps: [StepSpec("featurePicked", help: "an entry was picked; field 'feature' holds its id")]
  )

  /// What the menu offers, as the host passed it.
  public let entries: [Entry]

  /// Config `entries`: `[{"id", "name", "description"}]`; the host fills it with the features found.
  public init(config: FeatureConfig) throws {
    guard let list = config.value("entries") else {
      entries = []
      return
    }
    guard let items = list.arrayValue else {
      throw FeatureError("config 'entries' must be a list of {id, name, description}, got \(list.serialized())")
    }
    var entries: [Entry] = []
    for (index, item) in items.enumerated() {
      guard let id = item["id"]?.stringValue, !id.isEmpty else {
        throw FeatureError("config entries[\(index)] needs a string 'id', got \(item.serialized())")
      }
      entries.append(
        Entry(id: id, name: item["name"]?.stringValue ?? id, description: item["description"]?.stringValue ?? ""))
    }
    self.entries = entries
  }

  public init(entries: [Entry]) { self.entries = entries }

  public func initialState() -> State { State(entries: entries) }

  public func reduce(into state: inout State, action: Action) throws -> Effect<Action> {
    switch action {
    case .pick(let entry):
      let found =
        Int(entry).flatMap { number in state.entries.indices.contains(number - 1) ? state.entries[number - 1] : nil }
        ?? state.entries.first { $0.id == entry }
      guard let found else {
        let known = state.entries.isEmpty ? "the menu is empty" : "pick 1-\(state.entries.count) or an id: "
        throw FeatureError(
          "no entry '\(entry)'; \(known)\(state.entries.map(\.id).joined(separator: ", "))")
      }
      state.picked = found.id
      return .navigate("featurePicked", ["feature": .string(found.id)])
    }
  }

  public func render(_ state: State) -> [String] { render(state, options: RenderOptions()) }

  /// As `render(_:)`; at a terminal (`options.columns`) each description wraps under its own
  /// text, not to column 0, so the numbers and ids stay a column of their own.
  public func render(_ state: State, options: RenderOptions) -> [String] {
    var lines = ["FeatureHost — pick a feature"]
    let width = state.entries.map(\.id.count).max() ?? 0
    let numberWidth = String(state.entries.count).count
    for (index, entry) in state.entries.enumerated() {
      let padded = entry.id + String(repeating: " ", count: width - entry.id.count)
      let number = String(index + 1)
      let head = "  " + String(repeating: " ", count: numberWidth - number.count) + "\(number). \(padded)  "
      let about = entry.description.isEmpty ? entry.name : "\(entry.name): \(entry.description)"
      let wrapped = Self.wrap(about, width: options.columns.map { $0 - head.count } ?? Int.max)
      lines.append(head + wrapped[0])
      let indent = String(repeating: " ", count: head.count)
      lines += wrapped.dropFirst().map { indent + $0 }
    }
    if state.entries.isEmpty { lines.append("  (no features found)") }
    lines.append("type a number or an id to open it (e.g. '1' or 'counter'); ':back' returns here")
    return lines
  }

  /// `text` in lines of at most `width` characters, broken at spaces (a longer word is cut);
  /// never empty. A width under 20 leaves the text whole: the terminal wraps it anyway.
  static func wrap(_ text: String, width: Int) -> [String] {
    guard width >= 20, text.count > width else { return [text] }
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      var word = Substring(word)
      if !line.isEmpty && line.count + 1 + word.count > width {
        lines.append(line)
        line = ""
      }
      while word.count > width {
        if !line.isEmpty {
          lines.append(line)
          line = ""
        }
        lines.append(String(word.prefix(width)))
        word = word.dropFirst(width)
      }
      line += line.isEmpty ? String(word) : " " + word
    }
    lines.append(line)
    return lines
  }
}
