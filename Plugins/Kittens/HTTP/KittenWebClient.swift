import Dispatch
import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP GET with a deadline and a cancel, ending in exactly one call of `finish`.
///
/// A data task with a completion handler, cancelled directly and never from inside a lock: on
/// Linux, cancelling `URLSession.data(for:)` through Swift task cancellation ran URLSession's
/// cancel under the task's status lock, where it waits for URLSession's queue, whose work may need
/// that lock (exploring the main flow deadlocked so). URLSession's own timeouts are cut to whole
/// seconds, so the deadline is a timer of its own; URLSession's is a backstop only.
///
/// A stop (a cancel, the deadline) finishes the request at once, not when URLSession's
/// completion comes: libcurl's cancel waits for a name lookup in progress, up to the resolver's
/// own timeout (5 s with no network), and the feature's load would wait as long. The completion
/// that comes later is dropped.
// @unchecked: `task`, `finished` and `deadline` are touched under `lock` only.
final class KittenRequest: @unchecked Sendable {
  private let url: URL
  private let timeout: Double
  private let finish: @Sendable (Result<Data, HTTPFailure>) -> Void
  private let makeTask: MakeTask
  private let lock = NSLock()
  private var task: (any KittenTask)?
  private var finished = false
  private var deadline: DispatchWorkItem?

  /// What starts the GET of a request: URLSession's data task (tests give a task of their own).
  typealias MakeTask = @Sendable (URLRequest, _ timeout: Double, _ completion: @escaping Completion) -> any KittenTask
  typealias Completion = @Sendable (Data?, URLResponse?, (any Error)?) -> Void

  /// Where a cancel is carried out: never on the canceller's thread, which may hold a lock (as
  /// may the thread of a stop, so its `finish` is sent elsewhere too).
  private static let cancels = DispatchQueue(label: "kittens.http.cancel")

  init(
    url: URL, timeout: Double, makeTask: @escaping MakeTask = KittenRequest.dataTask,
    finish: @escaping @Sendable (Result<Data, HTTPFailure>) -> Void
  ) {
    self.url = url
    self.timeout = timeout
    self.makeTask = makeTask
    self.finish = finish
  }

  /// A URLSession data task of its own session, invalidated once it completes.
  static func dataTask(_ request: URLRequest, timeout: Double, completion: @escaping Completion) -> any KittenTask {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout.rounded(.up) + 1
    configuration.timeoutIntervalForResource = timeout.rounded(.up) + 1
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    return session.dataTask(with: request) { body, response, error in
      session.finishTasksAndInvalidate()
      completion(body, response, error)
    }
  }

  func start() {
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let task = makeTask(request, timeout) { body, response, error in self.complete(body, response, error) }
    let deadline = DispatchWorkItem { [weak self] in
      guard let self else { return }
      self.stop(HTTPFailure("no answer from \(self.url.absoluteString) within \(Self.seconds(self.timeout)) s"))
    }
    lock.withLock {
      self.task = task
      self.deadline = deadline
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
    task.resume()
  }

  /// Stops the request: it finishes soon after, saying it was cancelled.
  func cancel() {
    stop(HTTPFailure("the request to \(url.absoluteString) was cancelled"))
  }

  /// Marks the request finished, the first time only, and ends its deadline: what it ran, or
  /// nil when it had finished already (a stop and the task's answer race for it).
  private func finishing() -> (any KittenTask)?? {
    let running: (task: (any KittenTask)?, deadline: DispatchWorkItem?)? = lock.withLock {
      guard !finished else { return nil }
      finished = true
      return (task, deadline)
    }
    running?.deadline?.cancel()
    return running.map(\.task)
  }

  private func stop(_ why: HTTPFailure) {
    guard let task = finishing() else { return }
    // Apart: a cancel may wait seconds in libcurl, and the next stop's finish must not.
    if let task { Self.cancels.async { task.cancel() } }
    let finish = self.finish
    DispatchQueue.global().async { finish(.failure(why)) }
  }

  private func complete(_ body: Data?, _ response: URLResponse?, _ error: Error?) {
    // Stopped before: finished then.
    guard finishing() != nil else { return }
    if let error = error as? URLError { return finish(.failure(describe(error))) }
    if let error { return finish(.failure(HTTPFailure("the request to \(url.absoluteString) failed: \(error)"))) }
    guard let http = response as? HTTPURLResponse else {
      return finish(.failure(HTTPFailure("\(url.absoluteString) did not answer with HTTP")))
    }
    guard (200..<300).contains(http.statusCode) else {
      return finish(.failure(HTTPFailure("HTTP \(http.statusCode) from \(url.absoluteString)")))
    }
    finish(.success(body ?? Data()))
  }

  private func describe(_ error: URLError) -> HTTPFailure {
    let address = url.absoluteString
    switch error.code {
    case .timedOut:
      return HTTPFailure("no answer from \(address) within \(Self.seconds(timeout)) s")
    case .cannotConnectToHost:
      return HTTPFailure("cannot connect to \(address) (refused or unreachable)")
    case .cannotFindHost, .dnsLookupFailed:
      return HTTPFailure("cannot find the host of \(address)")
    case .notConnectedToInternet:
      return HTTPFailure("no network to reach \(address)")
    case .networkConnectionLost:
      return HTTPFailure("the connection to \(address) was lost before the answer was complete")
    case .cancelled:
      return HTTPFailure("the request to \(address) was cancelled")
    default:
      return HTTPFailure(
        "the request to \(address) failed: \(error.localizedDescription) (URLError \(error.code.rawValue))"
      )
    }
  }

  /// `10` for whole seconds, `0.25` otherwise.
  static func seconds(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }
}

/// What `KittenRequest` starts and may cancel.
protocol KittenTask: Sendable {
  func resume()
  func cancel()
}

extension URLSessionDataTask: KittenTask {}

/// Why a request failed: one line naming the address, shown in the kittens view.
struct HTTPFailure: Error {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}
