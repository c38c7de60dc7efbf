extension CommandTable {
  enum Explore {
    static let flow = OptionSpec(
      name: "--flow", kind: .text, valueName: "FILE",
      help: "explore the flow in FILE (as 'host run --flow') instead of one feature; neither: the main flow, "
        + "with ':open', ':back', ':focus' and the steps features emit among the actions",
      exampleValue: "flow.json")
    static let runs = OptionSpec(
      name: "--runs", kind: .count(minimum: 1), valueName: "N", help: "how many runs, each from a fresh start (10)")
    static let steps = OptionSpec(
      name: "--steps", kind: .count(minimum: 1), valueName: "N", help: "steps in each run (100)")
    static let seed = OptionSpec(
      name: "--seed", kind: .count(minimum: 0), valueName: "S",
      help: "the seed of the random sequences (default: from the clock); the same seed gives the same sequences")
    static let time = OptionSpec(
      name: "--time", kind: .seconds(minimum: 0, allowsMinimum: false, maximum: longestWait), valueName: "SECONDS",
      help: "stop starting runs after SECONDS (a budget; the runs asked for are the other bound)")
    static let out = OptionSpec(
      name: "--out", kind: .text, valueName: "DIR",
      help: "where the transcripts of failures are written (default: the current folder)", exampleValue: "/tmp")
    static let config = configOption(
      help: "the feature's config (repeatable), as for 'host run'; point its effects at something local",
      example: "interval=0")
  }

  static let explore = CommandSpec(
    name: "explore",
    summary: "test a feature with random action sequences; shrink each failure to a transcript",
    usesPluginFolders: true,
    moreUsage: [
      "[--plugins DIR]... explore --flow FILE [options]", "[--plugins DIR]... explore [options]    (the main flow)",
    ],
    about: """
      Runs feature ID as 'host run' does (store, journal, the chosen isolation) with random
      sequences drawn from its catalogue: every action, arguments from their types and the
      ranges and words of their help (edge values too), and between them ':undo', ':redo',
      ':goto SEQ' and, in a worker, ':reload' (a new worker). After every step it checks: no
      crash and no hang (a call past --call-timeout, in process too, or no settling within
      --settle-timeout); a refused action left the state as it was; snapshot ->
      restore -> snapshot gives the same bytes (the feature's own restore accepts every state its
      reducer reaches); the view is valid UTF-8 without control characters. At the end of a run
      the journal must replay to the same state. A failure is shrunk to a short sequence that
      fails the same way and written as a transcript 'host check' runs and fails on:
        explore: ID: WHAT after N actions (KIND): STEPS; written to FILE; seed S (--seed S runs it again)
      Exits 0 when nothing was found, 1 when something was, 64 for a usage error.
      """,
    positionals: [PositionalSpec(name: "ID", noun: "feature id", isRequired: false, example: "counter")],
    options: [
      Explore.flow, Explore.runs, Explore.steps, Explore.seed, Explore.time, Explore.config, Explore.out,
      Isolation.isolation,
      Isolation.callTimeout, Isolation.maxMemory, Run.settleTimeout,
    ])
}
