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
    self.created = created.formatted(.iso8601)
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
        throw HostError(
          "the config \(config) is not a JSON object",
          help: "pass the config as a JSON object, e.g. {\"interval\":0}")
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
    let help =
      "pass a journal written by 'host run --session'; its first line is a header like "
      + #"{"feature":"counter",...,"format":1,"journal":"featurehost"}"#
    let value: JSONValue
    do {
      value = try JSONValue.parse(bytes: line)
    } catch {
      throw HostError(
        "'\(path)' is not a FeatureHost journal: line 1 is not JSON (\(error))", help: help)
    }
    guard value["journal"]?.stringValue == marker else {
      throw HostError(
        "'\(path)' is not a FeatureHost journal: line 1 has no \"journal\":\"featurehost\" header",
        help: help)
    }
    guard let format = value["format"]?.intValue, format >= 1 else {
      throw HostError(
        "journal '\(path)' line 1: the header has no valid \"format\" (1 or newer)", help: help)
    }
    guard format <= currentFormat else {
      throw HostError(
        "journal '\(path)' line 1: format \(format) is newer than this host reads (\(currentFormat))",
        help: "open it with a newer host; this one is \(HostVersion.string)")
    }
    func text(_ key: String) throws(HostError) -> String {
      guard let text = value[key]?.stringValue, !text.isEmpty else {
        throw HostError(
          "journal '\(path)' line 1: the header has no \"\(key)\" (a non-empty string)", help: help)
      }
      return text
    }
    var header = JournalHeader(
      feature: try text("feature"), featureVersion: try text("featureVersion"),
      host: try text("host"))
    header.created = try text("created")
    if let config = value["config"] {
      guard case .object = config else {
        throw HostError(
          "journal '\(path)' line 1: the header's \"config\" is not a JSON object", help: help)
      }
      header.config = config.serialized()
    }
    return header
  }
}
