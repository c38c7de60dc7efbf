import Foundation

/// The reason of a Foundation file error in the system's words, on one line: "Not a directory",
/// not "The operation could not be completed. (NSCocoaErrorDomain error 512.)".
public enum SystemReason {
  /// Why `error` happened; names the file it happened to when that is not `path`, the one the
  /// caller's message names.
  public static func of(_ error: any Error, naming path: String? = nil) -> String {
    let error = error as NSError
    var reason: String
    if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
      reason = String(cString: strerror(Int32(underlying.code)))
    } else if error.domain == NSPOSIXErrorDomain {
      reason = String(cString: strerror(Int32(error.code)))
    } else if let file = error.userInfo[NSFilePathErrorKey] as? String, let probed = probe(file) {
      reason = probed
    } else if error.domain == NSCocoaErrorDomain, let known = cocoaReasons[error.code] {
      reason = known
    } else {
      reason = error.localizedDescription.split(whereSeparator: \.isNewline).first.map(String.init) ?? "\(error)"
    }
    if let file = error.userInfo[NSFilePathErrorKey] as? String, file != path {
      reason += " ('\(file)')"
    }
    return reason
  }

  /// Why a file could not be made at `path`, found by looking at the nearest folder above it
  /// that exists: it is not a folder, or it is not writable. Nil when neither.
  private static func probe(_ path: String) -> String? {
    var folder = (path as NSString).deletingLastPathComponent
    var info = stat()
    while stat(folder, &info) != 0 {
      guard errno == ENOENT, folder != "/", !folder.isEmpty else { return nil }
      folder = (folder as NSString).deletingLastPathComponent
    }
    if info.st_mode & S_IFMT != S_IFDIR { return String(cString: strerror(ENOTDIR)) }
    if access(folder, W_OK) != 0 { return String(cString: strerror(errno)) }
    return nil
  }

  /// Foundation's file error codes, when no system error lies under them.
  private static let cocoaReasons: [Int: String] = [
    4: "No such file or directory", 256: "the file could not be read", 257: "Permission denied",
    260: "No such file or directory", 261: "the file is not UTF-8 text", 512: "the file could not be written",
    513: "Permission denied", 516: "the file exists", 640: "No space left on device", 642: "Read-only file system",
  ]
}
