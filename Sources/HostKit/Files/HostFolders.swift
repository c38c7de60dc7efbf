import FeatureJSON
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The folders a host keeps under the temporary folder, one per process that made them: each
/// in the user's own folder of them (`featurehost-runs-UID`, `featurehost-workers-UID`), named
/// `HOSTPID-XXXXXX`, so that a host killed before it could remove its own has them swept away by
/// the next host, which reads a few names, not the whole temporary folder.
enum HostFolders {
  /// `named-UID` in `base` (a path without a trailing slash): made (mode 0700) if missing; nil
  /// when the name is taken by anything but a folder of this user's that nobody else may open.
  static func userFolder(in base: String, named name: String) -> String? {
    let path = "\(base)/\(name)-\(geteuid())"
    if mkdir(path, 0o700) != 0 && errno != EEXIST { return nil }
    var status = stat()
    guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == geteuid(),
      status.st_mode & 0o077 == 0
    else { return nil }
    return path
  }

  /// A fresh folder (mode 0700) of this process in `parent`; nil when it cannot be made.
  static func make(in parent: String) -> String? {
    var template = Array("\(parent)/\(getpid())-XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { $0.baseAddress.flatMap { mkdtemp($0) } }.map {
      String(cString: $0)
    }
  }

  /// The first call for `parent` in this process removes the folders there whose host process is
  /// gone; later calls do nothing.
  static func sweepOnce(_ parent: String) {
    if swept.withLock({ $0.insert(parent).inserted }) { sweep(parent) }
  }

  /// The folders `sweepOnce` has swept.
  private static let swept = Locked<Set<String>>([])

  /// Removes the folders in `parent` whose host process is gone.
  private static func sweep(_ parent: String) {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
    for name in names {
      guard let host = pid_t(name.prefix { $0 != "-" }), host != getpid() else { continue }
      if kill(host, 0) != 0 && errno == ESRCH { try? FileManager.default.removeItem(atPath: "\(parent)/\(name)") }
    }
  }
}
