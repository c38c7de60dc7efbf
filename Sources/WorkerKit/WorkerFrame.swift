#if canImport(Glibc)
  import Glibc
#endif

/// The frames between the host and a worker process: a little-endian `UInt32` length, then a kind
/// byte and its fields. Strings are a `UInt32` byte count and their UTF-8 bytes, integers
/// fixed-width little-endian. One stream each way over a socketpair, in order.
package enum WorkerFrame {
  /// Host to worker: the ABI's calls, and `probe` (tests: what the worker process sees).
  package enum Request: UInt8 {
    case create = 1
    case start, dispatch, reduce, snapshot, restore, render, stop, destroy, probe
    /// render with hints (`fh.render_options/1`): the hints' JSON.
    case renderWith
    /// `fh.structured_view/1`: the reply's `changed` says whether the plugin offers it.
    case renderStructured

    /// The call's name in errors: `dispatch`.
    package var name: String {
      switch self {
      case .create: "create"
      case .start: "start"
      case .dispatch: "dispatch"
      case .reduce: "reduce"
      case .snapshot: "snapshot"
      case .restore: "restore"
      case .render, .renderWith: "render"
      case .stop: "stop"
      case .destroy: "destroy"
      case .probe: "probe"
      case .renderStructured: "render_structured"
      }
    }
  }

  /// Worker to host: the answer to the oldest unanswered request, and the plugin's callbacks.
  package enum Message: UInt8 {
    /// status (Int32), changed (UInt8), text: the result, or the plugin's last_error.
    case reply = 20
    /// origin (UInt8), action.
    case emit
    /// level (UInt8), message.
    case log
    case effectBegan
    case effectEnded
    /// step.
    case step
    /// id (UInt64, the worker's), delay in nanoseconds (UInt64), origin (UInt8), actions.
    case schedule
    /// id (UInt64, the worker's).
    case cancel
    /// kind (UInt8, `SandboxRefusal.Kind.frameByte`), subject: the sandbox refused the plugin.
    case refused
    /// changed (UInt8): a `reply` with status OK and no text, as most dispatches' are, read
    /// without a reply's fields.
    case done
  }

  /// The longest frame either side takes: a longer length is a broken peer, not a state.
  package static let maxLength = 1 << 30

  /// The status a reply to `create` carries when the worker could not load the plugin at all;
  /// its text is the error's message and a second string its help.
  package static let loadFailed = Int32.min
}

