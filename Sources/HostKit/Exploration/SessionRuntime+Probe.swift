/// The contract checks exploration makes after each step, and `:check` on demand.
extension SessionRuntime {
  /// How many frames the navigation stack holds.
  public var stackDepth: Int { coordinator?.depth ?? 0 }

  /// Checks `feature` as it is now: its state survives snapshot -> restore -> snapshot byte for
  /// byte (so its own `validate` accepts what its reducer reached), and its view is clean text.
  /// Returns the state, or throws the first rule broken. One trip to the store thread.
  public func probe(_ feature: PresentedFeature, cache: ProbeCache? = nil) throws(ContractViolation) -> String {
    try feature.store.perform { Self.probeNoting($0, feature: feature, cache: cache) }.get()
  }

  /// The probe on `feature`'s instance, from its store thread, right after the store applied
  /// (and journaled) an action or made a travel: a state that passes is noted in the journal's
  /// history (`SessionJournal.noteState`), so a later travel restores it rather than replaying
  /// the actions since the last snapshot.
  public static func probeNoting(
    _ instance: any PluginInstance, feature: PresentedFeature, cache: ProbeCache? = nil
  ) -> Result<String, ContractViolation> {
    let result = probe(instance, id: feature.id, cache: cache)
    if case .success(let state) = result, let journal = journal(of: feature) { journal.noteState(state) }
    return result
  }

  /// The journal `feature`'s store records into, if it has one.
  public static func journal(of feature: PresentedFeature) -> SessionJournal? {
    (feature.context as? Context)?.journal
  }

  /// The probe on `instance` (of feature `id`), from the thread that owns it: the state, or the
  /// first rule broken. With a `cache`, a state it holds costs one snapshot; one that passes is
  /// added to it.
  public static func probe(
    _ instance: any PluginInstance, id: String, cache: ProbeCache? = nil
  ) -> Result<String, ContractViolation> {
    do throws(PluginCallError) {
      let first = try instance.snapshot()
      // Noted at once (one lookup), and taken out again if a check fails.
      if let cache, !cache.insertIfNew(first) { return .success(first) }
      let checked = roundTrip(instance, id: id, first: first)
      if case .failure = checked { cache?.remove(first) }
      return checked
    } catch {
      return .failure(ContractViolation(error, of: id))
    }
  }

  /// The checks of a state not seen before: restore takes `first`, the snapshot after it is
  /// `first` again, and the view is clean. On the store's own instance, or on one beside it
  /// (`instanceForChecks`): restore replaces the whole state, so either instance gives the same.
  public static func roundTrip(_ instance: any PluginInstance, id: String, first: String)
    -> Result<String, ContractViolation>
  {
    do throws(PluginCallError) {
      do throws(PluginCallError) {
        try instance.restore(first)
      } catch {
        if error.loss != nil { return .failure(.crashed("\(id) \(error)")) }
        return .failure(.restoreRefused(state: first, reason: error.description))
      }
      let second = try instance.snapshot()
      guard second == first else { return .failure(.roundTripDiffers(first: first, second: second)) }
      if let why = uncleanness(of: try instance.render()) { return .failure(.viewUnclean(why)) }
      return .success(first)
    } catch {
      return .failure(ContractViolation(error, of: id))
    }
  }

  /// An instance of `feature`'s current build with its config, never started and reporting
  /// nowhere: for checks made beside its store (restore, snapshot, render), off the store thread.
  /// The caller owns it (one thread at a time) and destroys it.
  public func instanceForChecks(of feature: PresentedFeature) throws(HostError) -> any PluginInstance {
    try reloadingInstances.makeInstance(of: feature.plugin, config: feature.store.config, target: SilentTarget())
  }

  /// Replays the actions that made `feature`'s current state (its journal's effective history)
  /// in a fresh instance, effects off, and compares the state reached with `state`.
  public func checkReplay(_ feature: PresentedFeature, state: String) throws(ContractViolation) {
    let actions: [JournalAction]
    do throws(HostError) {
      actions = try history(of: feature)
    } catch {
      throw .failed("\(feature.id): the journal could not be read: \(error.message)")
    }
    let instance: any PluginInstance
    do throws(HostError) {
      instance = try settings.instances.makeInstance(
        of: feature.plugin, config: config(feature.plugin, feature.number), target: SilentTarget())
    } catch {
      throw .failed("\(feature.id): no instance to replay in: \(error.message)")
    }
    defer { instance.destroy() }
    // One batch: a worker gets the actions without a round trip each.
    var answers: [Result<InstanceAnswer, PluginCallError>] = []
    instance.perform(actions.map { .reduce($0.json) } + [.snapshot]) { answers.append($0) }
    let replayed: String
    switch answers.last {
    case .success(let answer)?: replayed = answer.text
    case .failure(let error)?: throw .failed("\(feature.id): replaying its journal failed: \(error)")
    case nil: throw .failed("\(feature.id): replaying its journal gave no state")
    }
    if let failure = answers.first(where: { if case .failure = $0 { true } else { false } }),
      case .failure(let error) = failure
    {
      throw .failed("\(feature.id): replaying its journal failed: \(error)")
    }
    if replayed != state { throw .replayDiffers(recorded: state, replayed: replayed) }
  }

  /// Why `view` is not clean text, or nil: a plugin's invalid UTF-8 reaches the host as U+FFFD;
  /// a control character other than a line break would move the cursor.
  public static func uncleanness(of view: String) -> String? {
    for scalar in view.unicodeScalars {
      if scalar == "\u{FFFD}" { return "is not valid UTF-8" }
      if scalar.value < 0x20 && scalar != "\n" || (0x7F...0x9F).contains(scalar.value) {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "holds the control character U+\(String(repeating: "0", count: 4 - hex.count))\(hex)"
      }
    }
    return nil
  }
}
