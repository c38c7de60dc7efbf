import Synchronization

/// The fixture files built so far in this test process, by name.
final class BuiltPaths: Sendable {
  private let paths = Mutex<[String: String]>([:])

  func path(for name: String) -> String? { paths.withLock { $0[name] } }

  func record(_ path: String, for name: String) { paths.withLock { $0[name] = path } }
}
