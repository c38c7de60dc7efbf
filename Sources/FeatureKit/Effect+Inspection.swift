extension Effect {
  /// The actions this effect sends at once (its `send` parts), for tests that drive a reducer
  /// and its feedbacks by hand; runs are not included.
  public var sent: [Action] {
    operations.flatMap { operation -> [Action] in
      if case .send(let actions) = operation { return actions }
      return []
    }
  }
}
