import FeatureJSON
import Foundation
import Synchronization

/// Pushes what the stores do to the open devtools pages: a listener of every store and a
/// renderer told of every navigation, beside the line renderer.
///
/// With no page open it does nothing but read one atomic per event: nothing is formatted or
/// kept for a page that is not there.
public final class DevtoolsHub: FeatureRenderer {
  private let streams = Mutex<[EventStream]>([])
  private let readers = Atomic<Int>(0)

  public init() {}

  /// Whether a page is reading.
  public var hasReaders: Bool { readers.load(ordering: .relaxed) > 0 }

  /// How many pages read now (a page that closed counts until its connection is found closed:
  /// within the stream's keep-alive).
  public var readerCount: Int {
    streams.withLock { streams in
      prune(&streams)
      return streams.count
    }
  }

  /// A new stream for a page; it hears every event from now on until it ends.
  public func subscribe() -> EventStream {
    let stream = EventStream()
    streams.withLock { streams in
      prune(&streams)
      streams.append(stream)
      readers.store(streams.count, ordering: .relaxed)
    }
    return stream
  }

  /// Ends every stream (the server is stopping).
  public func endAll() {
    let ended = streams.withLock { streams in
      defer {
        streams.removeAll()
        readers.store(0, ordering: .relaxed)
      }
      return streams
    }
    for stream in ended { stream.end() }
  }

  /// Drops the streams that ended, and counts the rest as readers when that changed their number
  /// (the count is read at every store event). Under `streams`' lock.
  private func prune(_ streams: inout [EventStream]) {
    let before = streams.count
    streams.removeAll { $0.hasEnded }
    if streams.count != before { readers.store(streams.count, ordering: .relaxed) }
  }

  /// Sends `data` as event `name` to every open page.
  func push(_ name: String, _ data: String) {
    let open = streams.withLock { streams in
      prune(&streams)
      return streams
    }
    for stream in open { stream.send(name, data: data) }
  }

  // MARK: - StoreListener

  public func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    guard hasReaders, let feature = origin.feature else { return }
    let head = "{\"feature\":\(feature.number),\"time\":\(Int(Date().timeIntervalSince1970 * 1000)),"
    switch event {
    case .applied(let sequence, let action, let source, _):
      push("applied", head + "\"seq\":\(sequence),\"source\":\"\(source.rawValue)\",\"action\":\(action)}")
    case .rejected(let action, let source, let error, _):
      push(
        "refused",
        head
          + "\"source\":\"\(source.rawValue)\",\"action\":\(Self.quoted(action)),\"error\":\(Self.quoted("\(error)"))}")
    case .viewChanged(let text):
      push("view", head + "\"text\":\(Self.quoted(text))}")
    case .instanceLost(let loss, let call, let action):
      push(
        "crash",
        head + "\"loss\":\(Self.quoted("\(loss)")),\"call\":\(Self.quoted(call)),"
          + "\"action\":\(Self.quoted(action ?? ""))}")
    case .paused(let error):
      push("paused", head + "\"message\":\(Self.quoted(error.message))}")
    case .step(let json):
      push("step", head + "\"step\":\(Self.quoted(json))}")
    default:
      break
    }
  }

  static func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }

  // MARK: - FeatureRenderer

  public var followsViews: Bool { false }

  public func draws(on reason: ShowReason) -> Bool { hasReaders && reason != .resized }

  public func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {
    push("stack", "{\"focus\":\(focus.number)}")
  }

  public func finish(_ features: [PresentedFeature], focus: PresentedFeature) {}

  /// A travel, dispatch or pause made by the page: every page refetches what it shows.
  func changed(_ key: Int) {
    guard hasReaders else { return }
    push("changed", "{\"feature\":\(key)}")
  }
}
