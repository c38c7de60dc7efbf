/// Where an exploration run stands when its next step is drawn.
public struct ExplorePosition: Sendable, Equatable {
  /// The steps run so far, plus one: the seqs `:goto` may take, roughly.
  public var seqs: Int
  /// The feature input goes to.
  public var focused: String
  /// The features of the top frame.
  public var shown: [String]
  /// How many frames the stack holds.
  public var depth: Int

  public init(seqs: Int, focused: String, shown: [String], depth: Int) {
    self.seqs = seqs
    self.focused = focused
    self.shown = shown
    self.depth = depth
  }
}
