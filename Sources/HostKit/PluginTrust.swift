#if canImport(Glibc)
  import Glibc
#endif

/// Refuses plugin files and folders that someone else could have changed, as sudo does for its
/// configuration: writable by group or others, or owned by a user other than us or root.
public enum PluginTrust {
  /// Throws naming `path`, why it is not trusted and how to fix it.
  public static func check(_ path: String) throws(HostError) {
    var info = stat()
    guard stat(path, &info) == 0 else {
      throw HostError("cannot read '\(path)': \(String(cString: strerror(errno)))")
    }
    let mode = info.st_mode & 0o7777
    if mode & 0o022 != 0 {
      let octal = String(mode, radix: 8)
      throw HostError(
        "'\(path)' is writable by group or others (mode \(octal)); refusing to load plugins from it",
        help: "anyone who can write it could run code in the host: run 'chmod go-w \(path)'")
    }
    let me = geteuid()
    if info.st_uid != me && info.st_uid != 0 {
      throw HostError(
        "'\(path)' is owned by uid \(info.st_uid), not by you (uid \(me)) or root; refusing to load it",
        help: "run 'chown \(me) \(path)', or install the plugin into a folder you own")
    }
  }
}
