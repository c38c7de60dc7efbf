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
  public func string(_ key: String, environment: String? = nil) -> String? {
    if let value = values[key]?.stringValue { return value }
    guard let name = environment, let raw = getenv(name) else { return nil }
    return String(cString: raw)
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
