import FeatureJSON
import Foundation

/// Line 1 of a journal: which format, which feature, which host, and when.
public struct JournalHeader: Sendable, Equatable {
  /// The format this host writes and the newest it reads.
  public static let currentFormat = 1
  /// The value of the header's `journal` key, which marks a file as ours.
  public static let marker = "featurehost"

  public var format: Int
  public var feature: String
  public var featureVersion: String
  public var host: String
  /// When the journal was created, ISO-8601 in UTC (`2025-11-29T21:20:00Z`).
  public var created: String
  /// The feature's config (a compact JSON object) when the run had one; restore and replay
  /// create the instance with it.
  public var config: String?

  public init(
    feature: String, featureVersion: String, host: String = HostVersion.string,
    created: Date = Date(), config: String? = nil
  ) {
    self.format = Self.currentFormat
    self.feature = feature
    self.featureVersion = featureVersion
    self.host = host
    self.created = UTCTime.text(Int(created.timeIntervalSince1970.rounded(.down)))
    self.config = config
  }

  /// The header for a run of `plugin` with `config` (nil or "{}" for none).
  public init(plugin: LoadedPlugin, config: String? = nil, created: Date = Date()) {
    self.init(
      feature: plugin.id, featureVersion: plugin.manifest.version, created: created,
      config: config == "{}" ? nil : config)
  }

  /// The header line, `\n` included. Throws when `config` is not a JSON object.
  func encodedLine() throws(HostError) -> [UInt8] {
    var members: [String: JSONValue] = [
      "journal": .string(Self.marker), "format": .number(.int(Int64(format))),
      "feature": .string(feature), "featureVersion": .string(featureVersion),
      "host": .string(host), "created": .string(created),
    ]
    if let config {
      guard let value = try? JSONValue.parse(config), case .object = value else {
        throw HostError(JournalFailure.configNotObject(config: config))
      }
      members["config"] = value
    }
    var line: [UInt8] = []
    JSONValue.object(members).serialized(into: &line)
    line.append(UInt8(ascii: "\n"))
    return line
  }

  /// Reads the header from `line` (line 1 of the file at `path`, without its newline).
  static func parse(_ line: UnsafeRawBufferPointer, path: String) throws(HostError) -> JournalHeader {
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes: line)
    } catch {
      throw HostError(JournalFailure.headerNotJSON(path: path, detail: "\(error)"))
    }
    guard value["journal"]?.stringValue == marker else {
      throw HostError(JournalFailure.headerWithoutMarker(path: path, marker: marker))
    }
    guard let format = value["format"]?.intValue, format >= 1 else {
      throw HostError(JournalFailure.headerFormatInvalid(path: path))
    }
    guard format <= currentFormat else {
      throw HostError(
        JournalFailure.headerFormatTooNew(path: path, format: "\(format)", readable: currentFormat))
    }
    func text(_ key: String) throws(HostError) -> String {
      guard let text = value[key]?.stringValue, !text.isEmpty else {
        throw HostError(JournalFailure.headerKeyMissing(path: path, key: key))
      }
      return text
    }
    var header = JournalHeader(
      feature: try text("feature"), featureVersion: try text("featureVersion"),
      host: try text("host"))
    header.created = try text("created")
    if let config = value["config"] {
      guard case .object = config else {
        throw HostError(JournalFailure.headerConfigNotObject(path: path))
      }
      header.config = config.serialized()
    }
    return header
  }
}
