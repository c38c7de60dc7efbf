import FeatureJSON

/// Builds the hostile plugin of the sandbox's tests (Tests/Fixtures/hostile/hostile_plugin.c): a
/// feature `hostile` that tries what a worker's sandbox must refuse and records what happened.
///
/// Built as `FixturePlugin` builds its fixture (`cc -shared`, through `FixturePlugin.run`), once
/// per variant and test process.
public enum HostilePlugin {
  static let source = "\(FixturePlugin.packageRoot)/Tests/Fixtures/hostile/hostile_plugin.c"

  // Locked, not Mutex: ThreadSanitizer sees a pthread mutex change hands (see Locked).
  private static let built = Locked<[Bool: String]>([:])

  /// The path of the built `libhostile.so`, built on first use and shared by the process's tests
  /// (copy it into a test's own plugin folder): with `needs`, its manifest declares reads, writes
  /// and connects named by its config (`-DHOSTILE_NEEDS`).
  public static func path(needs: Bool = false) throws -> String {
    if let path = built.withLock({ $0[needs] }) { return path }
    let path = "\(try FixturePlugin.temporaryFolder())/libhostile.so"
    try build(needs ? ["HOSTILE_NEEDS"] : [], into: path)
    built.withLock { $0[needs] = path }
    return path
  }

  /// Compiles the plugin with `defines` into `output` (a fresh build, not cached). Warnings are
  /// errors.
  public static func build(_ defines: [String] = [], into output: String) throws {
    try FixturePlugin.run(
      FixturePlugin.compiler,
      ["-shared", "-fPIC", "-O1", "-Wall", "-Wextra", "-Werror", "-I", FixturePlugin.includeDirectory]
        + FixturePlugin.sanitizerFlags + defines.map { "-D\($0)" } + ["-o", output, source, "-lpthread"])
  }
}
