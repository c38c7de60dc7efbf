import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// A record line as the reader found it: its kind, its seq and where its JSON payload is.
struct ScannedLine {
  enum Kind: Equatable {
    case action(ActionSource)
    case snapshot
    case travel(TravelKind, to: Int?)
    /// A crash line; its payload is empty (rare lines: parsed in full when read).
    case crash(call: String, action: String?, loss: String)
    /// A reload line; its payload is empty.
    case reload(JournalReload)
    /// A refusal line; its payload is empty (rare lines: parsed in full when read).
    case refusal(source: ActionSource, action: String, error: String)
  }

  enum Payload {
    /// The payload's bytes within the line (the writer's layout): not yet checked as JSON.
    case bytes(Range<Int>)
    /// The compact payload of a line in another layout: already parsed.
    case text(String)
  }

  var kind: Kind
  var seq: Int
  /// The action or the state.
  var payload: Payload
  /// An action's time (`"at"`, milliseconds since the header's `created`); nil when the line has none.
  var at: Int? = nil
}

/// The bytes the journal's syntax is made of.
enum JournalByte {
  static let newline = UInt8(ascii: "\n")
  static let quote = UInt8(ascii: "\"")
  static let openBrace = UInt8(ascii: "{")
  static let closeBrace = UInt8(ascii: "}")
  static let asciiZero = UInt8(ascii: "0")
  static let asciiNine = UInt8(ascii: "9")
}

/// Why a line is not a record, without the file and line number the caller adds.
struct LineProblem: Error {
  var message: String
}

/// Recognizes record lines. `scanFast` reads the writer's own layout from the line's ends without
/// parsing the payload, so checking a million lines costs little; any other layout goes through
/// `scanParsed`, a full parse.
enum JournalLineScanner {
  static func scan(_ line: UnsafeBufferPointer<UInt8>) throws(LineProblem) -> ScannedLine {
    if let scanned = scanFast(line) { return scanned }
    return try scanParsed(line)
  }

  /// The text of a payload, checked as a JSON object when it has not been parsed yet.
  static func payloadText(
    _ payload: ScannedLine.Payload, in line: UnsafeBufferPointer<UInt8>, what: String
  ) throws(LineProblem) -> String {
    switch payload {
    case .text(let text):
      return text
    case .bytes(let range):
      let bytes = UnsafeBufferPointer(rebasing: line[range])
      do {
        try JSONValue.validate(bytes: UnsafeRawBufferPointer(bytes))
      } catch {
        throw LineProblem(message: "has \(what) that is not JSON (\(error))")
      }
      return String(decoding: bytes, as: UTF8.self)
    }
  }

  // MARK: - The writer's layout

