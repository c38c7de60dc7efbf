import HostKit

#if canImport(Glibc)
  import Glibc
#endif

/// Where the plugin libraries of this build are, for tests that drive real `.so` files.
public enum PluginPaths {
  /// The folder of the running test executable: SwiftPM builds the plugin products beside it.
  public static var buildFolder: String {
    guard let folder = PluginDiscovery.buildFolder else {
      preconditionFailure("cannot read /proc/self/exe to find the build folder")
    }
    return folder
  }

  /// The path of the plugin library product `name` (`Counter` -> `.../libCounter.so`).
  public static func library(_ name: String) -> String { "\(buildFolder)/lib\(name).so" }

  /// `library` itself when it looks like a path (has a `/` or ends in `.so`), else the path of
  /// the product of that name.
  static func resolve(_ library: String) -> String {
    library.contains("/") || library.hasSuffix(".so") ? library : self.library(library)
  }
}
