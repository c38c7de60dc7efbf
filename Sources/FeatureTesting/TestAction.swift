import FeatureJSON
import HostKit

/// An action a test sends, written the way a person types it or as JSON:
///
///     "increment"                      a typed line, parsed against the plugin's catalogue
///     "set left=3 right=9"             (as `host run` parses it)
///     #"{"type":"increment"}"#          JSON text, sent byte for byte (malformed JSON too)
///     ["type": "set", "left": 3]       a JSON object literal
///     .encoding(Action.set(left: 3, right: 9))   a Codable action enum, in the flat tagged shape
public struct TestAction: Sendable, ExpressibleByStringInterpolation, ExpressibleByDictionaryLiteral {
  enum Form: Sendable {
    /// A typed line, or JSON text when it starts with `{`.
    case text(String)
    /// Sent exactly as given.
    case verbatim(String)
    case value(JSONValue)
    /// The action could not be built; the message says why.
    case invalid(String)
  }

  let form: Form

  public init(stringLiteral text: String) { form = .text(text) }

  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    form = .value(.object(Dictionary(elements, uniquingKeysWith: { _, last in last })))
  }

  init(form: Form) { self.form = form }

  /// A typed line (`set left=3 right=9`) or JSON text starting with `{`.
  public static func line(_ text: String) -> TestAction { TestAction(form: .text(text)) }

  /// Exactly these bytes, whatever they are: to test how a plugin refuses bad input.
  public static func json(_ text: String) -> TestAction { TestAction(form: .verbatim(text)) }

  /// A JSON value (an object with a string `type`, for a valid action).
  public static func value(_ value: JSONValue) -> TestAction { TestAction(form: .value(value)) }

  /// A Codable action enum, encoded as the plugin receives it: `{"type": "set", "left": 3, ...}`.
  public static func encoding(_ action: some Encodable) -> TestAction {
    do {
      return TestAction(form: .value(try JSONValueEncoder().encodeTagged(action)))
    } catch {
      return TestAction(form: .invalid("cannot encode \(action) as a tagged action: \(error)"))
    }
  }

  /// The JSON text to send, or why there is none.
  func json(manifest: Manifest) -> Result<String, HostError> {
    switch form {
    case .verbatim(let text):
      return .success(text)
    case .value(let value):
      return .success(value.serialized())
    case .invalid(let message):
      return .failure(HostError(message))
    case .text(let text):
      // JSON text goes as written, so a test can send malformed JSON on purpose.
      if text.trimmingWhitespace().hasPrefix("{") { return .success(text) }
      do {
        return .success(try ActionLine.parse(text, manifest: manifest))
      } catch {
        return .failure(error)
      }
    }
  }

  /// How a failure message names the action before it is resolved.
  var label: String {
    switch form {
    case .text(let text), .verbatim(let text): text
    case .value(let value): value.serialized()
    case .invalid(let message): message
    }
  }
}
