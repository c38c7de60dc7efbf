import Dispatch
import Foundation

/// The kittens plugin's http(s) client, in a library of its own so that the plugin maps
/// FoundationNetworking and libcurl only when it first fetches over http(s) (`KittenHTTP` opens
/// it). Only C types cross: a URL string, a timeout, and a completion with the body or a reason.

/// Called exactly once per request, on any thread: the body (valid during the call only) and its
/// byte count when `reason` is nil, else one line saying why the request failed.
public typealias KittensHTTPCompletion =
  @convention(c) (
    _ context: UnsafeMutableRawPointer?, _ body: UnsafePointer<UInt8>?, _ count: Int, _ reason: UnsafePointer<CChar>?
  ) -> Void

/// Where requests run: threads of this library's own, not Swift's cooperative pool. That pool has
/// one thread per core, and a host (or a test run) may hold them all in blocking waits, some of them
/// for this very request; on the pool, the request would not even start until one came free.
private final class RequestExecutor: TaskExecutor, Sendable {
  static let shared = RequestExecutor()

  private let queue = DispatchQueue(label: "kittens.http", attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}

/// A request in flight; the handle keeps it until `kittens_http_release_v1`.
private final class Request {
  let task: Task<Void, Never>
  init(task: Task<Void, Never>) { self.task = task }
}

/// Starts a GET of `url` that may take `timeout` seconds; returns a handle for
/// `kittens_http_cancel_v1`, which the caller frees with `kittens_http_release_v1`.
@_cdecl("kittens_http_get_v1")
public func kittensHTTPGet(
  _ url: UnsafePointer<CChar>, _ timeout: Double, _ context: UnsafeMutableRawPointer?,
  _ completion: KittensHTTPCompletion
) -> UnsafeMutableRawPointer {
  let address = String(cString: url)
  // The context is the caller's and only passes through; the completion is a C function.
  nonisolated(unsafe) let context = context
  nonisolated(unsafe) let completion = completion
  let task = Task.detached(executorPreference: RequestExecutor.shared) {
    do throws(HTTPFailure) {
      guard let url = URL(string: address) else { throw HTTPFailure("'\(address)' is not a URL") }
      let body = try await KittenWebClient(timeout: timeout).get(url)
      body.withUnsafeBytes { raw in
        completion(context, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, nil)
      }
    } catch {
      error.reason.withCString { completion(context, nil, 0, $0) }
    }
  }
  return Unmanaged.passRetained(Request(task: task)).toOpaque()
}

/// Cancels the request; its completion still comes, with the reason.
@_cdecl("kittens_http_cancel_v1")
public func kittensHTTPCancel(_ handle: UnsafeMutableRawPointer) {
  Unmanaged<Request>.fromOpaque(handle).takeUnretainedValue().task.cancel()
}

/// Frees the handle; the request goes on if it was not cancelled.
@_cdecl("kittens_http_release_v1")
public func kittensHTTPRelease(_ handle: UnsafeMutableRawPointer) {
  Unmanaged<Request>.fromOpaque(handle).release()
}
