#if canImport(Glibc)
  import Glibc
#endif

/// Where plugin files are looked for: the search folders, and the candidate files in one.
///
/// Search order: `--plugins DIR` (in the order given), `FEATUREHOST_PLUGIN_PATH` (colon-separated),
/// then the build's own plugin folder (the folder of the host executable). Never the current
/// directory, unless it is named. `PluginRegistry` makes the catalogue of what they hold.
public enum PluginDiscovery {
  /// The search folders in order, without repeats.
  public static func searchDirectories(
    explicit: [String], environment: [String: String], buildFolder: String?
  ) -> [String] {
    var result: [String] = explicit
    if let path = environment["FEATUREHOST_PLUGIN_PATH"] {
      result += path.split(separator: ":", omittingEmptySubsequences: true).map(String.init)
    }
    if let buildFolder { result.append(buildFolder) }
    var seen = Set<String>()
    return result.filter { seen.insert(canonical($0)).inserted }
  }

  /// The folder holding the running executable, where SwiftPM puts the plugin libraries it builds.
  public static var buildFolder: String? {
    guard let path = ProcessExecutable.path(), let slash = path.lastIndex(of: "/") else { return nil }
    return String(path[..<slash])
  }

  /// The `*.so` files directly in `directory`, sorted by name. A `*_private.so` is a library a
  /// plugin opens itself (kittens' http client), not a plugin, and is skipped.
  static func candidates(in directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name.hasSuffix(".so") && !name.hasSuffix("_private.so") { names.append(name) }
    }
    let prefix = directory.hasSuffix("/") ? directory : directory + "/"
    return names.sorted().map { prefix + $0 }
  }

  private static func canonical(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}