/// Builds frames into one byte buffer, so several go out in one write.
package struct FrameWriter {
  package var bytes: [UInt8] = []

  package init() {}

  /// Starts a frame of `kind`; `end(at:)` fills in its length.
  package mutating func begin(_ kind: UInt8) -> Int {
    let start = bytes.count
    // Not an array literal: that would be an allocation a frame.
    uint64(UInt64(kind) << 32, width: 5)
    return start
  }

  package mutating func end(at start: Int) {
    let length = UInt32(bytes.count - start - 4)
    bytes[start] = UInt8(truncatingIfNeeded: length)
    bytes[start + 1] = UInt8(truncatingIfNeeded: length >> 8)
    bytes[start + 2] = UInt8(truncatingIfNeeded: length >> 16)
    bytes[start + 3] = UInt8(truncatingIfNeeded: length >> 24)
  }

  package mutating func byte(_ value: UInt8) { bytes.append(value) }

  package mutating func int32(_ value: Int32) { uint64(UInt64(UInt32(bitPattern: value)), width: 4) }

  package mutating func uint64(_ value: UInt64, width: Int = 8) {
    // Byte by byte: cheaper for a few bytes than any generic append(contentsOf:).
    var value = value
    for _ in 0..<width {
      bytes.append(UInt8(truncatingIfNeeded: value))
      value >>= 8
    }
  }

  package mutating func string(_ text: String) {
    guard !text.isEmpty else { return uint64(0, width: 4) }
    var text = text
    text.withUTF8 { utf8 in
      uint64(UInt64(utf8.count), width: 4)
      bytes.append(contentsOf: utf8)
    }
  }

  /// A string field that ends in a NUL, so the reader can hand it to C where it lies
  /// (`FrameFields.withCString`).
  package mutating func cString(_ text: String) {
    var text = text
    text.withUTF8 { utf8 in
      bytes.reserveCapacity(bytes.count + 4 + utf8.count + 1)
      uint64(UInt64(utf8.count + 1), width: 4)
      bytes.append(contentsOf: utf8)
      bytes.append(0)
    }
  }

  /// A string field from UTF-8 bytes the caller holds.
  package mutating func string(utf8: UnsafeBufferPointer<UInt8>) {
    bytes.reserveCapacity(bytes.count + 4 + utf8.count)
    uint64(UInt64(utf8.count), width: 4)
    bytes.append(contentsOf: utf8)
  }

  /// A whole frame of `kind` with one string field (or none).
  package mutating func frame(_ kind: UInt8, _ text: String? = nil) {
    let start = begin(kind)
    if let text { string(text) }
    end(at: start)
  }

  /// A request with its text (or none): an action with its NUL, so that the worker hands the
  /// plugin the frame's own bytes.
  package mutating func frame(_ request: WorkerFrame.Request, _ text: String?) {
    guard let action = text, request == .dispatch || request == .reduce else {
      let start = begin(request.rawValue)
      if let text { string(text) }
      return end(at: start)
    }
    // An action's frame is the hot path of a piped run: its 9 bytes of lengths and kind are
    // written at once, not appended one by one.
    var utf8Text = action
    utf8Text.withUTF8 { utf8 in
      let field = UInt64(utf8.count + 1)
      let length = 1 + 4 + field
      let head = (length & 0xFFFF_FFFF) | UInt64(request.rawValue) << 32 | (field & 0xFF_FFFF) << 40
      withUnsafeBytes(of: head.littleEndian) { bytes.append(contentsOf: $0) }
      bytes.append(UInt8(truncatingIfNeeded: field >> 24))
      bytes.append(contentsOf: utf8)
      bytes.append(0)
    }
  }
}

/// Reads the fields of one frame, in order; a frame too short for its fields reads as zeros and
/// empty strings (the peer is our own executable, so that is a bug, not an attack surface).
package struct FrameFields {
  private let bytes: ArraySlice<UInt8>
  private var offset: Int

  package init(_ bytes: ArraySlice<UInt8>) {
    self.bytes = bytes
    offset = bytes.startIndex
  }

  package mutating func byte() -> UInt8 {
    guard offset < bytes.endIndex else { return 0 }
    defer { offset += 1 }
    return bytes[offset]
  }

  package mutating func uint64(width: Int = 8) -> UInt64 {
    guard offset + width <= bytes.endIndex else {
      offset = bytes.endIndex
      return 0
    }
    var value: UInt64 = 0
    let at = offset - bytes.startIndex
    bytes.withUnsafeBytes { raw in
      withUnsafeMutableBytes(of: &value) {
        $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[at..<(at + width)]))
      }
    }
    offset += width
    return UInt64(littleEndian: value)
  }

  package mutating func int32() -> Int32 { Int32(bitPattern: UInt32(truncatingIfNeeded: uint64(width: 4))) }

  /// The next string field as a C string where it lies, when it was written with its NUL
  /// (`FrameWriter.cString`); nil, with nothing read, otherwise.
  package mutating func withCString<R>(_ body: (UnsafePointer<CChar>) -> R) -> R? {
    let fieldStart = offset
    let count = Int(uint64(width: 4))
    let end = offset + count
    guard count > 0, end <= bytes.endIndex, bytes[end - 1] == 0 else {
      offset = fieldStart
      return nil
    }
    defer { offset = end }
    return bytes[offset..<end].withUnsafeBytes { raw in
      raw.baseAddress.map { body($0.assumingMemoryBound(to: CChar.self)) }
    }
  }

  package mutating func string() -> String {
    let count = Int(uint64(width: 4))
    // Most replies' texts: the decoding's checks cost more than the rest of the reply.
    guard count > 0 else { return "" }
    let end = min(offset + count, bytes.endIndex)
    defer { offset = end }
    return String(decoding: bytes[offset..<end], as: UTF8.self)
  }
}

