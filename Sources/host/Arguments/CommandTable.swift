import HostKit

/// Every command of the host and every option, in one place: parsing, help and suggestions
/// are derived from it (see `CommandSpec`).
enum CommandTable {
  /// The longest any wait may be set to, in seconds (see `RunSettingCatalogue.longestWait`).
  static let longestWait = RunSettingCatalogue.longestWait

  /// The commands, in the order `host --help` lists them.
  static let commands: [CommandSpec] = [
    list, run, validate, check, explore, new, dev, sessions, replay, devtools, help,
  ]

  /// Commands the host runs itself in child processes: accepted, never listed or suggested.
  static let hiddenCommands: [CommandSpec] = [scan, worker]

  /// The command called `word`, hidden ones included.
  static func command(named word: String) -> CommandSpec? {
    commands.first { $0.isCalled(word) } ?? hiddenCommands.first { $0.isCalled(word) }
  }

  /// `host` with no command, or with run's options but `--flow`: the main flow, a home menu.
  static let mainFlow = CommandSpec(
    name: HostCLI.programName, summary: "the main flow: a home menu of the features found",
    usesPluginFolders: true, options: run.options.filter { $0 != Run.flow })

  /// `--config JSON|KEY=VALUE`, repeatable: read the same way by every command that takes it.
  static func configOption(help: String, example: String) -> OptionSpec {
    OptionSpec(
      name: "--config", kind: .text, valueName: "JSON|KEY=VALUE", help: help, isRepeatable: true,
      exampleValue: example)
  }

  // MARK: - Options before the command

  enum Global {
    static let plugins = OptionSpec(
      name: "--plugins", kind: .text, valueName: "DIR",
      help: "look for plugins in DIR first (repeatable); then FEATUREHOST_PLUGIN_PATH (colon-separated), "
        + "then the folder the host was built into",
      isRepeatable: true, exampleValue: "/tmp")
    static let version = OptionSpec(name: "--version", kind: .flag, help: "print the host's version")
    static let scanTimeout = OptionSpec(RunSettingCatalogue.scanTimeout)
  }

  static let global = CommandSpec(
    name: HostCLI.programName,
    summary: "runs MVI feature plugins in the terminal",
    about: """
      Runs MVI feature plugins (shared libraries) in the terminal. With no command: the main flow,
      a home menu of the features found ('host run --help' lists its options).
      """,
    options: [Global.plugins, Global.scanTimeout, Global.version])

  // MARK: - list

  static let list = CommandSpec(
    name: "list",
    summary: "list the features found, and the plugin files that were rejected",
    usesPluginFolders: true,
    about: """
      Lists every feature found in the plugin folders, one per line:
        ID  VERSION  abi MAJOR.MINOR  PATH  needs: NEEDS
      where NEEDS is what its manifest declares beyond computing (the ports it connects to, the
      paths it reads and writes, or a setting naming them), or none;
      then each plugin file that was not loaded, with the reason:
        rejected  PATH  REASON
      No plugin code runs in the host to list them: a new or changed file is inspected in a child
      process (killed after --scan-timeout seconds) and what it found is kept in
      $XDG_CACHE_HOME/featurehost (default ~/.cache/featurehost) until the file changes.
      """,
    options: [List.verbose])

  enum List {
    static let verbose = OptionSpec(
      name: "--verbose", kind: .flag,
      help: "also show the sandbox workers run in: which protections this system applies, and the limits")
  }

  // MARK: - run

  enum Run {
    static let flow = OptionSpec(
      name: "--flow", kind: .text, valueName: "FILE",
      help: "run the flow in FILE (JSON: see README, \"Flows\") instead of one feature", exampleValue: "flow.json")
    static let logNavigation = OptionSpec(
      name: "--log-navigation", kind: .flag,
      help: "print 'will navigate' / 'did navigate flow=NAME step=STEP' lines on stderr")
    static let config = configOption(
      help: "the feature's config: a JSON object, or one setting per flag (repeatable; a VALUE that is valid "
        + "JSON is taken as JSON)",
      example: "interval=0")
    static let session = OptionSpec(
      name: "--session", kind: .text, valueName: "NAME",
      help: "journal the run as session NAME; if it exists, restore it first (the feature sees 'restored'); "
        + "'host sessions' lists them",
      exampleValue: "demo")
    static let maxFeedbackSteps = OptionSpec(RunSettingCatalogue.maxFeedbackSteps)
    static let maxLineBytes = OptionSpec(RunSettingCatalogue.maxLineBytes)
    static let settleTimeout = OptionSpec(RunSettingCatalogue.settleTimeout)
    static let devtools = OptionSpec(
      name: "--devtools", kind: .flag,
      help: "serve a devtools page on 127.0.0.1 (its address, with the run's token, is printed once): the "
        + "stack, each feature's action log, states with their diffs, the view, a timeline to travel; needs "
        + "libmicrohttpd12")
    static let watch = OptionSpec(
      name: "--watch", kind: .flag,
      help: "reload a feature, keeping its state, when its plugin file changes (rebuilt in place, replaced or "
        + "copied over); a build that does not load or refuses the state leaves the running one as it was")
  }

