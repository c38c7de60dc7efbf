import Foundation
import Synchronization
import Testing

@testable import KittensHTTP

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// A request stopped (cancelled, or past its deadline) finishes at once, whatever its task is
/// waiting for: libcurl's cancel waits for a name lookup in progress (5 s with no network), and
/// the feature's load, and a `:back` behind it, waited as long.
@Suite("Kittens' HTTP request, stopped")
struct KittenRequestTests {
  /// A task that answers only when told (a name lookup that does not return), counting cancels.
  final class HeldTask: KittenTask, @unchecked Sendable {
    // @unchecked: `completion` is set once before `resume`; `cancelled` signals.
    var completion: KittenRequest.Completion?
    let cancelled = DispatchSemaphore(value: 0)
    func resume() {}
    func cancel() { cancelled.signal() }
    /// The answer URLSession gives at last, after the cancel.
    func answer(_ url: URL) {
      completion?(Data("[]".utf8), HTTPURLResponse(url: url, statusCode: 200, httpVersion: nil, headerFields: nil), nil)
    }
  }

  /// What a request's `finish` got, in order, and a signal for each.
  final class Results: Sendable {
    private let got = Mutex<[String]>([])
    let finished = DispatchSemaphore(value: 0)
    var all: [String] { got.withLock { $0 } }
    func add(_ result: String) {
      got.withLock { $0.append(result) }
      finished.signal()
    }
  }

  /// Starts a request of `url` on `task`.
  static func start(_ url: URL, timeout: Double, on task: HeldTask, into results: Results) -> KittenRequest {
    let request = KittenRequest(
      url: url, timeout: timeout,
      makeTask: { _, _, completion in
        task.completion = completion
        return task
      },
      finish: { result in
        switch result {
        case .success(let body): results.add("body \(body.count)")
        case .failure(let failure): results.add(failure.reason)
        }
      })
    request.start()
    return request
  }

  @Test("a cancel finishes it though its task never answers, and the answer that comes later is dropped")
  func aCancelFinishesAtOnce() throws {
    let url = try #require(URL(string: "https://kittens.invalid/v1/images"))
    let task = HeldTask()
    let results = Results()
    let request = Self.start(url, timeout: 600, on: task, into: results)
    request.cancel()
    // Bounds the wait only: it returns as soon as the request finishes.
    #expect(results.finished.wait(timeout: .now() + 10) == .success, "finished without the task's answer")
    #expect(task.cancelled.wait(timeout: .now() + 10) == .success, "the task was cancelled too")
    task.answer(url)
    #expect(results.all == ["the request to \(url.absoluteString) was cancelled"])
  }

  @Test("past its deadline it finishes though its task never answers")
  func theDeadlineFinishesAtOnce() throws {
    let url = try #require(URL(string: "https://kittens.invalid/v1/images"))
    let task = HeldTask()
    let results = Results()
    _ = Self.start(url, timeout: 0.05, on: task, into: results)
    #expect(results.finished.wait(timeout: .now() + 10) == .success, "finished without the task's answer")
    task.answer(url)
    #expect(results.all == ["no answer from \(url.absoluteString) within 0.05 s"])
  }

  @Test("an answer before any stop is the result, once")
  func anAnswerIsTheResult() throws {
    let url = try #require(URL(string: "https://kittens.invalid/v1/images"))
    let task = HeldTask()
    let results = Results()
    let request = Self.start(url, timeout: 600, on: task, into: results)
    task.answer(url)
    request.cancel()
    #expect(results.finished.wait(timeout: .now() + 10) == .success)
    #expect(results.all == ["body 2"])
  }
}
