/// A check that could not go on, with its one-line reason.
struct CheckFailure: Error {
  let why: String
  init(_ why: String) { self.why = why }
}
