import FeatureJSON
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
    sweepOnce(parent)
    var template = Array("\(parent)/\(getpid())-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return nil }
    let scratch = WorkerScratch(path: String(cString: made))
    for home in homes.values where mkdir("\(scratch.path)/\(home)", 0o700) != 0 {
      scratch.remove()
      return nil
    }
    return scratch
  }

  /// The folder of one user's worker folders, `featurehost-workers-UID`: its own, so that the
  /// sweep reads a few names, not the whole temporary folder. Made if missing; nil when the name
  /// is taken by anything but a folder of this user's that nobody else may open.
  static func userFolder(in base: String) -> String? {
    let path = "\(base)/featurehost-workers-\(geteuid())"
    if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(),
      status.st_mode & 0o077 == 0
    else { return nil }
    return path
  }

  /// The first folder a host makes sweeps away the folders of hosts that are gone (killed before
  /// they could remove their workers'): each is named `HOSTPID-XXXXXX`.
  private static let swept = Locked(false)

  private static func sweepOnce(_ parent: String) {
    guard
      swept.withLock({ swept in
        defer { swept = true }
        return !swept
      })
    else { return }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
    for name in names {
      guard let host = pid_t(name.prefix { $0 != "-" }), host != getpid() else { continue }
      if kill(host, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: "\(parent)/\(name)") }
    }
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
