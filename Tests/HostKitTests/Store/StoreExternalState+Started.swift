@testable import HostKit

extension StoreExternalState {
  /// A store's shared state as a started store has it, on the manual clock, with no store
  /// thread: the tests call what that thread would.
  static func started(capacity: Int = 8) -> StoreExternalState {
    let external = StoreExternalState(capacity: capacity, clock: .manual)
    external.started()
    return external
  }
}

extension InboxItem {
  /// A user's `tick`, as a typed line would queue it.
  static var tick: InboxItem { .action(#"{"type":"tick"}"#, .user, inputLine: 0) }
}
