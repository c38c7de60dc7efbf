import FeatureKit

/// MVIKotlin's Kittens sample: a list of cat image URLs loaded page by page from a web API, with
/// loading, error and refresh states.
///
/// The first page loads on `created` (the sample's bootstrapper); a `restored` instance keeps its
/// URLs and loads nothing until asked. Every load runs as the effect `"load"`; stopping the
/// instance cancels it, HTTP request included, and its result never reaches the reducer.
public struct KittensFeature: Feature {
  /// The whole model. `nextOffset` always equals `urls.count`; it is kept because paging reads it.
  public struct State: Codable, Equatable, Sendable {
    /// The image URLs shown, in catalog order.
    public var urls: [String]
    /// Whether a page is being fetched (the one at `loadingOffset`).
    public var isLoading: Bool
    /// The offset of the page asked for last; the one in flight while `isLoading`.
    public var loadingOffset: Int
    /// Where the next `loadMore` page starts.
    public var nextOffset: Int
    /// A page shorter than the limit came back: `loadMore` has nothing more to fetch.
    public var endReached: Bool
    /// Why the last load failed, in one line; nil once a load starts again.
    public var error: String?

    public init(
      urls: [String] = [], isLoading: Bool = false, loadingOffset: Int = 0, nextOffset: Int? = nil,
      endReached: Bool = false, error: String? = nil
    ) {
      self.urls = urls
      self.isLoading = isLoading
      self.loadingOffset = loadingOffset
      self.nextOffset = nextOffset ?? urls.count
      self.endReached = endReached
      self.error = error
    }
  }

  /// What happened: a person's request, an effect's result, or a lifecycle event. The cases with
  /// a `///` comment are the catalogue, what a person types; the others are not typed.
  public enum Action: Codable, Sendable, Equatable {
    case created
    case restored
    /// Load the first page again and replace the list (restarts a load in flight).
    case refresh
    /// Load the next page and append it (ignored while loading or at the end).
    case loadMore
    // The page at `offset` arrived.
    case pageLoaded(offset: Int, urls: [String])
    // The load in flight failed; `reason` is one line naming the offending value.
    case loadFailed(reason: String)
  }

  public static let manifest = Manifest(
    id: "kittens",
    name: "Kittens",
    version: "1.0.0",
    description:
      "Cat pictures from a web API, page by page. Config: endpoint (or env KITTENS_ENDPOINT; http, https "
      + "or file URL), limit (1...100, default 10), timeout (seconds, default 10).",
    // The endpoint is fetched (an http or https URL: its port) or read (a file URL: its file).
    needs: Needs(connect: [Self.endpoint], read: [Self.endpoint])
  )

  /// The `endpoint` setting as the catalog reads it: config, else KITTENS_ENDPOINT, else the default.
  static let endpoint = Needs.Target.setting(
    name: "endpoint", environment: "KITTENS_ENDPOINT", default: KittenCatalog.defaultEndpoint)

  /// Where pages come from, and how many at a time.
  public let catalog: KittenCatalog

  public init(config: FeatureConfig) throws {
    catalog = try KittenCatalog(config: config)
  }

  public init(catalog: KittenCatalog) {
    self.catalog = catalog
  }

  /// Refresh while a load is in flight cancels that load and starts again from offset 0, because
  /// the person asked for fresh data and the older answer would be replaced anyway. `loadMore`
  /// while loading is ignored instead: the page in flight is the one it would ask for (or a refresh
  /// that will reset the paging).
  ///
  /// Says itself whether the state changed, so that a page appended to a long list costs the
  /// page, not the list: the few scalars are compared with a copy, and the URLs, only ever
  /// replaced or appended to, report their own change.
  public func reduce(into state: inout State, action: Action, changed: inout Bool) -> Effect<Action> {
    let before = Scalars(state)
    var urlsChanged = false
    let effect = apply(action, to: &state, urlsChanged: &urlsChanged)
    changed = urlsChanged || Scalars(state) != before
    return effect
  }

  /// Everything in the state but the URLs.
  private struct Scalars: Equatable {
    let isLoading: Bool
    let loadingOffset: Int
    let nextOffset: Int
    let endReached: Bool
    let error: String?

    init(_ state: State) {
      isLoading = state.isLoading
      loadingOffset = state.loadingOffset
      nextOffset = state.nextOffset
      endReached = state.endReached
      error = state.error
    }
  }

  private func apply(_ action: Action, to state: inout State, urlsChanged: inout Bool) -> Effect<Action> {
    switch action {
    case .created:
      urlsChanged = !state.urls.isEmpty
      state = State()
      return startLoad(at: 0, into: &state)
    case .restored:
      // The load a snapshot was waiting for did not survive it.
      state.isLoading = false
      return .none
    case .refresh:
      return startLoad(at: 0, into: &state)
    case .loadMore:
      guard !state.isLoading, !state.endReached else { return .none }
      return startLoad(at: state.nextOffset, into: &state)
    case .pageLoaded(let offset, let urls):
      // A page that raced with a restart (queued before it) is not the one asked for.
      guard state.isLoading, offset == state.loadingOffset else { return .none }
      if offset == 0 {
        urlsChanged = state.urls != urls
        state.urls = urls
      } else {
        urlsChanged = !urls.isEmpty
        state.urls += urls
      }
      state.nextOffset = state.urls.count
      state.endReached = urls.count < catalog.limit
      state.isLoading = false
      state.error = nil
    case .loadFailed(let reason):
      guard state.isLoading else { return .none }
      state.isLoading = false
      state.error = reason
    }
    return .none
  }

  public func validate(_ state: State) throws {
    guard state.nextOffset == state.urls.count else {
      throw FeatureError(
        "nextOffset \(state.nextOffset) must equal the number of urls, \(state.urls.count)")
    }
    guard state.loadingOffset >= 0, state.loadingOffset <= state.urls.count else {
      throw FeatureError(
        "loadingOffset \(state.loadingOffset) must be within 0...\(state.urls.count)")
    }
  }

  private func startLoad(at offset: Int, into state: inout State) -> Effect<Action> {
    state.isLoading = true
    state.loadingOffset = offset
    state.error = nil
    let catalog = self.catalog
    return .run(id: "load") { send in
      do throws(KittenLoadError) {
        send(.pageLoaded(offset: offset, urls: try await catalog.page(at: offset)))
      } catch {
        send(.loadFailed(reason: error.reason))
      }
    }
  }
}
