#if canImport(Glibc)
  import Glibc
#endif

extension GNUExtensions {
  /// A close-on-exec pipe: (read end, write end), or errno's text.
  static func closeOnExecPipe() -> Result<(read: Int32, write: Int32), ChildProcessFailure> {
    guard let pipe2 else { return .failure(.cannotCreatePipe(reason: "this C library has no pipe2")) }
    var ends: [Int32] = [0, 0]
    guard pipe2(&ends, O_CLOEXEC) == 0 else {
      return .failure(.cannotCreatePipe(reason: String(cString: strerror(errno))))
    }
    return .success((ends[0], ends[1]))
  }
}
