import FeatureJSON
import HostKit

/// The state a test expects, compared with the plugin's snapshot by JSON value (member order,
/// spacing and `1` versus `1.0` do not matter):
///
///     #"{"clicks":1,"count":1}"#        JSON text
///     ["clicks": 1, "count": 1]         a JSON object literal
///     .encoding(CounterFeature.State(count: 1, clicks: 1))   a Codable state, encoded
public struct ExpectedState: Sendable, ExpressibleByStringInterpolation, ExpressibleByDictionaryLiteral {
  /// The expected value, or why the expectation itself is broken.
  let value: Result<JSONValue, ExpectationError>

  public init(stringLiteral text: String) { value = Self.parse(text) }

  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    value = .success(.object(Dictionary(elements, uniquingKeysWith: { _, last in last })))
  }

  init(value: Result<JSONValue, ExpectationError>) { self.value = value }

  /// JSON text.
  public static func json(_ text: String) -> ExpectedState { ExpectedState(value: parse(text)) }

  /// A JSON value.
  public static func value(_ value: JSONValue) -> ExpectedState { ExpectedState(value: .success(value)) }

  /// A Codable state, encoded the way FeatureKit snapshots it.
  public static func encoding(_ state: some Encodable) -> ExpectedState {
    do {
      return ExpectedState(value: .success(try JSONValueEncoder().encode(state)))
    } catch {
      return ExpectedState(value: .failure(ExpectationError("cannot encode the expected state \(state): \(error)")))
    }
  }

  private static func parse(_ text: String) -> Result<JSONValue, ExpectationError> {
    do {
      return .success(try JSONValue.parse(text))
    } catch {
      return .failure(ExpectationError("the expected state is not valid JSON: \(error)"))
    }
  }
}

/// An expected action: what a `receive` must match.
///
///     "pageLoaded"                              only its `type`
///     #"{"type":"pageLoaded","offset":0}"#       exactly this JSON (by value)
///     ["type": "increaseLeft"]                  exactly this object
///     .encoding(Action.pageLoaded(offset: 0, urls: urls))   a Codable action enum, encoded
public struct ExpectedAction: Sendable, ExpressibleByStringInterpolation, ExpressibleByDictionaryLiteral {
  enum Match: Sendable {
    case type(String)
    case exactly(JSONValue)
    case invalid(ExpectationError)
  }

  let match: Match

  /// A JSON object when `text` starts with `{`; otherwise just an action type.
  public init(stringLiteral text: String) {
    guard text.trimmingWhitespace().hasPrefix("{") else {
      match = .type(text)
      return
    }
    do {
      match = .exactly(try JSONValue.parse(text))
    } catch {
      match = .invalid(ExpectationError("the expected action is not valid JSON: \(error)"))
    }
  }

  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    match = .exactly(.object(Dictionary(elements, uniquingKeysWith: { _, last in last })))
  }

  init(match: Match) { self.match = match }

  /// Any action of this type, whatever its other members.
  public static func type(_ type: String) -> ExpectedAction { ExpectedAction(match: .type(type)) }

  /// Exactly this JSON value.
  public static func value(_ value: JSONValue) -> ExpectedAction { ExpectedAction(match: .exactly(value)) }

  /// A Codable action enum, encoded in the flat tagged shape the plugin emits.
  public static func encoding(_ action: some Encodable) -> ExpectedAction {
    do {
      return ExpectedAction(match: .exactly(try JSONValueEncoder().encodeTagged(action)))
    } catch {
      return ExpectedAction(match: .invalid(ExpectationError("cannot encode the expected action \(action): \(error)")))
    }
  }

  /// Whether `action` (the JSON text the plugin emitted) matches; `key` names the member a bare
  /// name is compared with (`type` for actions, `step` for navigation steps).
  func matches(_ action: String, key: String = "type") -> Bool {
    let actual = try? JSONValue.parse(action)
    switch match {
    case .type(let type): return actual?[key]?.stringValue == type
    case .exactly(let value): return actual.map { JSONComparison.equal($0, value) } ?? false
    case .invalid: return false
    }
  }

  var label: String {
    switch match {
    case .type(let type): "an action of type '\(type)'"
    case .exactly(let value): value.serialized()
    case .invalid(let error): error.message
    }
  }

  /// How a failure message names an expected navigation step.
  var stepLabel: String {
    switch match {
    case .type(let name): "a step '\(name)'"
    case .exactly(let value): value.serialized()
    case .invalid(let error): error.message
    }
  }
}

/// A test's own expectation is malformed (bad JSON text, a value that does not encode).
struct ExpectationError: Error, Sendable {
  let message: String
  init(_ message: String) { self.message = message }
}
