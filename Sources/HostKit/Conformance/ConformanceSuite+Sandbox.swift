import FeatureJSON

/// The sandbox a check child runs in (`host validate` applies it before the plugin loads), and
/// the refusals it heard.
public enum ConformanceSandbox {
  private static let heard = Locked<[SandboxRefusal]>([])

  /// The grant a check child is given, as the validator passes it in the environment: what the
  /// plugin's needs resolve to under the config.
  public static let grantVariable = "FEATUREHOST_VALIDATE_GRANT"

  /// The environment check children run in: `base` with the grant (`manifest`'s needs under
  /// `config`, a JSON object's text) and, as a worker has, a private folder that TMPDIR and the XDG
  /// cache, data and config homes point into; and what removes that folder once the checks ran.
  public static func childEnvironment(for manifest: Manifest, config: String, base: [String: String])
    -> (environment: [String: String], removeFolder: () -> Void)
  {
    let object = (try? JSONValue.parse(config))?.objectValue ?? [:]
    let grants = manifest.needs.grants(config: object, environment: base)
    SandboxWarnings.missingWrites(grants.writePaths, feature: manifest.id)
    let scratch = WorkerScratch.make()
    var environment = scratch?.environment(base) ?? base
    environment[grantVariable] = JSONValue.object([
      "read": .array(grants.readPaths.map(JSONValue.string)),
      "write": .array((grants.writePaths + (scratch.map { [$0.path] } ?? [])).map(JSONValue.string)),
      "connect": .array(grants.connectPorts.map { JSONValue(integerLiteral: Int64($0)) }),
    ]).serialized()
    return (environment, { scratch?.remove() })
  }

  /// Sandboxes this process for checking the plugin at `pluginPath` with the grant `text` (nil:
  /// none), recording what it refuses for the `sandbox` check.
  public static func apply(grant text: String?, pluginPath: String) throws(HostError) {
    let object = text.flatMap { try? JSONValue.parse($0) }?.objectValue ?? [:]
    let paths = { (key: String) in object[key]?.arrayValue?.compactMap(\.stringValue) ?? [] }
    let ports = object["connect"]?.arrayValue?.compactMap { $0.intValue.flatMap { UInt16(exactly: $0) } } ?? []
    let policy = SandboxPolicy(
      readPaths: Sandbox.systemReadPaths(pluginPath: pluginPath, network: !ports.isEmpty) + paths("read"),
      writePaths: paths("write"), connectPorts: ports, maxMemory: SandboxSettings.defaultMaxMemory,
      noteDescriptor: -1)
    _ = try Sandbox.apply(policy) { refusal in heard.withLock { $0.append(refusal) } }
  }

  static var refusals: [SandboxRefusal] { heard.withLock { $0 } }
}

extension ConformanceSuite {
  /// Walks the catalogue as `catalogue` does (its own failures are that check's), then fails for
  /// anything the sandbox refused meanwhile, naming it and the manifest field that allows it.
  static func checkSandbox(_ run: ConformanceRun) throws(CheckFailure) {
    do throws(CheckFailure) {
      try checkCatalogue(run)
    } catch {
      // Judged by the catalogue check; this one looks only at what was refused.
    }
    var said = Set<String>()
    let lines = ConformanceSandbox.refusals.compactMap { refusal -> String? in
      let line =
        refusal.sentence(feature: "it")
        + (refusal.needField.map { "; declare it in the manifest's \($0)" } ?? "; no plugin may")
      return said.insert(line).inserted ? line : nil
    }
    guard lines.isEmpty else { throw CheckFailure(lines.prefix(3).joined(separator: "; and ")) }
  }
}
