import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// One HTTP GET with a deadline, cancelled with the task that awaits it.
///
/// On Linux, `URLSession.data(for:)` honours task cancellation (it cancels its data task, and the
/// server sees the connection closed), but URLSession's own timeouts are cut to whole seconds, so
/// a sub-second timeout fires at once. The deadline is therefore a sibling task that cancels the
/// request; URLSession's timeout is set later as a backstop only.
struct KittenWebClient {
  /// Seconds the whole request may take.
  let timeout: Double

  /// The body of a 2xx answer to a GET of `url`.
  func get(_ url: URL) async throws(HTTPFailure) -> Data {
    do {
      return try await withThrowingTaskGroup(of: Data.self) { group in
        group.addTask { try await fetch(url) }
        group.addTask {
          try await Task.sleep(for: .seconds(timeout))
          throw HTTPFailure(
            "no answer from \(url.absoluteString) within \(Self.seconds(timeout)) s")
        }
        defer { group.cancelAll() }
        guard let body = try await group.next() else { throw CancellationError() }
        return body
      }
    } catch let error as HTTPFailure {
      throw error
    } catch let error as URLError {
      throw describe(error, url: url)
    } catch is CancellationError {
      throw HTTPFailure("the request to \(url.absoluteString) was cancelled")
    } catch {
      throw HTTPFailure("the request to \(url.absoluteString) failed: \(error)")
    }
  }

  private func fetch(_ url: URL) async throws -> Data {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.timeoutIntervalForRequest = timeout.rounded(.up) + 1
    configuration.timeoutIntervalForResource = timeout.rounded(.up) + 1
    configuration.urlCache = nil
    let session = URLSession(configuration: configuration)
    defer { session.invalidateAndCancel() }
    var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
    request.setValue("application/json", forHTTPHeaderField: "Accept")
    let (body, response) = try await session.data(for: request)
    guard let http = response as? HTTPURLResponse else {
      throw HTTPFailure("\(url.absoluteString) did not answer with HTTP")
    }
    guard (200..<300).contains(http.statusCode) else {
      throw HTTPFailure("HTTP \(http.statusCode) from \(url.absoluteString)")
    }
    return body
  }

  private func describe(_ error: URLError, url: URL) -> HTTPFailure {
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

/// Why a request failed: one line naming the address, shown in the kittens view.
struct HTTPFailure: Error {
  let reason: String
  init(_ reason: String) { self.reason = reason }
}
