#if canImport(Glibc)
  import Glibc
#endif

/// Finds plugin files in the search folders and loads the ones that pass every check.
///
/// Search order: `--plugins DIR` (in the order given), `FEATUREHOST_PLUGIN_PATH` (colon-separated),
/// then the build's own plugin folder (the folder of the host executable). Never the current
/// directory, unless it is named.
public struct PluginDiscovery: Sendable {
  /// A candidate that was not loaded, and why.
  public struct Rejection: Sendable, Equatable {
    public var path: String
    public var reason: String
    public var help: String?
  }

  public struct Result: Sendable {
    public var plugins: [LoadedPlugin]
    public var rejections: [Rejection]

    public func plugin(id: String) -> LoadedPlugin? { plugins.first { $0.id == id } }
    public var ids: [String] { plugins.map(\.id) }
  }

  public var directories: [String]

  public init(directories: [String]) { self.directories = directories }

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
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = path.lastIndex(of: "/") else { return nil }
    return String(path[..<slash])
  }

  /// Loads every candidate; the first plugin with a given id wins, later ones are rejected.
  public func scan() -> Result {
    var plugins: [LoadedPlugin] = []
    var rejections: [Rejection] = []
    for directory in directories {
      do {
        try PluginTrust.check(directory)
      } catch {
        rejections.append(Rejection(path: directory, reason: error.message, help: error.help))
        continue
      }
      for path in Self.candidates(in: directory) {
        do {
          try PluginTrust.check(path)
          let plugin = try PluginLoader.load(path)
          if let first = plugins.first(where: { $0.id == plugin.id }) {
            rejections.append(
              Rejection(
                path: path, reason: "duplicate feature id '\(plugin.id)', already provided by '\(first.path)'",
                help: "the first one found wins; remove one of them or give it another id"))
            continue
          }
          plugins.append(plugin)
        } catch let error as HostError {
          rejections.append(Rejection(path: path, reason: error.message, help: error.help))
        } catch let error as PluginLoadError {
          rejections.append(Rejection(path: path, reason: error.message, help: error.help))
        } catch {
          rejections.append(Rejection(path: path, reason: "\(error)", help: nil))
        }
      }
    }
    return Result(plugins: plugins, rejections: rejections)
  }

  /// The `*.so` files directly in `directory`, sorted by name.
  static func candidates(in directory: String) -> [String] {
    guard let dir = opendir(directory) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(cString: raw.bindMemory(to: CChar.self).baseAddress!)
      }
      if name.hasSuffix(".so") { names.append(name) }
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