  static func scanFast(_ line: UnsafeBufferPointer<UInt8>) -> ScannedLine? {
    guard line.count > 8, line[line.count - 1] == JournalByte.closeBrace else { return nil }
    if matches(line, at: 0, #"{"action":"#) { return scanActionFast(line) }
    if matches(line, at: 0, #"{"seq":"#) { return scanStateFast(line) }
    return nil
  }

  /// `{"action":A,"at":T,"seq":S,"source":"SRC"}` (`at` absent in older journals), read from the
  /// end so that A needs no parsing.
  private static func scanActionFast(_ line: UnsafeBufferPointer<UInt8>) -> ScannedLine? {
    let count = line.count
    guard line[count - 2] == JournalByte.quote else { return nil }
    let sourceEnd = count - 2
    var sourceStart = sourceEnd
    while sourceStart > 0, isLowercaseLetter(line[sourceStart - 1]) { sourceStart -= 1 }
    let sourceKey: StaticString = #","source":""#
    let sourceKeyStart = sourceStart - sourceKey.utf8CodeUnitCount
    guard let source = actionSource(line, sourceStart..<sourceEnd), sourceKeyStart > 0,
      matches(line, at: sourceKeyStart, sourceKey),
      let (seq, digitsStart) = digitsBackward(line, endingAt: sourceKeyStart)
    else { return nil }
    let seqKey: StaticString = #","seq":"#
    let payloadStart = (#"{"action":"# as StaticString).utf8CodeUnitCount
    var payloadEnd = digitsStart - seqKey.utf8CodeUnitCount
    guard payloadEnd > payloadStart, matches(line, at: payloadEnd, seqKey) else { return nil }
    var at: Int?
    if isDigit(line[payloadEnd - 1]) {
      // A time out of range is left to the full parse, which words the error.
      let atKey: StaticString = #","at":"#
      guard let (time, timeStart) = digitsBackward(line, endingAt: payloadEnd), time <= ActionTime.maximum,
        matches(line, at: timeStart - atKey.utf8CodeUnitCount, atKey)
      else { return nil }
      at = time
      payloadEnd = timeStart - atKey.utf8CodeUnitCount
    }
    guard payloadEnd >= payloadStart + 2, line[payloadStart] == JournalByte.openBrace,
      line[payloadEnd - 1] == JournalByte.closeBrace
    else { return nil }
    return ScannedLine(kind: .action(source), seq: seq, payload: .bytes(payloadStart..<payloadEnd), at: at)
  }

  /// `{"seq":S,"state":X}` or `{"seq":S,"state":X,"to":T,"travel":"K"}` (no `to` for load).
  private static func scanStateFast(_ line: UnsafeBufferPointer<UInt8>) -> ScannedLine? {
    let count = line.count
    let stateKey: StaticString = #","state":"#
    guard
      let (seq, digitsEnd) = digitsForward(
        line, from: (#"{"seq":"# as StaticString).utf8CodeUnitCount),
      matches(line, at: digitsEnd, stateKey)
    else { return nil }
    let stateStart = digitsEnd + stateKey.utf8CodeUnitCount
    guard stateStart < count - 2, line[stateStart] == JournalByte.openBrace else { return nil }
    if line[count - 2] == JournalByte.closeBrace {
      return ScannedLine(kind: .snapshot, seq: seq, payload: .bytes(stateStart..<count - 1))
    }
    guard line[count - 2] == JournalByte.quote else { return nil }
    let kindStart = count - 2 - 4
    let travelKey: StaticString = #","travel":""#
    let travelKeyStart = kindStart - travelKey.utf8CodeUnitCount
    guard travelKeyStart > stateStart, let kind = travelKind(line, at: kindStart),
      matches(line, at: travelKeyStart, travelKey)
    else { return nil }
    var stateEnd = travelKeyStart
    var to: Int?
    if kind != .load {
      let toKey: StaticString = #","to":"#
      guard let (target, toDigitsStart) = digitsBackward(line, endingAt: travelKeyStart),
        toDigitsStart - toKey.utf8CodeUnitCount > stateStart,
        matches(line, at: toDigitsStart - toKey.utf8CodeUnitCount, toKey)
      else { return nil }
      to = target
      stateEnd = toDigitsStart - toKey.utf8CodeUnitCount
    }
    guard stateEnd >= stateStart + 2, line[stateEnd - 1] == JournalByte.closeBrace else {
      return nil
    }
    return ScannedLine(
      kind: .travel(kind, to: to), seq: seq, payload: .bytes(stateStart..<stateEnd))
  }

  private static func matches(
    _ line: UnsafeBufferPointer<UInt8>, at offset: Int, _ literal: StaticString
  ) -> Bool {
    let length = literal.utf8CodeUnitCount
    guard offset >= 0, offset + length <= line.count, let base = line.baseAddress else {
      return false
    }
    return memcmp(base + offset, literal.utf8Start, length) == 0
  }

  private static func isLowercaseLetter(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= JournalByte.asciiZero && byte <= JournalByte.asciiNine
  }

  /// The whole number whose digits end just before `end`, and where they start. JSON's rules:
  /// no leading zero; at most 18 digits so it fits an Int.
  private static func digitsBackward(_ line: UnsafeBufferPointer<UInt8>, endingAt end: Int) -> (
    Int, Int
  )? {
    var start = end
    while start > 0, isDigit(line[start - 1]) { start -= 1 }
    guard let value = number(line, start..<end) else { return nil }
    return (value, start)
  }

  private static func digitsForward(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> (
    Int, Int
  )? {
    var end = start
    while end < line.count, isDigit(line[end]) { end += 1 }
    guard let value = number(line, start..<end) else { return nil }
    return (value, end)
  }

  private static func number(_ line: UnsafeBufferPointer<UInt8>, _ digits: Range<Int>) -> Int? {
    guard !digits.isEmpty, digits.count <= 18,
      digits.count == 1 || line[digits.lowerBound] != JournalByte.asciiZero
    else {
      return nil
    }
    var value = 0
    for index in digits { value = value * 10 + Int(line[index] &- JournalByte.asciiZero) }
    return value
  }

  /// The source named by `range`; the five names have five different lengths.
  private static func actionSource(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
    -> ActionSource?
  {
    let source: ActionSource
    switch range.count {
    case 4: source = .user
    case 6: source = .effect
    case 8: source = .feedback
    case 9: source = .lifecycle
    case 10: source = .navigation
    default: return nil
    }
    return source.rawValue.utf8.elementsEqual(line[range]) ? source : nil
  }

  private static func travelKind(_ line: UnsafeBufferPointer<UInt8>, at start: Int) -> TravelKind? {
    guard start >= 0 else { return nil }
    let name = line[start..<start + 4]
    return TravelKind.allCases.first { $0.rawValue.utf8.elementsEqual(name) }
  }

  // MARK: - Any other layout

  static func scanParsed(_ line: UnsafeBufferPointer<UInt8>) throws(LineProblem) -> ScannedLine {
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes: UnsafeRawBufferPointer(line))
    } catch {
      throw LineProblem(message: "is not JSON (\(error))")
    }
    guard case .object(let members) = value else {
      throw LineProblem(message: "is not a journal record (a JSON object)")
    }
    guard let seq = members["seq"]?.intValue, seq >= 0 else {
      throw LineProblem(
        message: "is not a journal record: it has no \"seq\" (a whole number, 0 or more)")
    }
    if let loss = members["crash"] {
      return try scanCrash(members, seq: Int(seq), loss: loss)
    }
    if let feature = members["reload"] {
      guard let feature = feature.stringValue, let from = JournalReload.Build(json: members["from"]),
        let to = JournalReload.Build(json: members["to"])
      else {
        throw LineProblem(
          message: "is not a journal record: a reload needs \"reload\" (the feature), \"from\" and \"to\" "
            + "(each with \"version\" and \"hash\")")
      }
      let reload = JournalReload(seq: Int(seq), feature: feature, from: from, to: to)
      return ScannedLine(kind: .reload(reload), seq: Int(seq), payload: .text(""))
    }
    if let refused = members["refused"] {
      return try scanRefusal(members, seq: Int(seq), refused: refused)
    }
    if let action = members["action"] {
      guard case .object = action else {
        throw LineProblem(message: "is not a journal record: its \"action\" is not a JSON object")
      }
      guard let name = members["source"]?.stringValue, let source = ActionSource(rawValue: name)
      else {
        throw LineProblem(
          message:
            "is not a journal record: it has no \"source\" (user, effect, feedback, lifecycle or navigation)"
        )
      }
      return ScannedLine(
        kind: .action(source), seq: Int(seq), payload: .text(action.serialized()), at: try actionTime(members["at"]))
    }
    guard let state = members["state"] else {
      throw LineProblem(message: "is not a journal record: it has neither \"action\" nor \"state\"")
    }
    guard case .object = state else {
      throw LineProblem(message: "is not a journal record: its \"state\" is not a JSON object")
    }
    guard let travel = members["travel"] else {
      return ScannedLine(kind: .snapshot, seq: Int(seq), payload: .text(state.serialized()))
    }
    guard let kind = travel.stringValue.flatMap(TravelKind.init(rawValue:)) else {
      throw LineProblem(
        message: "is not a journal record: its \"travel\" is not undo, redo, goto or load")
    }
    let to = members["to"]?.intValue
    if kind == .load {
      guard members["to"] == nil else {
        throw LineProblem(message: "is not a journal record: a load travel has no \"to\"")
      }
    } else {
      guard let to, to >= 0 else {
        throw LineProblem(
          message: "is not a journal record: its travel has no \"to\" (the seq travelled to)")
      }
    }
    return ScannedLine(
      kind: .travel(kind, to: to.map { Int($0) }), seq: Int(seq), payload: .text(state.serialized())
    )
  }

  /// `{"at":T,"error":E,"refused":A,"seq":S,"source":SRC}`, `at` optional; A an object, or a string
  /// when what was sent was not JSON.
  private static func scanRefusal(_ members: [String: JSONValue], seq: Int, refused: JSONValue) throws(LineProblem)
    -> ScannedLine
  {
    let action: String
    switch refused {
    case .object(let object): action = JSONValue.object(object).serialized()
    case .string(let text): action = text
    default:
      throw LineProblem(message: "is not a journal record: its \"refused\" is neither a JSON object nor a text")
    }
    guard let error = members["error"]?.stringValue else {
      throw LineProblem(message: "is not a journal record: a refusal has no \"error\" (what the feature said)")
    }
    guard let name = members["source"]?.stringValue, let source = ActionSource(rawValue: name) else {
      throw LineProblem(
        message:
          "is not a journal record: a refusal has no \"source\" (user, effect, feedback, lifecycle or navigation)")
    }
    return ScannedLine(
      kind: .refusal(source: source, action: action, error: error), seq: seq, payload: .text(""),
      at: try actionTime(members["at"]))
  }

  /// An action line's `"at"`: nil when absent; anything but a whole number from 0 to
  /// `ActionTime.maximum` is not a time, and the line is refused naming it.
  private static func actionTime(_ value: JSONValue?) throws(LineProblem) -> Int? {
    guard let value else { return nil }
    guard let time = value.intValue, time >= 0, time <= ActionTime.maximum else {
      var text = value.serialized()
      if text.count > 40 { text = String(text.prefix(40)) + "..." }
      throw LineProblem(
        message: "has \"at\": \(text), which is not a time (a whole number of milliseconds since the header's "
          + "\"created\", 0 to \(ActionTime.maximum)): correct it or remove the key")
    }
    return Int(time)
  }

  /// `{"applying":A,"call":C,"crash":L,"seq":S}`, `applying` optional (an object, or a string when
  /// what was sent was not JSON).
  private static func scanCrash(_ members: [String: JSONValue], seq: Int, loss: JSONValue) throws(LineProblem)
    -> ScannedLine
  {
    guard let loss = loss.stringValue, !loss.isEmpty else {
      throw LineProblem(message: "is not a journal record: its \"crash\" is not a text (how the instance was lost)")
    }
    // Empty: the instance was lost between calls.
    guard let call = members["call"]?.stringValue else {
      throw LineProblem(message: "is not a journal record: a crash has no \"call\" (the call that lost the instance)")
    }
    let action: String?
    switch members["applying"] {
    case nil: action = nil
    case .object(let object): action = JSONValue.object(object).serialized()
    case .string(let text): action = text
    default:
      throw LineProblem(message: "is not a journal record: a crash's \"applying\" is neither a JSON object nor a text")
    }
    return ScannedLine(kind: .crash(call: call, action: action, loss: loss), seq: seq, payload: .text(""))
  }
}
