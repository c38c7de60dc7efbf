#if canImport(Glibc)
  import Glibc
#endif

extension Sandbox {
  /// What loading and running a plugin need to read, beyond what the plugin declares: those of
  /// the paths below that exist on this machine, each once.
  ///
  /// With `network`, also what resolving names and checking TLS certificates read. Without
  /// `pluginPath` (an image child), no plugin's.
  public static func systemReadPaths(pluginPath: String?, network: Bool) -> [String] {
    var paths: [String] = []
    // The plugin's file and its folder (resources and private libraries beside it), and where a
    // symbolic link to it leads.
    if let pluginPath {
      let plugin = pluginPath.hasPrefix("/") ? pluginPath : currentFolder + "/" + pluginPath
      paths += [plugin, folder(of: plugin)]
      if let real = realPath(plugin) { paths += [real, folder(of: real)] }
    }
    // The running executable's folder: its private libraries live beside it.
    if let executable = realPath("/proc/self/exe") { paths.append(folder(of: executable)) }
    // The Swift runtime the plugin links to, wherever the toolchain put it.
    if let runtime = swiftRuntimeFolder { paths.append(runtime) }
    paths += [
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
      // The process's own /proc folder (maps, status, fd), by its real name: /proc/self is a link.
      realPath("/proc/self") ?? "/proc/self",
      // The runtime's CPU count (online, possible, cgroup-free sysconf).
      "/sys/devices/system/cpu",
    ]
    if network {
      paths += [
        // Resolving names: resolver settings, the hosts file, the lookup order, address sorting.
        "/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/gai.conf", "/etc/host.conf",
        // TLS certificates.
        "/etc/ssl", "/usr/share/ca-certificates", "/etc/ca-certificates",
      ]
    }
    var seen: Set<String> = []
    return paths.filter { access($0, F_OK) == 0 && seen.insert($0).inserted }
  }

  /// The folder of the loaded libswiftCore.so, from this process's /proc/self/maps; nil when the
  /// runtime is linked into the executable.
  private static var swiftRuntimeFolder: String? {
    let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var text: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      text += chunk[..<count]
    }
    for line in text.split(separator: UInt8(ascii: "\n")) {
      let entry = String(decoding: line, as: UTF8.self)
      guard entry.hasSuffix("/libswiftCore.so"), let slash = entry.firstIndex(of: "/") else { continue }
      return realPath(String(entry[slash...])).map(folder(of:))
    }
    return nil
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
