import FeatureABI
import Foundation

/// One instance of the plugin under test, driven call by call through the raw descriptor, so the
/// checks see exact statuses, can send bytes that are not UTF-8, and can call out of order.
///
/// Not thread-safe, as the ABI requires: every call comes from the check's one thread. Actions
/// the plugin emits are applied only by `settle`, on that thread, in the order they came.
final class ConformanceInstance {
  let recorder = CallbackRecorder()
  private let functions: fh_plugin
  private let handle: OpaquePointer
  private var destroyed = false
  /// Emitted actions the plugin then refused, with why.
  private(set) var refusedEmits: [(action: String, result: CallResult)] = []

  /// Creates an instance with `config`. The binding is handed to `keepAlive` rather than freed
  /// with the instance: a plugin that calls back after destroy then reaches a recorder that
  /// ignores it, instead of freed memory.
  init(subject: ConformanceSubject, config: String, keepAlive: (CallbackBinding) -> Void) throws(CheckFailure) {
    let functions = subject.functions
    self.functions = functions
    let binding = try Self.bind(recorder, keepAlive: keepAlive)
    var created: OpaquePointer?
    let status = config.withCString { functions.create(binding.host, $0, &created) }
    recorder.enter(.created)
    guard status == fh_status(FH_OK), let created else {
      var message = ""
      if let created {
        message = functions.last_error(created).map { String(cString: $0) } ?? ""
        functions.destroy(created)
      }
      let result = CallResult(status: status, message: message)
      throw CheckFailure("not run: create refused the config \(ConformanceText.quote(config)): \(result.described)")
    }
    handle = created
  }

  deinit { destroy() }

  private static func bind(
    _ recorder: CallbackRecorder, keepAlive: (CallbackBinding) -> Void
  ) throws(CheckFailure) -> CallbackBinding {
    do {
      let binding = try CallbackBinding(target: recorder, hostVersion: HostVersion.cString)
      keepAlive(binding)
      return binding
    } catch {
      throw CheckFailure("not run: \(error.message)")
    }
  }

  /// Calls create with `config` (NULL when nil) and destroys what it made: the status, and
  /// last_error of the instance it handed back (empty when it handed back none).
  static func probeCreate(
    subject: ConformanceSubject, config: String?, keepAlive: (CallbackBinding) -> Void
  ) throws(CheckFailure) -> CallResult {
    let functions = subject.functions
    // The binding holds its target weakly: kept here until the probe's instance is destroyed.
    let recorder = CallbackRecorder()
    defer { withExtendedLifetime(recorder) {} }
    let binding = try bind(recorder, keepAlive: keepAlive)
    var created: OpaquePointer?
    let status: fh_status
    if let config {
      status = config.withCString { functions.create(binding.host, $0, &created) }
    } else {
      status = functions.create(binding.host, nil, &created)
    }
    var answer = CallResult(status: status)
    if let created {
      if status != fh_status(FH_OK) { answer.message = functions.last_error(created).map { String(cString: $0) } ?? "" }
      functions.destroy(created)
    }
    return answer
  }

  func start() -> CallResult {
    recorder.enter(.starting)
    let status = functions.start(handle)
    recorder.enter(status == fh_status(FH_OK) ? .running : .created)
    return result(status)
  }

  /// dispatch, reduce and restore given a NULL string.
  func dispatchNull() -> CallResult {
    var flags: UInt32 = 0
    recorder.dispatching(true)
    defer { recorder.dispatching(false) }
    return result(functions.dispatch(handle, nil, &flags))
  }

  func reduceNull() -> CallResult {
    var flags: UInt32 = 0
    return result(functions.reduce(handle, nil, &flags))
  }

  func restoreNull() -> CallResult { result(functions.restore(handle, nil)) }

  /// last_error as raw bytes ("" when it returns NULL).
  func lastError() -> [UInt8] { functions.last_error(handle).map(bytesOf) ?? [] }

  /// Calls snapshot (or render) and hands back the very pointer it returned, for the last-error
  /// check, which reads it again after last_error.
  func rawOutput(render: Bool) -> (status: fh_status, pointer: UnsafePointer<CChar>?) {
    var text: UnsafePointer<CChar>?
    let status = render ? functions.render(handle, &text) : functions.snapshot(handle, &text)
    return (status, text)
  }

  func bytes(at pointer: UnsafePointer<CChar>) -> [UInt8] { bytesOf(pointer) }

  func stop() -> CallResult {
    let status = functions.stop(handle)
    if status == fh_status(FH_OK) { recorder.markStopped() }
    return result(status)
  }

  func dispatch(_ json: String) -> CallResult { dispatch(bytes: Array(json.utf8)) }