  /// Where instances run, for run, the main flow, validate and check.
  enum Isolation {
    static let isolation = OptionSpec(
      name: "--isolation", kind: .choice(["process", "none"], noun: "an isolation"), valueName: "process|none",
      help: "process (the default): each feature in a sandboxed worker process of its own, so a crash or hang "
        + "costs only that worker and the plugin reaches only what its manifest declares; none: in the host's "
        + "process, faster, with no sandbox, for trusted plugins only. FEATUREHOST_ISOLATION sets the default")
    static let callTimeout = OptionSpec(RunSettingCatalogue.callTimeout)
    static let maxMemory = OptionSpec(RunSettingCatalogue.maxMemory)
  }

  static let run = CommandSpec(
    name: "run",
    summary: "run one feature: type actions, see its view",
    usesPluginFolders: true,
    moreUsage: [
      "[--plugins DIR]... run --flow FILE [options]",
      "[--plugins DIR]...                      (the main flow: the home menu)",
    ],
    about: """
      Runs feature ID, or a flow: features presented one over another as the steps they emit lead.
      Type one action per line, as the focused feature's catalogue names it (`increment`,
      `set left=3 right=9`) or as raw JSON ({"type":"increment"}). Host commands start with ':'.
      """,
    positionals: [PositionalSpec(name: "ID", noun: "feature id", orElse: Run.flow, example: "counter")],
    options: [
      Run.flow, Run.logNavigation, Run.config, Run.session, Run.maxFeedbackSteps, Run.maxLineBytes,
      Run.settleTimeout, Isolation.isolation, Isolation.callTimeout, Isolation.maxMemory, Run.watch, Run.devtools,
    ],
    epilogue: """
      commands while running (a unique prefix will do: ':o levels'):
      \(ColonCommand.helpLines.joined(separator: "\n"))

      When stdin is not a terminal: reads to end of input, waits for effects to settle, prints the
      final view and exits 0. A bad line prints an error on stderr and the run goes on.
      """)

  // MARK: - validate

  enum Validate {
    static let config = configOption(
      help: "the feature's config (repeatable), as for 'host run'; point its effects at something local, "
        + "e.g. --config endpoint=file:///tmp/cats.json",
      example: "{}")
    static let timeout = OptionSpec(
      name: "--timeout", kind: .seconds(minimum: 0, allowsMinimum: false, maximum: 3600), valueName: "SECONDS",
      help:
        "how long one check may run before it is killed (default 10, at most 3600; time spent waiting for a "
        + "CPU on a busy machine does not count, up to \(ChildProcess.busyMachineAllowance) times this in all)")
    /// The mode the validator starts its children in: one check, its verdict on descriptor 3.
    static let check = OptionSpec(
      name: "--check", kind: .choice(ConformanceCheck.allCases.map(\.name), noun: "a check"), valueName: "CHECK",
      help: "run one check and print its verdict (the validator's child processes)", isHidden: true)
  }

  static let validate = CommandSpec(
    name: "validate",
    summary: "check one plugin against the plugin contract, check by check",
    about: """
      Checks one plugin file against the plugin contract (Sources/FeatureABI/include/feature_abi.h):
      a path, or a feature id for the file 'host run ID' would load.
      Each check runs in a child process with a timeout, so a plugin that crashes or hangs fails
      that check, not the validator. Prints one line per check, then a summary:
        pass  CHECK
        fail  CHECK  WHY
        note  CHECK  WHY            (a rule of a newer ABI minor than the plugin declares; passes)
        skip  CHECK  needs: CHECK   (not run: a check it needs failed; not counted as failed)
        N passed[ (K with a note)], M failed[, K skipped]
      A plugin is judged by the rules of the ABI minor it declares (abi_minor; feature_abi.h's
      ChangeLog says what each minor added).
      Exits 0 when every check passes, 1 when one fails, 64 for a usage error.
      """,
    positionals: [PositionalSpec(name: "PLUGIN.so|ID", noun: "plugin file or feature id", example: "libCounter.so")],
    options: [Validate.config, Validate.timeout, Isolation.isolation, Validate.check],
    epilogue: "checks:\n" + checkList)

