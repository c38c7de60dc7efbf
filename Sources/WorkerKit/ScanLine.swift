import FeatureJSON

/// One line of a scanner child's report to its host (`ScannerProcess`), on `descriptor`: a
/// `phase` line before each phase of the load, then one `answer`.
public enum ScanLine: Sendable, Equatable {
  /// The descriptor the child reports on.
  public static let descriptor: Int32 = 3

  /// The load is entering this phase: where the child was if it dies now.
  case phase(PluginLoader.Phase)
  /// What the child found.
  case answer(PluginScan)
  /// The sandbox stopped the child (its death note, written on the same descriptor).
  case stopped(InstanceLoss)

  public var text: String {
    switch self {
    case .phase(let phase): "phase \(phase.rawValue)"
    case .answer(let scan): "answer \(scan.json.serialized())"
    case .stopped(let loss): "\(loss)"
    }
  }

  public init?(parsing line: Substring) {
    if let loss = SandboxNotes.loss(note: String(line)) {
      self = .stopped(loss)
    } else if line.hasPrefix("phase "), let phase = PluginLoader.Phase(rawValue: String(line.dropFirst(6))) {
      self = .phase(phase)
    } else if line.hasPrefix("answer "), let json = try? JSONValue.parse(String(line.dropFirst(7))),
      let scan = PluginScan(json: json)
    {
      self = .answer(scan)
    } else {
      return nil
    }
  }
}
