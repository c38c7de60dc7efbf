/// Forwards to an instance and remembers the first call that lost it: how a job's or a
/// restart's calls (made by code that only sees errors) tell the store about a loss.
final class LossWatch: PluginInstance {
  private let base: any PluginInstance
  private(set) var lost: PluginCallError?

  init(_ base: any PluginInstance) { self.base = base }

  var plugin: LoadedPlugin { base.plugin }

  private func watch<T>(_ call: () throws(PluginCallError) -> T) throws(PluginCallError) -> T {
    do {
      return try call()
    } catch {
      if lost == nil, error.loss != nil { lost = error }
      throw error
    }
  }

  func start() throws(PluginCallError) { try watch { () throws(PluginCallError) in try base.start() } }
  func dispatch(_ json: String) throws(PluginCallError) -> Bool {
    try watch { () throws(PluginCallError) in try base.dispatch(json) }
  }
  func dispatch(_ actions: [String], handle: (Result<Bool, PluginCallError>) -> Void) {
    dispatch(actions, snapshots: .none, handle: handle)
  }
  func dispatch(_ actions: [String], snapshots: SnapshotPoints, handle: (Result<Bool, PluginCallError>) -> Void) {
    base.dispatch(actions, snapshots: snapshots) { result in
      note(result)
      handle(result)
    }
  }
  var canSnapshotNow: Bool { base.canSnapshotNow }
  private func note<T>(_ result: Result<T, PluginCallError>) {
    if lost == nil, case .failure(let error) = result, error.loss != nil { lost = error }
  }

  func reduce(_ json: String) throws(PluginCallError) -> Bool {
    try watch { () throws(PluginCallError) in try base.reduce(json) }
  }
  func snapshot() throws(PluginCallError) -> String { try watch { () throws(PluginCallError) in try base.snapshot() } }
  func withSnapshot<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) throws(PluginCallError) -> R {
    try watch { () throws(PluginCallError) in try base.withSnapshot(body) }
  }
  func restore(_ json: String) throws(PluginCallError) {
    try watch { () throws(PluginCallError) in try base.restore(json) }
  }
  /// Forwarded whole, so a batch stays one. Only a batch's first failure is watched: its caller
  /// stops there, as it would have one call at a time, and a loss in a call made after it is
  /// not what failed.
  func perform(_ calls: [InstanceCall], handle: (Result<InstanceAnswer, PluginCallError>) -> Void) {
    var failed = false
    base.perform(calls) { result in
      if case .failure(let error) = result, !failed {
        failed = true
        if lost == nil, error.loss != nil { lost = error }
      }
      handle(result)
    }
  }
  func render() throws(PluginCallError) -> String { try watch { () throws(PluginCallError) in try base.render() } }
  func render(_ hints: RenderHints) throws(PluginCallError) -> String {
    try watch { () throws(PluginCallError) in try base.render(hints) }
  }
  func structuredView() throws(PluginCallError) -> String? {
    try watch { () throws(PluginCallError) in try base.structuredView() }
  }
  func stop() throws(PluginCallError) { try watch { () throws(PluginCallError) in try base.stop() } }
  func destroy() { base.destroy() }
}