  private static var checkList: String {
    let width = ConformanceCheck.allCases.map(\.name.count).max() ?? 0
    return ConformanceCheck.allCases.map { check in
      "  \(check.name.padding(toLength: width))  \(check.summary)"
    }.joined(separator: "\n")
  }

  // MARK: - check

  enum Check {
    static let update = OptionSpec(
      name: "--update", kind: .flag,
      help: "rewrite each failing transcript with what the host printed (it still counts as failed: review "
        + "the change)")
    static let timeout = OptionSpec(
      name: "--timeout", kind: .seconds(minimum: 0, allowsMinimum: false, maximum: longestWait),
      valueName: "SECONDS",
      help: "how long the host may take to answer one line (default 30, at most 86400)")
  }

  static let check = CommandSpec(
    name: "check",
    summary: "run transcripts (typed input and the exact output expected)",
    usesPluginFolders: true,
    about: """
      Runs each transcript (a DIR means every *.transcript in it) through this host, one
      `host run` process per section, and compares what the host printed with what the
      transcript expects. Prints `pass FILE`, or `fail FILE` and a unified diff (- expected,
      + actual), then `N passed, M failed`. Exits 0 only if every transcript passed.
      """,
    positionals: [
      PositionalSpec(
        name: "FILE|DIR", noun: "transcript file or folder", isRepeatable: true, example: "counter.transcript")
    ],
    options: [Check.update, Check.timeout, Isolation.isolation],
    epilogue: """
      transcript format:
        # comment              blank lines are ignored too
        $ host run ID [...]    a section: the command; NAME=value before host sets the
                               environment; $TESTDIR is the transcript's folder
        > LINE                 a line typed on stdin
        TEXT                   a line expected on stdout (\\TEXT if it starts with # $ > ! \\)
        ! TEXT                 a line expected on stderr
        ^D                     end of input, then what the host prints last (the final view)
        [exit N]               the exit status, when it is not 0
      """)

  // MARK: - new

  enum New {
    static let lang = OptionSpec(
      name: "--lang", kind: .choice(Scaffold.Language.allCases.map(\.rawValue), noun: "a language"),
      valueName: "swift|c",
      help: "swift (the default): a SwiftPM package: the feature on FeatureKit, a dynamic library product, "
        + "a FeatureTesting test, a transcript. c: NAME.c against feature_abi.h alone, exports.map (only "
        + "the entry symbol is exported), a Makefile (make; make check runs the transcript)")
    static let dir = OptionSpec(
      name: "--dir", kind: .text, valueName: "DIR", help: "create the folder in DIR (default: the current folder)",
      exampleValue: "/tmp")
    static let featureHost = OptionSpec(
      name: "--featurehost", kind: .text, valueName: "DIR",
      help: "the FeatureHost checkout to build against (default: the one this host was built from); the "
        + "generated files name it relative to the new folder, and FEATUREHOST=DIR overrides it",
      exampleValue: "/tmp")
  }

  static let new = CommandSpec(
    name: "new",
    summary: "create a plugin folder: a feature skeleton and a passing test",
    about: """
      Creates the folder DIR/NAME (DIR defaults to the current folder) holding a feature plugin
      with the id NAME: a running total you add to and reset, ready to make your own.
      """,
    positionals: [PositionalSpec(name: "NAME", noun: "feature name", example: "tally")],
    options: [New.lang, New.dir, New.featureHost],
    epilogue: """
      NAME: lowercase letters, digits, '-' and '_', starting with a letter. An existing folder is
      never overwritten.
      """)

  // MARK: - dev

