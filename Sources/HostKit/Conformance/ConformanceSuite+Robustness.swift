import FeatureABI
import FeatureJSON
import Foundation

extension ConformanceSuite {
  /// Values of the right kind for `argument`, spread wide so out-of-range ones are among them:
  /// what a reducer must refuse without applying.
  static func spread(for argument: ArgumentSpec) -> [JSONValue] {
    let numbers = ActionSamples.numbers(in: argument.help)
    let around = numbers.flatMap { [$0 - 1, $0, $0 + 1] }
    var values: [JSONValue]
    switch argument.kind {
    case .integer:
      values = ([-1_000_000, -100, -1, 0, 1, 2, 9, 10, 100, 1_000_000] + around.compactMap { Int64(exactly: $0) }).map {
        .number(.int($0))
      }
    case .number:
      values = ([-1_000_000, -1, -0.5, 0, 0.5, 1, 10, 1e9] + around).map { .number(.double($0)) }
    case .string:
      values =
        (["", " ", "sample", "zz-unknown", String(repeating: "x", count: 300)] + ActionSamples.words(in: argument.help))
        .map { .string($0) }
    case .boolean:
      values = [true, false]
    }
    var seen = Set<JSONValue>()
    return values.filter { seen.insert($0).inserted }
  }

  /// `refused-arguments`: each argument of each catalogued action takes a wide spread of values of
  /// its kind (the others typical); every value refused must leave the state exactly as it was.
  /// The instance is settled after `created` only.
  static func checkRefusedArguments(_ run: ConformanceRun) throws(CheckFailure) {
    let catalogue = try run.catalogue()
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    try run.settle(instance, after: "created")
    for action in catalogue where !action.arguments.isEmpty {
      var typical: [String: JSONValue] = ["type": .string(action.type)]
      for argument in action.arguments { typical[argument.name] = ActionSamples.values(for: argument)[0] }
      for argument in action.arguments {
        for value in spread(for: argument) {
          var object = typical
          object[argument.name] = value
          let text = JSONValue.object(object).serialized()
          run.progress("dispatch \(text)")
          let before = try CatalogueWalk.state(of: instance, after: "created")
          let result = instance.dispatch(text)
          // Not settled: what effects emit stays queued, so only these calls change the state
          // (and a value accepted that starts a long convergence costs nothing here).
          if result.isOK { continue }
          // Messages are bad-actions' to judge; this check is about the state.
          try expectRefusal(
            result, of: ConformanceText.quote(text), by: "dispatch", want: fh_status(FH_ERR_BAD_ACTION), on: instance,
            stateBefore: before, requireMessage: false)
        }
      }
    }
  }

  /// How deep the `deep-nesting` inputs nest: far past the stack of a recursive reader (a
  /// frame of even 64 bytes per level needs 12 MB; threads get 8 MB).
  static let nestingDepth = 200_000

  /// `[[[...]]]` or `{"a":{"a":...}}`, `depth` deep.
  static func nested(objects: Bool, depth: Int = nestingDepth) -> [UInt8] {
    let text =
      objects
      ? String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
      : String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    return Array(text.utf8)
  }

  /// `deep-nesting`: a deeply nested value inside a valid-looking state (in place of its first
  /// member) and inside a config is refused with FH_ERR_BAD_STATE and FH_ERR_BAD_CONFIG, never a
  /// crash. (Actions nested as deep are among `bad-actions`' inputs.)
  static func checkDeepNesting(_ run: ConformanceRun) throws(CheckFailure) {
    let instance = try run.startedInstance()
    defer { instance.destroy() }
    let state = try CatalogueWalk.state(of: instance, after: "created")
    let object = String(validating: state, as: UTF8.self).flatMap { try? JSONValue.parse($0) }?.objectValue ?? [:]
    let member = object.keys.sorted().first ?? "nested"
    for objects in [false, true] {
      let deep = nested(objects: objects)
      let kind = objects ? "objects" : "arrays"
      // The state with its first member replaced: the other members stay valid.
      var others = object
      others[member] = nil
      let rest = others.isEmpty ? "" : "," + String(JSONValue.object(others).serialized().dropFirst().dropLast())
      let badState = Array(#"{"\#(member)":"#.utf8) + deep + Array((rest + "}").utf8)
      run.progress("restore with '\(member)' nested \(nestingDepth) \(kind) deep")
      try expectRefusal(
        instance.restore(bytes: badState), of: "a state whose '\(member)' nests \(nestingDepth) \(kind)",
        by: "restore", want: fh_status(FH_ERR_BAD_STATE), on: instance, stateBefore: state)
      let config = String(decoding: Array(#"{"nested":"#.utf8) + deep + Array("}".utf8), as: UTF8.self)
      run.progress("create with a config nested \(nestingDepth) \(kind) deep")
      let created = try run.probeCreate(config: config)
      guard created.status == fh_status(FH_ERR_BAD_CONFIG) else {
        throw CheckFailure(
          "create with a config nesting \(nestingDepth) \(kind) returned \(created.described), want FH_ERR_BAD_CONFIG")
      }
    }
  }

  /// `effect-accounting`: along a catalogue walk (and a short watch after it), every emit made
  /// outside a dispatch call comes while an effect is in flight, and effect_ended never comes
  /// without one.
  static func checkEffectAccounting(_ run: ConformanceRun) throws(CheckFailure) {
    let (instance, samples) = try run.settledInstanceWithSamples()
    defer { instance.destroy() }
    for candidates in samples {
      for candidate in candidates {
        run.progress("dispatch \(candidate)")
        guard instance.dispatch(candidate).isOK else { continue }
        try run.settle(instance, after: candidate)
        if let breach = instance.recorder.accountingErrors.first {
          throw CheckFailure("after \(candidate) the plugin called \(breach)")
        }
        break
      }
    }
    run.progress("watching for emits after the walk")
    let window = Date(timeIntervalSinceNow: run.settings.observationWindow)
    if let breach = instance.recorder.accountingErrors(waitingUntil: window).first {
      throw CheckFailure("the plugin called \(breach)")
    }
  }

  /// `callback-phases`: during create, between create and start, and during start the plugin
  /// calls back nothing but log; for a fresh instance and for one restored before start.
  static func checkCallbackPhases(_ run: ConformanceRun) throws(CheckFailure) {
    for restored in [false, true] {
      let instance = try run.makeInstance()
      defer { instance.destroy() }
      if restored {
        run.progress("restore before start")
        let state = try CatalogueWalk.state(of: instance, after: "create")
        let result = instance.restore(bytes: state)
        guard result.isOK else {
          throw CheckFailure("restore of the plugin's own snapshot failed: \(result.described)")
        }
      }
      run.progress("start")
      let started = instance.start()
      guard started.isOK else { throw CheckFailure("start failed: \(started.described)") }
      if let breach = instance.recorder.callbacksOutOfPhase.first {
        throw CheckFailure("the plugin called \(breach); before start returns only log may be called")
      }
    }
  }
}
