/// A check that could not go on, with its one-line reason; or, when `needs` is set, a check that
/// could not start because what it is built on (the manifest's actions) failed another check.
struct CheckFailure: Error {
  let why: String
  /// The check whose failure leaves this one nothing to run on: reported as a skip, not a failure.
  var needs: ConformanceCheck?
  init(_ why: String) { self.why = why }

  /// This check is built on what `check` judges, and that failed.
  static func skipped(needing check: ConformanceCheck, _ why: String) -> CheckFailure {
    var failure = CheckFailure(why)
    failure.needs = check
    return failure
  }
}
