import FeatureKit

/// Spin's feedback-loop example: two levels, left and right, regulated toward each other by two
/// feedbacks until they meet. The reducer is pure; the feedbacks are the only place events come from.
public struct LevelsFeature: Feature {
  public struct State: Codable, Equatable, Sendable {
    public var left: Int
    public var right: Int

    public init(left: Int, right: Int) {
      self.left = left
      self.right = right
    }

    /// Whether the regulation is over.
    public var settled: Bool { left == right }
  }

  /// The catalogue is derived from these cases: those with a `///` comment are typed by people.
  public enum Action: Codable, Sendable, Equatable {
    // The feedbacks' steps, not typed.
    case increaseLeft
    case decreaseLeft
    case increaseRight
    case decreaseRight
    /// Start a new regulation from these levels.
    /// - Parameter left: the left level (-2000 to 2000)
    /// - Parameter right: the right level (-2000 to 2000)
    case set(left: Int, right: Int)
  }

  /// The largest level `set` accepts, so a regulation stays short enough to watch and ends
  /// within the host's runaway guard (10,000 feedback steps): two levels 4,000 apart take 8,002.
  public static let limit = 2_000

  public static let manifest = Manifest(
    id: "levels",
    name: "Levels",
    version: "1.0.0",
    description: "Two levels regulated toward each other by feedback loops until they meet."
  )

  /// The pause between two regulation steps.
  public let interval: Duration

  /// The widest a full bar is drawn, in cells.
  public static let fullBar = 40

  /// The width of the terminal the view is drawn on, if known: the bars shrink to fit it.
  public let columns: Int?

  /// Config `interval` (milliseconds, default 50; 0 runs the loop at full speed), or the
  /// environment variable `LEVELS_INTERVAL`; config `columns`, the terminal's width (the host
  /// gives it at a terminal).
  public init(config: FeatureConfig) throws {
    let milliseconds = try config.integer("interval", environment: "LEVELS_INTERVAL") ?? 50
    guard (0...60_000).contains(milliseconds) else {
      throw FeatureError("interval \(milliseconds) must be between 0 and 60000 milliseconds")
    }
    interval = .milliseconds(milliseconds)
    let columns = try config.integer("columns")
    if let columns, !(1...10_000).contains(columns) {
      throw FeatureError("columns \(columns) must be between 1 and 10000")
    }
    self.columns = columns
  }

  public init(interval: Duration = .zero, columns: Int? = nil) {
    self.interval = interval
    self.columns = columns
  }

  public var feedbackInterval: Duration { interval }

  public func initialState() -> State { State(left: 10, right: 20) }

  public func reduce(into state: inout State, action: Action) throws -> Effect<Action> {
    switch action {
    case .set(let left, let right):
      guard left.magnitude <= Self.limit.magnitude, right.magnitude <= Self.limit.magnitude else {
        throw FeatureError("levels \(left) and \(right) must lie between -\(Self.limit) and \(Self.limit)")
      }
      state = State(left: left, right: right)
    case .increaseLeft, .decreaseLeft, .increaseRight, .decreaseRight:
      // Once the levels meet nothing moves; a step only ever moves a level toward the other, so a
      // step asked for by an older state cannot push them apart.
      guard !state.settled else { break }
      switch action {
      case .increaseLeft where state.left < state.right: state.left += 1
      case .decreaseLeft where state.left > state.right: state.left -= 1
      case .increaseRight where state.right < state.left: state.right += 1
      case .decreaseRight where state.right > state.left: state.right -= 1
      default: break
      }
    }
    return .none
  }

  /// Two feedbacks: one moves left toward right, the other right toward left.
  public func feedback(_ state: State) -> Effect<Action> {
    var actions: [Action] = []
    if let left = Self.regulateLeft(state) { actions.append(left) }
    if let right = Self.regulateRight(state) { actions.append(right) }
    return actions.isEmpty ? .none : .send(contentsOf: actions)
  }

  static func regulateLeft(_ state: State) -> Action? {
    state.left < state.right ? .increaseLeft : state.left > state.right ? .decreaseLeft : nil
  }

  static func regulateRight(_ state: State) -> Action? {
    state.right > state.left ? .decreaseRight : state.right < state.left ? .increaseRight : nil
  }

  /// What a full bar stands for: the first of 1, 2, 5, 10, 20, 50, ... at or above `largest`. As
  /// a regulation only brings the levels closer, the scale holds still while they move (15 is drawn
  /// shorter than 20), changing only when the larger level falls past a step.
  public static func scale(for largest: UInt) -> UInt {
    var step: UInt = 1
    while true {
      for factor: UInt in [1, 2, 5] where step * factor >= largest { return step * factor }
      step *= 10
    }
  }

  public func render(_ state: State) -> [String] { render(state, options: RenderOptions()) }

  /// As `render(_:)`, the bars fitted to `options.columns` when the host gives the width (it
  /// renders again when the terminal is resized), else to the config's `columns`.
  public func render(_ state: State, options: RenderOptions) -> [String] {
    let columns = options.columns ?? self.columns
    let scale = Self.scale(for: max(state.left.magnitude, state.right.magnitude))
    let width = max(String(state.left).count, String(state.right).count)
    // A full bar fits the terminal after "  right ", the number and a space (at least one cell).
    let full = UInt(columns.map { max(1, min(Self.fullBar, $0 - 9 - width)) } ?? Self.fullBar)
    func bar(_ value: Int) -> String {
      String(repeating: "█", count: Int(UInt(max(0, value)) * full / scale))
    }
    func number(_ value: Int) -> String {
      String(repeating: " ", count: width - String(value).count) + String(value)
    }
    return [
      state.settled ? "Levels — settled at \(state.left)" : "Levels — regulating...",
      "  left  \(number(state.left)) \(bar(state.left))",
      "  right \(number(state.right)) \(bar(state.right))",
    ]
  }
}
