import Testing

@testable import ActionCodegen

/// What the build plugin derives from a feature's sources, and the build errors it gives for
/// what it cannot use, each at the offending line and saying what to do.
@Suite("ActionCodegen")
struct ActionCodegenTests {
  static func source(action: String, members: String = "") -> String {
    """
    import FeatureKit

    public struct DemoFeature: Feature {
      public struct State: Codable, Equatable, Sendable {}
      public enum Action: Codable, Sendable, Equatable {
    \(action)
      }
      public static let manifest = Manifest(id: "demo", name: "Demo", version: "1", description: "")
    \(members)
      public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
    }
    """
  }

  static func generate(_ text: String) throws(ActionCatalogueSource.Problem) -> String {
    try GeneratedSource(sources: [(name: "Demo.swift", text: text)]).text
  }

  @Test func casesWithACommentAreTheCatalogueWithTheirArgumentsHelp() throws {
    let text = try Self.generate(
      Self.source(
        action: """
              /// Start again
              /// from these levels.
              /// - Parameter left: the left level (1 to 9)
              /// - Parameter note: a "word" \\ any
              case set(left: Int, note: String?)
              /// Flip it.
              ///
              /// More for readers.
              /// - Note: not the help either.
              case flip
              // An effect's result: not typed.
              case loaded(urls: [String])
              case created
          """))
    #expect(
      text.contains(
        #"ActionSpec("set", help: "Start again from these levels.", arguments: [ArgumentSpec("left", .integer, "#
          + #"help: "the left level (1 to 9)"), ArgumentSpec("note", .string, help: "a \"word\" \\ any", required: false)])"#
      ))
    #expect(!text.contains(#"ActionSpec("loaded""#))
    #expect(!text.contains(#"ActionSpec("created""#))
    #expect(text.contains(#"ActionSpec("flip", help: "Flip it.")"#))
  }

  @Test func aParametersListIsReadToo() throws {
    let text = try Self.generate(
      Self.source(
        action: """
              /// Move.
              /// - Parameters:
              ///   - x: across
              ///   - y: down, from 0
              ///     to 10
              case move(x: Double, y: Int)
          """))
    #expect(
      text.contains(
        #"ActionSpec("move", help: "Move.", arguments: [ArgumentSpec("x", .number, help: "across"), "#
          + #"ArgumentSpec("y", .integer, help: "down, from 0 to 10")])"#))
  }

  @Test func defaultsAreWrittenOnlyWhereTheAuthorWroteNone() throws {
    let bare = try Self.generate(Self.source(action: "    /// Go.\n    case go"))
    #expect(bare.contains("public init(config: FeatureConfig) throws { self.init() }"))
    #expect(bare.contains("public func initialState() -> State { State() }"))
    let written = try Self.generate(
      Self.source(
        action: "    /// Go.\n    case go",
        members: "  public init(config: FeatureConfig) {}\n  public func initialState() -> State { State() }"))
    #expect(!written.contains("self.init()"))
    #expect(!written.contains("{ State() }  //"))
  }

  @Test func aHandWrittenListIsLeftAsItIs() throws {
    let text = try Self.generate(
      Self.source(action: "    /// Go.\n    case go(to: [Int])").replacingOccurrences(
        of: #"description: "")"#, with: #"description: "", actions: [])"#))
    #expect(!text.contains("CataloguedAction"))
  }

  @Test func noReducerIsABuildError() throws {
    let text = try Self.generate(
      Self.source(action: "    case go").replacingOccurrences(of: "func reduce(into", with: "func apply(into"))
    #expect(text.contains(#"#error("DemoFeature has no reducer"#))
  }

  struct BadCase: Sendable, CustomTestStringConvertible {
    let id: String
    let action: String
    let line: Int
    let says: String
    var testDescription: String { id }
  }

  static let badCases: [BadCase] = [
    BadCase(
      id: "unsupported-type", action: "    /// Load.\n    case load(urls: [String])", line: 7,
      says:
        "case 'load' takes 'urls' of type [String], which a typed line cannot carry; use Int, Double, String or Bool"),
    BadCase(
      id: "undocumented-argument", action: "    /// Set.\n    case set(left: Int)", line: 7,
      says: "case 'set' does not say what 'left' is; add '/// - Parameter left: what it is'"),
    BadCase(
      id: "stray-parameter", action: "    /// Set.\n    /// - Parameter right: no such\n    case set(left: Int)",
      line: 8, says: "describes 'right', which the case does not take"),
    BadCase(
      id: "parameter-without-colon",
      action: "    /// Set.\n    /// - Parameter left the level\n    case set(left: Int)",
      line: 7, says: "the comment of case 'set': the - Parameter line 'left the level' has no ':'"),
    BadCase(
      id: "parameter-without-help", action: "    /// Set.\n    /// - Parameter left:\n    case set(left: Int)",
      line: 7, says: "the - Parameter line for 'left' says nothing"),
    BadCase(
      id: "unlabelled-argument", action: "    /// Set.\n    case set(Int)", line: 7,
      says: "case 'set' has an argument without a label"),
    BadCase(
      id: "no-summary", action: "    /// - Parameter left: the level\n    case set(left: Int)", line: 7,
      says: "case 'set' has a comment but no help"),
  ]

  @Test(arguments: badCases)
  func whatTheCatalogueCannotUseIsABuildErrorAtItsLine(_ bad: BadCase) {
    let source = Self.source(action: bad.action)
    #expect {
      try Self.generate(source)
    } throws: { error in
      guard let problem = error as? ActionCatalogueSource.Problem else { return false }
      #expect(problem.diagnostic.hasPrefix("Demo.swift:\(bad.line):1: error: "), "\(problem.diagnostic)")
      #expect(problem.message.contains(bad.says), "\(problem.message)")
      return true
    }
  }
}

/// The state writer the build plugin derives: only for a state it follows for certain.
@Suite("ActionCodegen: the state's writer")
struct StateWriterSourceTests {
  static func generate(state: String, extra: String = "") throws -> String {
    try GeneratedSource(
      sources: [
        (
          name: "Demo.swift",
          text: """
          import FeatureKit

          public struct DemoFeature: Feature {
            public struct State: Codable, Equatable, Sendable {
          \(state)
            }
            public enum Action: Codable, Sendable, Equatable {
              /// Go.
              case go
            }
            public static let manifest = Manifest(id: "demo", name: "Demo", version: "1", description: "")
            public func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
          \(extra)
          }
          """
        )
      ]
    ).text
  }

  @Test func plainMembersAreWrittenInKeyOrderAndTheRestSkipped() throws {
    let text = try Self.generate(
      state: """
            public var count = 0, clicks = 0
            public private(set) var name: String
            let ready: Bool
            var note: String?
            var limit: Optional<Int>
            var flag = true
            static let shared = 1
            public var settled: Bool { count == clicks }
            public var twice: Int {
              count * 2
            }
            struct Inner { var hidden: [Int] }
            init(name: String) { (count, clicks, self.name, ready, note, limit) = (0, 0, name, false, nil, nil) }
        """)
    let expected = """
      extension DemoFeature.State: JSONObjectWritable {
        public func writeJSONObject(into writer: inout JSONObjectWriter) {
          writer.member("clicks", clicks)
          writer.member("count", count)
          writer.member("flag", flag)
          writer.member("limit", limit)
          writer.member("name", name)
          writer.member("note", note)
          writer.member("ready", ready)
        }
      }
      """
    #expect(text.contains(expected), "\(text)")
    // `name` is set only in the state's own file: no reader.
    #expect(!text.contains("FlatStateDecodable"), "\(text)")
  }

  @Test func aStateOfSettableMembersIsReadToo() throws {
    let text = try Self.generate(
      state: """
            var count = 0, members: Int
            let name: String
            var note: String?
            var on = true
            init(name: String) { (count, members, self.name, note) = (0, 0, name, nil) }
        """)
    let expected = """
      extension DemoFeature.State: FlatStateDecodable {
        public init?(flatState members: StateMembers) {
          guard members.hasOnly("count", "members", "name", "note", "on") else { return nil }
          guard let m0 = members.value("count", as: Int.self) else { return nil }
          guard let m1 = members.value("members", as: Int.self) else { return nil }
          guard let m2 = members.value("name", as: String.self) else { return nil }
          guard let m3 = members.optional("note", as: String.self) else { return nil }
          guard let m4 = members.value("on", as: Bool.self) else { return nil }
          self.count = m0
          self.members = m1
          self.name = m2
          self.note = m3
          self.on = m4
        }
      }
      """
    #expect(text.contains(expected), "\(text)")
  }

  @Test(
    "a state written but not read: a member set elsewhere, a decoding of the author's own, nine members",
    arguments: [
      "let level = 0", "private(set) var level: Int", "fileprivate(set) var level: Int",
      "var level: Int\ninit(from decoder: Decoder) throws { level = 0 }",
      "var a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g = 0, h = 0, i = 0",
    ])
  func writtenButNotRead(_ state: String) throws {
    let text = try Self.generate(state: state)
    #expect(text.contains("JSONObjectWritable") && !text.contains("FlatStateDecodable"), "\(text)")
  }

  @Test(
    "a state it does not follow for certain is left to Codable",
    arguments: [
      "var items: [Int]",
      "var ratio: Double",
      "@Clamped var level: Int",
      "var level: Int = 0 { didSet { } }",
      "lazy var level = 0",
      "private var level: Int",
      "var level = makeLevel()",
      "var level, other: Int",
      "#if DEBUG\nvar level: Int\n#endif",
      "var `default`: Int",
      "var text = \"a\\(1)\"",
      "var link = \"http://example.com\"\nvar level: Int",
      "var label = \"x\"",
      "func link() -> String { \"http://example.com\" }\nvar level: Int",
      "isolated var level: Int",
      "weak var owner: Int?",
      "var level = 0x10",
      "var level: Int!",
    ])
  func leftToCodable(_ state: String) throws {
    let text = try Self.generate(state: state)
    #expect(!text.contains("JSONObjectWritable") && !text.contains("FlatStateDecodable"))
  }

  @Test func aWriterOfTheAuthorsOwnIsNotWrittenAgain() throws {
    // The extra text closes the feature early; the template's last brace closes the extension.
    let own =
      "}\nextension DemoFeature.State: JSONObjectWritable {\n"
      + "  func writeJSONObject(into writer: inout JSONObjectWriter) {}"
    let text = try Self.generate(state: "var level: Int", extra: own)
    #expect(!text.contains("extension DemoFeature.State: JSONObjectWritable {\n  public func"))
  }

  @Test func aHandWrittenEncodingLeavesTheStateToCodable() throws {
    let text = try Self.generate(
      state: "var level: Int\nenum CodingKeys: String, CodingKey { case level = \"l\" }")
    #expect(!text.contains("JSONObjectWritable"))
  }
}