  static let dev = CommandSpec(
    name: "dev",
    summary: "build a plugin folder, run its feature, rebuild and reload it on every change",
    usesPluginFolders: true,
    about: """
      For a plugin folder made by 'host new' (DIR, default the current folder): builds it (swift
      build, or make for C), runs its feature with --watch, and rebuilds after each change to its
      sources. A build that fails prints its errors below the view and the feature keeps running;
      one that succeeds is reloaded with the state kept. Ctrl-C (or :quit) ends it.
      """,
    positionals: [PositionalSpec(name: "DIR", noun: "plugin folder", isRequired: false, example: ".")],
    options: [Run.config, Run.session, Isolation.isolation, Isolation.callTimeout, Isolation.maxMemory])

  // MARK: - sessions

  static let sessions = CommandSpec(
    name: "sessions",
    summary: "list the saved sessions, or remove one",
    about: """
      Sessions are runs journaled with 'host run ID --session NAME', kept in
      $XDG_STATE_HOME/featurehost (default ~/.local/state/featurehost). 'list' prints one line per
      session: NAME  FEATURE  ACTIONS  LAST-CHANGE (UTC)  PATH. 'rm' removes a session's journal.
      'host replay' takes a journal file: the PATH column of 'list' shows where each one is.
      """,
    subcommands: [Sessions.list, Sessions.remove])

  enum Sessions {
    static let list = CommandSpec(name: "list", summary: "list the saved sessions")
    static let remove = CommandSpec(
      name: "rm", aliases: ["remove"], summary: "remove a session's journal",
      positionals: [PositionalSpec(name: "NAME", noun: "session name", example: "demo")])
  }

  // MARK: - replay

  enum Replay {
    static let to = OptionSpec(
      name: "--to", kind: .count(minimum: 0), valueName: "SEQ", help: "stop after the record numbered SEQ")
  }

  static let replay = CommandSpec(
    name: "replay",
    summary: "replay a session's journal with effects off, checking its snapshots",
    usesPluginFolders: true,
    about: """
      Replays a journal (a session file, see 'host sessions') through its feature's plugin with
      effects off: no network, no timers, no feedbacks; the actions they produced are in the journal.
      Prints each view that changed. Every snapshot in the journal must be reproduced byte for
      byte; a mismatch is an error naming the seq (exit 1). The plugin runs in a worker process
      unless --isolation none: a plugin that crashes on a recorded action is an error naming the
      seq, not a crash of the host.
      """,
    positionals: [PositionalSpec(name: "FILE", noun: "journal file", example: "demo.jsonl")],
    options: [Replay.to, Isolation.isolation, Isolation.callTimeout, Isolation.maxMemory])

  // MARK: - devtools

  static let devtools = CommandSpec(
    name: "devtools",
    summary: "look at a recorded journal in the devtools page",
    usesPluginFolders: true,
    about: """
      Serves the devtools page on 127.0.0.1 for a recorded journal: a feature's journal, or a
      session's navigation.jsonl (the stack it ended on, each feature from its own journal). States
      are recomputed by replaying the journal with effects off in a scratch instance. Prints
      'devtools: http://127.0.0.1:PORT/#TOKEN' and serves until its input ends (Ctrl-D) or ':quit'.
      Needs libmicrohttpd12.
      """,
    positionals: [PositionalSpec(name: "FILE", noun: "journal file", example: "demo.jsonl")],
    options: [Isolation.isolation, Isolation.callTimeout, Isolation.maxMemory])

  // MARK: - __scan (hidden)

  /// The registry's scanner: loads one plugin file and reports what it found on descriptor 3
  /// (stdout when run by hand). Run by the host itself, in a child process per file.
  static let scan = CommandSpec(
    name: "__scan",
    summary: "inspect one plugin file for the registry (the host's child processes)",
    positionals: [PositionalSpec(name: "PLUGIN.so", noun: "plugin file", example: "libCounter.so")])

  // MARK: - __worker

  /// The worker process a feature runs in under `--isolation process`: the host re-run with a
  /// socket on descriptor 3. Hidden: only the host starts it.
  static let worker = CommandSpec(
    name: "__worker", summary: "serve one feature instance for a host process (internal)",
    positionals: [
      PositionalSpec(name: "PARENT-PID", noun: "parent process id", example: "1"),
      PositionalSpec(name: "PROTOCOL", noun: "worker protocol version", isRequired: false, example: "2"),
    ])

  // MARK: - help

  static let help = CommandSpec(
    name: "help",
    summary: "show help for a command",
    positionals: [PositionalSpec(name: "COMMAND", noun: "command", isRequired: false, example: "run")])
}
