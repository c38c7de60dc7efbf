import FeatureKit
import KittensFeature
import Testing

/// The reducer and the view on their own: no host, no I/O.
@Suite("Kittens reducer and view")
struct KittensReducerTests {
  typealias State = KittensFeature.State

  let feature = KittensFeature(catalog: KittenCatalog(endpoint: "file:///nowhere.json", limit: 3))

  static func urls(_ range: Range<Int>) -> [String] {
    range.map { "https://cdn2.thecatapi.com/images/c\($0).jpg" }
  }

  /// Reduces `actions` in order from `state` and returns the state; no effect is run.
  func reduce(_ state: State, _ actions: KittensFeature.Action...) -> State {
    var state = state
    var changed = false
    for action in actions { _ = feature.reduce(into: &state, action: action, changed: &changed) }
    return state
  }

  @Test func createdStartsLoadingTheFirstPage() {
    let state = reduce(State(urls: Self.urls(0..<2), error: "old"), .created)
    #expect(state == State(isLoading: true, loadingOffset: 0))
  }

  @Test func restoredKeepsTheURLsAndForgetsTheLoadItWasWaitingFor() {
    let saved = State(urls: Self.urls(0..<6), isLoading: true, loadingOffset: 6, error: nil)
    #expect(
      reduce(saved, .restored) == State(urls: Self.urls(0..<6), isLoading: false, loadingOffset: 6))
  }

  @Test func theFirstPageFillsTheList() {
    let state = reduce(
      feature.initialState(), .created, .pageLoaded(offset: 0, urls: Self.urls(0..<3)))
    #expect(
      state == State(urls: Self.urls(0..<3), isLoading: false, loadingOffset: 0, nextOffset: 3))
  }

  @Test func loadMoreAsksForThePageAfterTheLastURL() {
    let state = reduce(State(urls: Self.urls(0..<6)), .loadMore)
    #expect(
      state == State(urls: Self.urls(0..<6), isLoading: true, loadingOffset: 6, nextOffset: 6))
  }

  @Test func aFullPageFromLoadMoreIsAppendedAndMovesTheOffset() {
    let state = reduce(
      State(urls: Self.urls(0..<3)), .loadMore, .pageLoaded(offset: 3, urls: Self.urls(3..<6)))
    #expect(
      state
        == State(
          urls: Self.urls(0..<6), isLoading: false, loadingOffset: 3, nextOffset: 6,
          endReached: false))
  }

  @Test func aPageShorterThanTheLimitMarksTheEnd() {
    let state = reduce(
      State(urls: Self.urls(0..<3)), .loadMore, .pageLoaded(offset: 3, urls: Self.urls(3..<4)))
    #expect(state == State(urls: Self.urls(0..<4), loadingOffset: 3, endReached: true))
  }

  @Test func anEmptyPageAtTheEndMarksTheEndAndAddsNothing() {
    let state = reduce(State(urls: Self.urls(0..<3)), .loadMore, .pageLoaded(offset: 3, urls: []))
    #expect(state == State(urls: Self.urls(0..<3), loadingOffset: 3, endReached: true))
  }

  @Test func loadMoreAtTheEndDoesNothing() {
    let atEnd = State(urls: Self.urls(0..<4), loadingOffset: 3, endReached: true)
    #expect(reduce(atEnd, .loadMore) == atEnd)
  }

  @Test func loadMoreWhileLoadingIsIgnored() {
    let loading = State(urls: Self.urls(0..<3), isLoading: true, loadingOffset: 0)
    #expect(reduce(loading, .loadMore) == loading)
  }

  @Test func refreshWhileLoadingRestartsAtOffsetZero() {
    let loadingMore = State(urls: Self.urls(0..<6), isLoading: true, loadingOffset: 6)
    #expect(
      reduce(loadingMore, .refresh)
        == State(urls: Self.urls(0..<6), isLoading: true, loadingOffset: 0))
  }

  @Test func refreshReplacesTheListWhenItsPageArrives() {
    let longList = State(urls: Self.urls(0..<7), endReached: true)
    let state = reduce(longList, .refresh, .pageLoaded(offset: 0, urls: Self.urls(10..<13)))
    #expect(
      state == State(urls: Self.urls(10..<13), loadingOffset: 0, nextOffset: 3, endReached: false))
  }

  @Test func aPageThatRacedWithARestartIsIgnored() {
    // loadMore at 6 was in flight; its page was queued before the refresh that replaced it
    let refreshing = reduce(State(urls: Self.urls(0..<6)), .loadMore, .refresh)
    #expect(reduce(refreshing, .pageLoaded(offset: 6, urls: Self.urls(6..<9))) == refreshing)
  }

  @Test func aPageNobodyAskedForIsIgnored() {
    let idle = State(urls: Self.urls(0..<3))
    #expect(reduce(idle, .pageLoaded(offset: 3, urls: Self.urls(3..<6))) == idle)
  }

  @Test func aFailureKeepsTheURLsAndNamesTheReason() {
    let state = reduce(
      State(urls: Self.urls(0..<3)), .loadMore, .loadFailed(reason: "HTTP 503 from http://x/"))
    #expect(
      state == State(urls: Self.urls(0..<3), loadingOffset: 3, error: "HTTP 503 from http://x/"))
  }

  @Test func aFailureWhenNothingIsLoadingIsIgnored() {
    let idle = State(urls: Self.urls(0..<3))
    #expect(reduce(idle, .loadFailed(reason: "late")) == idle)
  }

  @Test func startingALoadClearsTheLastError() {
    let failed = State(urls: Self.urls(0..<3), error: "HTTP 503 from http://x/")
    #expect(reduce(failed, .loadMore).error == nil)
    #expect(reduce(failed, .refresh).error == nil)
  }

  @Test func reducingSendsNothingAtOnce() throws {
    var state = State()
    for action in [
      KittensFeature.Action.created, .refresh, .loadMore, .pageLoaded(offset: 0, urls: []),
      .restored,
    ] {
      // FeatureKit's reduce(into:action:), over kittens' own reduce(into:action:changed:)
      #expect(try feature.reduce(into: &state, action: action).sent.isEmpty)
    }
  }

  // MARK: - View

  @Test func theViewOfALoadedPageNumbersTheURLsAndOffersMore() {
    let view = feature.render(State(urls: Self.urls(0..<3)))
    #expect(
      view == [
        "Kittens — 3 images",
        "  1. https://cdn2.thecatapi.com/images/c0.jpg",
        "  2. https://cdn2.thecatapi.com/images/c1.jpg",
        "  3. https://cdn2.thecatapi.com/images/c2.jpg",
        "type 'loadMore' for the next page",
      ])
  }

  @Test func theViewWhileLoadingSaysWhichPage() {
    #expect(
      feature.render(State(isLoading: true)) == [
        "Kittens — 0 images", "loading page at offset 0...",
      ])
    let more = feature.render(State(urls: Self.urls(0..<1), isLoading: true, loadingOffset: 1))
    #expect(
      more == [
        "Kittens — 1 image", "loading page at offset 1...",
        "  1. https://cdn2.thecatapi.com/images/c0.jpg",
      ])
  }

  @Test func theViewOfAFailureShowsTheReasonAndHowToRetry() {
    let view = feature.render(State(urls: Self.urls(0..<1), error: "HTTP 503 from http://x/"))
    #expect(
      view == [
        "Kittens — 1 image",
        "error: HTTP 503 from http://x/",
        "type 'refresh' to try again",
        "  1. https://cdn2.thecatapi.com/images/c0.jpg",
        "type 'loadMore' for the next page",
      ])
  }

  @Test func theViewShowsTheLatestTwentyURLsWithTheirNumbersAndCountsTheEarlierOnes() {
    let view = feature.render(State(urls: Self.urls(0..<25), endReached: true))
    #expect(view.count == 1 + 1 + 20 + 1)
    #expect(view[0] == "Kittens — 25 images")
    #expect(view[1] == "... 5 earlier (':view' lists every URL)")
    #expect(view[2] == "  6. https://cdn2.thecatapi.com/images/c5.jpg")
    #expect(view[21] == " 25. https://cdn2.thecatapi.com/images/c24.jpg")
    #expect(view[22] == "end of the catalog: 'loadMore' has nothing more to load")
  }

  @Test func theCompleteViewListsEveryURLAndCountsNoneAway() {
    let state = State(urls: Self.urls(0..<25), endReached: true)
    let view = feature.render(state, options: RenderOptions(complete: true))
    #expect(view.count == 1 + 25 + 1)
    #expect(view[1] == "  1. https://cdn2.thecatapi.com/images/c0.jpg")
    #expect(!view.contains { $0.hasPrefix("...") })
    // Only the width told: the window as before.
    #expect(feature.render(state, options: RenderOptions(columns: 40)) == feature.render(state))
  }

  @Test func afterTheSecondLoadMoreTheNewURLsAreInView() {
    let view = feature.render(State(urls: Self.urls(0..<30)))
    #expect(view.contains(" 30. https://cdn2.thecatapi.com/images/c29.jpg"))
    #expect(view.contains(" 21. https://cdn2.thecatapi.com/images/c20.jpg"))
    #expect(!view.contains("  1. https://cdn2.thecatapi.com/images/c0.jpg"))
  }

  @Test func aNetworkFailureMentionsTheCatalogFileAndOtherFailuresDoNot() {
    let network = feature.render(State(error: "cannot connect to 127.0.0.1:9 (refused or unreachable)"))
    #expect(network.contains { $0.hasPrefix("offline? ") && $0.contains("endpoint=file://") })
    let file = feature.render(State(error: "cannot read file:///tmp/x.json: no such file"))
    #expect(!file.contains { $0.hasPrefix("offline?") })
    let server = feature.render(State(error: "HTTP 503 from http://x/"))
    #expect(!server.contains { $0.hasPrefix("offline?") })
  }

  @Test func exactlyTwentyURLsNeedNoMoreLine() {
    let view = feature.render(State(urls: Self.urls(0..<20)))
    #expect(view.count == 1 + 20 + 1)
    #expect(!view.contains { $0.hasPrefix("...") })
  }

  // MARK: - Restored states

  struct BadState: CustomTestStringConvertible, Sendable {
    let id: String
    let state: KittensFeature.State
    let message: String
    var testDescription: String { id }
  }

  static let badStates: [BadState] = [
    BadState(
      id: "next-offset-past-the-urls", state: State(urls: urls(0..<2), nextOffset: 5),
      message: "nextOffset 5 must equal the number of urls, 2"),
    BadState(
      id: "negative-loading-offset", state: State(urls: urls(0..<2), loadingOffset: -1),
      message: "loadingOffset -1 must be within 0...2"),
    BadState(
      id: "loading-offset-past-the-urls", state: State(urls: urls(0..<2), loadingOffset: 3),
      message: "loadingOffset 3 must be within 0...2"),
  ]

  @Test("a restored state that paging cannot continue from is refused", arguments: badStates)
  func inconsistentStatesAreRefused(_ bad: BadState) {
    let error = #expect(throws: FeatureError.self) { try feature.validate(bad.state) }
    #expect(error?.message == bad.message)
  }
}
