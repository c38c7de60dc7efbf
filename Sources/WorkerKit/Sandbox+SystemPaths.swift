#if canImport(Glibc)
  import Glibc
#endif

extension Sandbox {
  /// What loading and running a plugin need to read, beyond what the plugin declares: those of
  /// the paths below that exist on this machine, each once.
  ///
  /// With `network`, also what resolving names and checking TLS certificates read. Without
  /// `pluginPath` (an image child), no plugin's. The process's own /proc folder is this process's:
  /// a host working out a worker's list leaves it to the worker (`withOwnProcFolder`).
  public static func systemReadPaths(pluginPath: String?, network: Bool) -> [String] {
    withOwnProcFolder(pluginReadPaths(pluginPath) + sharedReadPaths(network: network))
  }

  /// `paths` and the process's own /proc folder (maps, status, fd), by its real name: /proc/self
  /// is a link, which Landlock would resolve to the folder of the process that made the rule.
  public static func withOwnProcFolder(_ paths: [String]) -> [String] {
    paths + [realPath("/proc/self") ?? "/proc/self"]
  }

  /// The plugin's file and its folder (resources and private libraries beside it), and where a
  /// symbolic link to it leads.
  public static func pluginReadPaths(_ pluginPath: String?) -> [String] {
    guard let pluginPath else { return [] }
    let plugin = pluginPath.hasPrefix("/") ? pluginPath : currentFolder + "/" + pluginPath
    var paths = [plugin, folder(of: plugin)]
    if let real = realPath(plugin), real != plugin { paths += [real, folder(of: real)] }
    return existing(paths)
  }

  /// What every plugin's worker reads, the same for every worker of this executable: worked out
  /// once per process (a host starting workers pays for it once, not at each start).
  public static func sharedReadPaths(network: Bool) -> [String] { network ? sharedWithNetwork : sharedOffline }

  private static let sharedOffline = existing(offlinePaths)
  private static let sharedWithNetwork = existing(offlinePaths + networkPaths)

  private static var offlinePaths: [String] {
    var paths: [String] = []
    // The running executable's folder: its private libraries live beside it.
    if let executable = realPath("/proc/self/exe") { paths.append(folder(of: executable)) }
    // The Swift runtime the plugin links to, wherever the toolchain put it.
    if let runtime = swiftRuntimeFolder { paths.append(runtime) }
    return paths + [
      // The system's shared libraries, which the loader maps for the plugin's dependencies.
      "/lib", "/lib64", "/usr/lib", "/usr/lib64",
      // The loader's index of those libraries.
      "/etc/ld.so.cache",
      // The local time zone and the time zone database (Foundation's TimeZone, localtime).
      "/etc/localtime", "/usr/share/zoneinfo",
      // Locales and translated messages (setlocale, strerror in another language).
      "/usr/share/locale", "/usr/lib/locale",
      // What a library may open for nothing or for random bytes.
      "/dev/null", "/dev/urandom",
      // The runtime's CPU count (online, possible, cgroup-free sysconf).
      "/sys/devices/system/cpu",
    ]
  }

  private static let networkPaths = [
    // Resolving names: resolver settings, the hosts file, the lookup order, address sorting.
    "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
    // TLS certificates.
    "/etc/ssl", "/usr/share/ca-certificates", "/etc/ca-certificates",
  ]

  /// Those of `paths` that exist, each once.
  private static func existing(_ paths: [String]) -> [String] {
    var seen: Set<String> = []
    return paths.filter { access($0, F_OK) == 0 && seen.insert($0).inserted }
  }

  /// The folder of the loaded libswiftCore.so, from the loader's record of the object holding
  /// one of its functions; nil when the runtime is linked into the executable.
  private static var swiftRuntimeFolder: String? {
    guard let function = dlsym(nil, "swift_retain"), let dladdr = dlsym(nil, "dladdr") else { return nil }
    // glibc's `Dl_info` is four pointers, the first the file name (Glibc's module hides dladdr).
    typealias DLAddr = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer) -> Int32
    var info = [UnsafePointer<CChar>?](repeating: nil, count: 4)
    let found = info.withUnsafeMutableBytes { unsafeBitCast(dladdr, to: DLAddr.self)(function, $0.baseAddress!) }
    guard found != 0, let file = info[0] else { return nil }
    let path = String(cString: file)
    guard path.hasSuffix("/libswiftCore.so") else { return nil }
    return realPath(path).map(folder(of:))
  }

  private static var currentFolder: String {
    guard let path = getcwd(nil, 0) else { return "." }
    defer { free(path) }
    return String(cString: path)
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  private static func folder(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }
}