/// Collects bytes from a stream and cuts whole frames off its front.
package struct FrameReader {
  /// Bytes `start..<end` are unread; the rest is room for the next read.
  private var storage = [UInt8](repeating: 0, count: 65_536)
  private var start = 0
  private var end = 0

  package init() {}

  /// Reads once into the free room with `read` (given the address and room), returning its result.
  package mutating func fill(_ read: (UnsafeMutableRawPointer, Int) -> Int) -> Int {
    if start == end {
      start = 0
      end = 0
      // No room is kept for a large frame (a state) once it is read.
      if storage.count > 1 << 20 { resize(to: 65_536) }
    }
    let live = end - start
    let frameNeeds = frameRoomNeeded
    // Room for the whole frame being read at once when its length is known: doubling into it
    // would hold the old buffer and one up to twice the frame's size together. Past 64 MiB the
    // room doubles as the bytes come, so a length alone cannot make this side allocate much.
    let large = frameNeeds > 64 << 20
    if storage.count - end < 16_384 || (!large && frameNeeds > storage.count - start) {
      let doubled = live + 16_384 > storage.count ? storage.count * 2 : storage.count
      resize(to: large ? max(storage.count, min(doubled, frameNeeds)) : max(doubled, frameNeeds))
    }
    let offset = end
    let count = storage.withUnsafeMutableBytes { buffer -> Int in
      guard let base = buffer.baseAddress else { return -1 }
      return read(base + offset, buffer.count - offset)
    }
    if count > 0 { end += count }
    return count
  }

  /// Makes the buffer `size` bytes long with the unread bytes at its front. Filled by memcpy and
  /// memset, not element by element (a debug build would take seconds for a state's frame).
  private mutating func resize(to size: Int) {
    let live = end - start
    let from = start
    let old = storage
    storage = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
      guard let target = buffer.baseAddress else { return }
      old.withUnsafeBytes { bytes in
        if live > 0, let source = bytes.baseAddress { _ = memcpy(target, source + from, live) }
      }
      _ = memset(target + live, 0, size - live)
      initialized = size
    }
    start = 0
    end = live
  }

  /// Bytes from `start` the frame being read needs (its length is known once 4 bytes are in).
  private var frameRoomNeeded: Int {
    guard let length = pendingLength else { return 0 }
    return 4 + length + 16_384
  }

  private var pendingLength: Int? {
    guard end - start >= 4 else { return nil }
    return Int(storage[start]) | Int(storage[start + 1]) << 8 | Int(storage[start + 2]) << 16
      | Int(storage[start + 3]) << 24
  }

  /// Whether any unread byte is held (a whole frame or the start of one).
  package var hasBytes: Bool { end > start }

  /// Whether the frame being read says it is longer than any frame may be.
  package var isOverlong: Bool { (pendingLength ?? 0) > WorkerFrame.maxLength }

  /// Whether a whole frame is waiting.
  package var hasFrame: Bool {
    guard let length = pendingLength else { return false }
    return end - start >= 4 + length
  }

  /// The next whole frame: its kind and fields; nil when none is complete yet. Drop the fields
  /// before the next `fill` (they share its storage).
  package mutating func next() -> Frame? {
    guard let length = pendingLength, length >= 1, end - start >= 4 + length else { return nil }
    let kind = storage[start + 4]
    let fields = FrameFields(storage[(start + 5)..<(start + 4 + length)])
    start += 4 + length
    return Frame(kind: kind, fields: fields)
  }

  /// The `changed` byte of the next frame when it is a whole `done` frame (most dispatches'
  /// answer), taken without making its fields; nil for any other frame or none.
  package mutating func nextDone() -> UInt8? {
    guard end - start >= 6, storage[start + 4] == WorkerFrame.Message.done.rawValue, pendingLength == 2 else {
      return nil
    }
    let changed = storage[start + 5]
    start += 6
    return changed
  }

  /// One frame read: a struct, not a tuple (an optional tuple is destroyed through the runtime's
  /// generic witnesses, once a frame).
  package struct Frame {
    package let kind: UInt8
    package var fields: FrameFields
  }
}
