import Dispatch
import Foundation

/// The kittens plugin's http(s) client, in a library of its own so that the plugin maps
/// FoundationNetworking and libcurl only when it first fetches over http(s) (`KittenHTTP` opens
/// it). Only C types cross: a URL string, a timeout, and a completion with the body or a reason.

/// Called exactly once per request, on a thread of the library's (never inside the call that
/// started it): the body (valid during the call only) and its byte count when `reason` is nil,
/// else one line saying why the request failed.
public typealias KittensHTTPCompletion =
  @convention(c) (
    _ context: UnsafeMutableRawPointer?, _ body: UnsafePointer<UInt8>?, _ count: Int, _ reason: UnsafePointer<CChar>?
  ) -> Void

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
  let finish: @Sendable (Result<Data, HTTPFailure>) -> Void = { result in
    switch result {
    case .success(let body):
      body.withUnsafeBytes { raw in
        completion(context, raw.bindMemory(to: UInt8.self).baseAddress, raw.count, nil)
      }
    case .failure(let failure):
      failure.reason.withCString { completion(context, nil, 0, $0) }
    }
  }
  guard let parsed = URL(string: address) else {
    // Never from inside this call: the caller may hold a lock the completion takes.
    DispatchQueue.global().async { finish(.failure(HTTPFailure("'\(address)' is not a URL"))) }
    return Unmanaged.passRetained(Request(nil)).toOpaque()
  }
  let request = KittenRequest(url: parsed, timeout: timeout, finish: finish)
  request.start()
  return Unmanaged.passRetained(Request(request)).toOpaque()
}

/// A request in flight (nil for an address that was no URL); the handle keeps it until
/// `kittens_http_release_v1`.
private final class Request {
  let request: KittenRequest?
  init(_ request: KittenRequest?) { self.request = request }
}

/// Cancels the request; its completion still comes, with the reason.
@_cdecl("kittens_http_cancel_v1")
public func kittensHTTPCancel(_ handle: UnsafeMutableRawPointer) {
  Unmanaged<Request>.fromOpaque(handle).takeUnretainedValue().request?.cancel()
}

/// Frees the handle; the request goes on if it was not cancelled.
@_cdecl("kittens_http_release_v1")
public func kittensHTTPRelease(_ handle: UnsafeMutableRawPointer) {
  Unmanaged<Request>.fromOpaque(handle).release()
}
