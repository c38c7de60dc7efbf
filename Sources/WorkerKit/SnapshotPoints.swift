/// Where in a run of actions sent together the instance's state is taken in the same go: after
/// the action at index `first`, then after every `every`-th action from there (0: at `first`
/// only). A journal's periodic snapshot falls there, so the run need not end at it.
public struct SnapshotPoints: Sendable, Equatable {
  public var first: Int
  public var every: Int

  public init(first: Int, every: Int) {
    self.first = first
    self.every = max(0, every)
  }

  /// No state taken.
  public static let none = SnapshotPoints(first: .max, every: 0)

  /// The state after the last of `count` actions only.
  public static func afterLast(of count: Int) -> SnapshotPoints { SnapshotPoints(first: count - 1, every: 0) }

  /// Whether the state is taken after the action at `index`. Inlinable: asked at every answer of
  /// a piped run.
  @inlinable
  public func contains(_ index: Int) -> Bool {
    guard index >= first else { return false }
    return index == first || every > 0 && (index - first) % every == 0
  }

  /// How many of the actions `0..<count` have the state taken after them.
  public func count(below count: Int) -> Int {
    guard first < count else { return 0 }
    return every > 0 ? (count - 1 - first) / every + 1 : 1
  }
}
