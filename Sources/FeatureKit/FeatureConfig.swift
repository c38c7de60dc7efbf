import FeatureJSON

#if canImport(Glibc)
  import Glibc
#endif

/// The settings an instance is created with: the config JSON object, then the environment.
public struct FeatureConfig: Sendable {
  /// The config object as the host passed it (`{}` when none was given).
  public let values: [String: JSONValue]

  public init(values: [String: JSONValue] = [:]) { self.values = values }

  /// A string setting from the config, else from the environment variable `environment`.
  /// Throws naming the setting when it is present but not a string.
  public func string(_ key: String, environment: String? = nil) throws -> String? {
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
