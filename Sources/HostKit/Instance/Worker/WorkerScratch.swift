import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A sandboxed worker's private folder, the one place it may write without declaring it: its
/// TMPDIR and its XDG cache, data and config homes point there, so a library's temporary files
/// and caches (Foundation's URL cache and cookie store) work and vanish with the worker.
final class WorkerScratch: Sendable {
  let path: String

  private init(path: String) { self.path = path }

  /// A fresh folder (mode 0700) in the user's folder of them under the host's temporary folder,
  /// with its four homes; nil when it cannot be made (the worker then has none).
  static func make() -> WorkerScratch? {
    let base = ChildProcess.currentEnvironment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    guard let parent = userFolder(in: base) else { return nil }
    HostFolders.sweepOnce(parent)
    guard let made = HostFolders.make(in: parent) else { return nil }
    let scratch = WorkerScratch(path: made)
    for home in homes.values where mkdir("\(scratch.path)/\(home)", 0o700) != 0 {
      scratch.remove()
      return nil
    }
    return scratch
  }

  /// The folder of one user's worker folders, `featurehost-workers-UID` (see `HostFolders`).
  static func userFolder(in base: String) -> String? {
    HostFolders.userFolder(in: base, named: "featurehost-workers")
  }

  /// The variables pointed at the scratch folder, and the folder each gets.
  private static let homes = [
    "TMPDIR": "tmp", "XDG_CACHE_HOME": "cache", "XDG_DATA_HOME": "data", "XDG_CONFIG_HOME": "config",
  ]

  /// `environment` with the homes pointed here.
  func environment(_ environment: [String: String]) -> [String: String] {
    var environment = environment
    for (name, home) in Self.homes { environment[name] = "\(path)/\(home)" }
    return environment
  }

  /// Removes the folder and what the worker left in it: the empty homes at once, anything else
  /// the slower way.
  func remove() {
    for home in Self.homes.values { rmdir("\(path)/\(home)") }
    if rmdir(path) != 0 { try? FileManager.default.removeItem(atPath: path) }
  }
}
