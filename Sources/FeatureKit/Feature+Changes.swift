extension Feature {
  /// Compares the state with a copy from before the action; restores the copy when `reduce`
  /// throws, so a refused action leaves the state exactly as it was.
  public func reduce(into state: inout State, action: Action, changed: inout Bool) throws -> Effect<Action> {
    let before = state
    do {
      let effect = try reduce(into: &state, action: action)
      changed = state != before
      return effect
    } catch {
      state = before
      throw error
    }
  }
}

extension Feature {
  /// For a feature that implements only `reduce(into:action:changed:)`.
  public func reduce(into state: inout State, action: Action) throws -> Effect<Action> {
    var changed = false
    return try reduce(into: &state, action: action, changed: &changed)
  }
}
