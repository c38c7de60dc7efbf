import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The http(s) client, in its own library (`libKittensHTTP_private.so`, next to the library holding
/// this code) so FoundationNetworking and libcurl are mapped at the first http(s) fetch only, never
/// for `file` endpoints. The library is opened once and never closed (it is Swift code).
enum KittenHTTP {
  /// The file name; discovery skips names ending in `_private.so`, so `host list` does not list it.
  static let libraryName = "libKittensHTTP_private.so"

  typealias Completion =
    @convention(c) (
      UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int, UnsafePointer<CChar>?
    ) -> Void
  typealias Get =
    @convention(c) (
      UnsafePointer<CChar>, Double, UnsafeMutableRawPointer?, Completion
    ) -> UnsafeMutableRawPointer
  typealias HandleCall = @convention(c) (UnsafeMutableRawPointer) -> Void

  /// The library's functions. Unchecked: C function pointers, immutable, callable from any thread.
  struct Functions: @unchecked Sendable {
    let get: Get
    let cancel: HandleCall
    let release: HandleCall
  }

  /// Opened on first use (a static let runs once, thread-safely).
  static let library: Result<Functions, KittenLoadError> = open()

  /// glibc's `dladdr` (Glibc's Swift module hides it behind _GNU_SOURCE); its `Dl_info` is four
  /// pointers, the first the file name.
  private typealias DLAddr = @convention(c) (UnsafeRawPointer?, UnsafeMutableRawPointer) -> Int32

  /// The folder of the file holding this code: the plugin, or the executable it is linked into.
  static var ownFolder: String? {
    guard let symbol = dlsym(nil, "dladdr") else { return nil }
    let dladdr = unsafeBitCast(symbol, to: DLAddr.self)
    let anchor: @convention(c) () -> Void = {}
    var info = [UnsafePointer<CChar>?](repeating: nil, count: 4)
    let found = info.withUnsafeMutableBytes {
      dladdr(unsafeBitCast(anchor, to: UnsafeRawPointer.self), $0.baseAddress!)
    }
    guard found != 0, let file = info[0] else { return nil }
    let path = String(cString: file)
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return String(path[..<slash])
  }

  /// The folder of the running executable.
  static var executableFolder: String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    let path = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return path.lastIndex(of: "/").map { String(path[..<$0]) }
  }

  private static func open() -> Result<Functions, KittenLoadError> {
    // The plugin's own folder (a reload's copy has a link to the client beside it), then the
    // folder of the host executable, where the build puts both.
    var folders = [ownFolder, executableFolder].compactMap { $0 }
    if folders.count == 2 && folders[0] == folders[1] { folders.removeLast() }
    guard let path = folders.map({ $0 + "/" + libraryName }).first(where: { access($0, F_OK) == 0 }) else {
      return .failure(
        KittenLoadError(
          "cannot find the http client \(libraryName) in \(folders.joined(separator: " or ")); install it next to the kittens plugin"
        ))
    }
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
      return .failure(
        KittenLoadError("cannot load the http client '\(path)': \(reason); install it next to the kittens plugin"))
    }
    guard let get = dlsym(handle, "kittens_http_get_v1"), let cancel = dlsym(handle, "kittens_http_cancel_v1"),
      let release = dlsym(handle, "kittens_http_release_v1")
    else {
      return .failure(KittenLoadError("'\(path)' lacks the kittens_http_*_v1 functions; rebuild it with the plugin"))
    }
    return .success(
      Functions(
        get: unsafeBitCast(get, to: Get.self), cancel: unsafeBitCast(cancel, to: HandleCall.self),
        release: unsafeBitCast(release, to: HandleCall.self)))
  }

  /// One request's state, shared by the awaiting task, its cancellation handler and the library's
  /// completion.
  private final class Reply: Sendable {
    /// A request's handle. Unchecked: an opaque pointer only passed back to the library, under the
    /// reply's lock.
    struct Handle: @unchecked Sendable { let pointer: UnsafeMutableRawPointer }
    struct State {
      var continuation: CheckedContinuation<Result<Data, KittenLoadError>, Never>?
      var handle: Handle?
      var cancelled = false
    }
    let state = Mutex(State())
    let functions: Functions
    init(functions: Functions) { self.functions = functions }

    func cancel() {
      state.withLock { state in
        state.cancelled = true
        if let handle = state.handle { functions.cancel(handle.pointer) }
      }
    }

    func finish(_ result: Result<Data, KittenLoadError>) {
      let continuation = state.withLock { state in
        if let handle = state.handle { functions.release(handle.pointer) }
        state.handle = nil
        defer { state.continuation = nil }
        return state.continuation
      }
      continuation?.resume(returning: result)
    }
  }

  /// The body of a 2xx answer to a GET of `url`, within `timeout` seconds; cancelled with the task.
  static func get(_ url: URL, timeout: Double) async throws(KittenLoadError) -> Data {
    let functions = try library.get()
    let reply = Reply(functions: functions)
    let completion: Completion = { context, body, count, reason in
      let reply = Unmanaged<Reply>.fromOpaque(context!).takeRetainedValue()
      if let reason {
        reply.finish(.failure(KittenLoadError(String(cString: reason))))
      } else {
        reply.finish(.success(body.map { Data(bytes: $0, count: count) } ?? Data()))
      }
    }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let cancelledAlready = reply.state.withLock { state in
          state.continuation = continuation
          return state.cancelled
        }
        // Cancelled while the client was being opened: no request at all.
        guard !cancelledAlready else {
          reply.finish(.failure(KittenLoadError("the request to \(url.absoluteString) was cancelled")))
          return
        }
        let context = Unmanaged.passRetained(reply).toOpaque()
        let handle = Reply.Handle(
          pointer: url.absoluteString.withCString { functions.get($0, timeout, context, completion) })
        reply.state.withLock { state in
          // The completion may already have come; then the handle is ours to free.
          if state.continuation == nil {
            functions.release(handle.pointer)
          } else {
            state.handle = handle
            if state.cancelled { functions.cancel(handle.pointer) }
          }
        }
      }
    } onCancel: {
      reply.cancel()
    }
    return try result.get()
  }
}
