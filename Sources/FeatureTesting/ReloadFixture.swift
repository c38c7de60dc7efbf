import Foundation
import HostKit

/// Builds the hot-reload test plugin (Tests/Fixtures/reload/reload_plugin.c), feature
/// `reloadable`, in the versions its opening comment lists, with `cc -shared`.
public enum ReloadFixture {
  /// One build of the fixture.
  public enum Version: Sendable {
    /// 1.0.0: increment and wait; state {"count": n}.
    case first
    /// 1.1.0: a new action, double.
    case withDouble
    /// 1.2.0: the state field renamed to "total": restoring a 1.x state is refused.
    case renamedField
    /// 1.3.0: the entry function crashes.
    case crashingOnLoad
    /// 1.4.0: the entry function never returns.
    case hangingOnLoad

    public var number: String {
      switch self {
      case .first: "1.0.0"
      case .withDouble: "1.1.0"
      case .renamedField: "1.2.0"
      case .crashingOnLoad: "1.3.0"
      case .hangingOnLoad: "1.4.0"
      }
    }

    var macros: [String] {
      switch self {
      case .first: []
      case .withDouble: ["RELOAD_DOUBLE"]
      case .renamedField: ["RELOAD_RENAMED"]
      case .crashingOnLoad: ["RELOAD_CRASH_ON_LOAD"]
      case .hangingOnLoad: ["RELOAD_HANG_ON_LOAD"]
      }
    }
  }

  static let source = "\(FixturePlugin.packageRoot)/Tests/Fixtures/reload/reload_plugin.c"

  /// Compiles `version` into `output`, written in place (as a linker rewrites its output).
  public static func build(_ version: Version, into output: String) throws {
    try FixturePlugin.run(
      FixturePlugin.compiler,
      ["-shared", "-fPIC", "-O1", "-Wall", "-Werror", "-I", FixturePlugin.includeDirectory]
        + FixturePlugin.sanitizerFlags
        + (version.macros + ["RELOAD_VERSION=\"\(version.number)\""]).map { "-D\($0)" } + ["-o", output, source])
  }

  /// A fresh plugin folder (mode 0700) holding `libreloadable.so` built as `version`; returns
  /// the folder and the file.
  public static func folder(with version: Version = .first) throws -> (folder: String, file: String) {
    let folder = try FixturePlugin.temporaryFolder()
    let file = "\(folder)/libreloadable.so"
    try build(version, into: file)
    return (folder, file)
  }
}