  /// Dispatches raw bytes (NUL-terminated here), which need not be UTF-8.
  func dispatch(bytes: [UInt8]) -> CallResult {
    var flags: UInt32 = 0
    recorder.dispatching(true)
    let status = withCString(bytes) { functions.dispatch(handle, $0, &flags) }
    recorder.dispatching(false)
    var answer = result(status)
    answer.changed = flags & UInt32(FH_DISPATCH_STATE_CHANGED) != 0
    return answer
  }

  func reduce(bytes: [UInt8]) -> CallResult {
    var flags: UInt32 = 0
    let status = withCString(bytes) { functions.reduce(handle, $0, &flags) }
    return result(status)
  }

  func snapshot() -> CallResult {
    var text: UnsafePointer<CChar>?
    let status = functions.snapshot(handle, &text)
    return result(status, output: text)
  }

  func restore(bytes: [UInt8]) -> CallResult {
    result(withCString(bytes) { functions.restore(handle, $0) })
  }

  func render() -> CallResult {
    var text: UnsafePointer<CChar>?
    let status = functions.render(handle, &text)
    return result(status, output: text)
  }

  /// `render_structured` of `fh.structured_view/1`, nil when the plugin does not offer it.
  func renderStructured() -> CallResult? {
    guard let lookup = functions.get_extension, let table = FH_EXT_STRUCTURED_VIEW.withCString({ lookup($0) }) else {
      return nil
    }
    var read = fh_structured_view()
    guard fh_struct_read(table, &read, MemoryLayout<fh_structured_view>.size) >= MemoryLayout<fh_structured_view>.size,
      let render = read.render_structured
    else {
      return CallResult(status: fh_status(FH_ERR_INTERNAL), message: "the fh.structured_view/1 table is incomplete")
    }
    var text: UnsafePointer<CChar>?
    let status = render(handle, &text)
    return result(status, output: text)
  }

  /// Destroys the instance; later calls are a bug of the check. Idempotent.
  func destroy() {
    guard !destroyed else { return }
    destroyed = true
    functions.destroy(handle)
  }

  /// The start every behaviour check makes: start, then the lifecycle action `created`.
  func startFresh() throws(CheckFailure) {
    let started = start()
    guard started.isOK else { throw CheckFailure("start on a fresh instance failed: \(started.described)") }
    let created = dispatch(#"{"type":"created"}"#)
    guard created.isOK else {
      throw CheckFailure(#"the lifecycle action {"type":"created"} was refused: "# + created.described)
    }
  }

  /// How `settle` ended.
  enum SettleOutcome: Equatable {
    case settled
    /// Effects were still in flight at the deadline.
    case timedOut(effectsInFlight: Int)
    /// The plugin kept emitting: more than `settleStepLimit` actions in one settle.
    case runaway
  }

  /// Actions one settle applies before it calls the feature a runaway loop: the runaway guard's.
  static let settleStepLimit = RunSettingCatalogue.maxFeedbackSteps.defaultValue

  /// Applies what the plugin emitted, in order, until nothing is queued and no effect is in
  /// flight, or until `deadline`. `applied` sees each emitted action the plugin accepted.
  func settle(
    until deadline: Date, applied: (String) throws(CheckFailure) -> Void = { _ in }
  ) throws(CheckFailure) -> SettleOutcome {
    var steps = 0
    while true {
      let batch = recorder.takeEmitted(waitingUntil: deadline)
      if batch.actions.isEmpty {
        return batch.effectsInFlight == 0 ? .settled : .timedOut(effectsInFlight: batch.effectsInFlight)
      }
      for action in batch.actions {
        steps += 1
        if steps > Self.settleStepLimit { return .runaway }
        let answer = dispatch(action)
        if answer.isOK {
          try applied(action)
        } else {
          refusedEmits.append((action, answer))
        }
      }
    }
  }

  private func result(_ status: fh_status, output: UnsafePointer<CChar>? = nil) -> CallResult {
    var answer = CallResult(status: status)
    if status == fh_status(FH_OK) {
      if let output { answer.output = bytesOf(output) }
    } else {
      answer.message = functions.last_error(handle).map { String(decoding: bytesOf($0), as: UTF8.self) } ?? ""
    }
    return answer
  }

  private func bytesOf(_ text: UnsafePointer<CChar>) -> [UInt8] {
    UnsafeRawBufferPointer(start: text, count: strlen(text)).map { $0 }
  }

  private func withCString<T>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> T) -> T {
    (bytes + [0]).withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) { chars in
        guard let base = chars.baseAddress else { preconditionFailure("a non-empty array has storage") }
        return body(base)
      }
    }
  }
}
