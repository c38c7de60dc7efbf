import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The settings an instance is created with: the config JSON object, then the environment.
///
/// It remembers which settings the feature read (through `value`, `string`, `number`,
/// `integer`): once the feature is built, FeatureKit refuses a config naming any other setting
/// with FH_ERR_BAD_CONFIG, naming it and the ones the feature reads (feature_abi.h, create).
public struct FeatureConfig: Sendable {
  /// The config object as the host passed it (`{}` when none was given). Reading it directly
  /// does not count as reading a setting: use `value(_:)`.
  public let values: [String: JSONValue]

  /// The settings asked for so far, shared by the copies of this config.
  private let asked = AskedSettings()

  public init(values: [String: JSONValue] = [:]) { self.values = values }

  /// The raw value of a setting, or nil when the config does not give it.
  public func value(_ key: String) -> JSONValue? {
    asked.note(key)
    return values[key]
  }

  /// Why this config cannot be used, or nil: the first setting the feature never asked for
  /// (in sorted order), with the ones it did ask for.
  public func unknownSettingProblem(feature: String) -> String? {
    let known = asked.keys
    guard let unknown = values.keys.sorted().first(where: { !known.contains($0) }) else { return nil }
    let reads =
      known.isEmpty ? "\(feature) reads no settings" : "\(feature) reads " + known.sorted().joined(separator: ", ")
    return "unknown setting '\(unknown)'; \(reads)"
  }

  /// A string setting from the config, else from the environment variable `environment`.
  /// Throws naming the setting when it is present but not a string.
  public func string(_ key: String, environment: String? = nil) throws -> String? {
    asked.note(key)
    if let value = values[key] {
      guard let string = value.stringValue else {
        throw FeatureError("config '\(key)' must be a string, got \(value.serialized())")
      }
      return string
    }
    guard let name = environment, let raw = getenv(name) else { return nil }
    return String(cString: raw)
  }

  /// A number setting (integer or not) from the config, else from the environment variable
  /// `environment`. Throws naming the setting when it is present but not a number.
  public func number(_ key: String, environment: String? = nil) throws -> Double? {
    asked.note(key)
    if let value = values[key] {
      if let number = value.doubleValue ?? value.stringValue.flatMap(Double.init), number.isFinite { return number }
      throw FeatureError("config '\(key)' must be a number, got \(value.serialized())")
    }
    guard let name = environment, let raw = getenv(name) else { return nil }
    let text = String(cString: raw)
    guard let number = Double(text), number.isFinite else {
      throw FeatureError("environment \(name)='\(text)' must be a number")
    }
    return number
  }

  /// An integer setting from the config, else from the environment variable `environment`.
  /// Throws naming the setting when it is present but not an integer.
  public func integer(_ key: String, environment: String? = nil) throws -> Int? {
    asked.note(key)
    if let value = values[key] {
      if let int = value.intValue { return Int(int) }
      if let text = value.stringValue, let int = Int(text) { return int }
      throw FeatureError("config '\(key)' must be an integer, got \(value.serialized())")
    }
    guard let name = environment, let raw = getenv(name) else { return nil }
    let text = String(cString: raw)
    guard let int = Int(text) else {
      throw FeatureError("environment \(name)='\(text)' must be an integer")
    }
    return int
  }
}

/// The setting names a config was asked for. A class, so every copy of a config shares it.
private final class AskedSettings: Sendable {
  private let names = Locked<Set<String>>([])

  func note(_ key: String) { names.withLock { _ = $0.insert(key) } }

  var keys: Set<String> { names.withLock { $0 } }
}
