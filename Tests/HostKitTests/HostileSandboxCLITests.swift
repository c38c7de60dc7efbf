import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A plugin that tries what it must not, run by the real `host` in its worker's sandbox (issue
/// 24): a file or network operation it did not declare fails inside the plugin with EACCES (or
/// EPERM) and is named once on stderr; an operation seccomp stops ends only the worker, which
/// restarts with the state as before; the run goes on, exits 0, and its journal replays.
///
/// The plugin (Tests/Fixtures/hostile/hostile_plugin.c) records each outcome in its state, so
/// `:state` shows what reached it. Every run is given a home of its own holding a planted secret.
@Suite("A hostile plugin in the worker's sandbox, through the CLI")
struct HostileSandboxCLITests {
  // MARK: - Files

  @Test func readingASecretItDidNotDeclareIsRefusedNamedAndNeverReachesTheState() async throws {
    // given a home with a secret, and a plugin that declares no reads
    let scene = try HostileScene()
    // when the plugin reads the secret
    let run = try await scene.run(["attempt op=read target=\(scene.secret)"])
    // then the read fails inside the plugin
    #expect(run.log.count == 1)
    #expect(HostileScene.isRefusal(run.log.first, "read \(scene.secret)"), "\(run.log)")
    // and the secret's text reached nothing the host printed or kept
    #expect(!run.output.stdout.contains(scene.secretText))
    #expect(!run.output.stderr.contains(scene.secretText))
    #expect(try !String(contentsOfFile: scene.journal, encoding: .utf8).contains(scene.secretText))
    // and the host says so once, naming the path
    #expect(
      run.output.stderr.contains(
        "warning: hostile tried to read \(scene.secret), which it did not declare (sandbox refused)\n"),
      "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  @Test func writesItDidNotDeclareAreRefusedInEveryFolderAndChangeNothing() async throws {
    // given the folders a plugin could harm, each holding a file
    let scene = try HostileScene()
    let before = scene.guardedListings()
    // when the plugin creates, writes, renames, deletes and makes folders in each
    let attempts = scene.guardedFolders.flatMap { folder in
      [
        ("create", "\(folder)/new.txt"), ("write", "\(folder)/victim.txt"), ("rename", "\(folder)/victim.txt"),
        ("delete", "\(folder)/victim.txt"), ("mkdir", "\(folder)/new-folder"),
      ]
    }
    let run = try await scene.run(attempts.map { "attempt op=\($0.0) target=\($0.1)" })
    // then each one fails inside the plugin
    #expect(run.log.count == attempts.count, "\(run.log)")
    for (entry, attempt) in zip(run.log, attempts) {
      #expect(HostileScene.isRefusal(entry, "\(attempt.0) \(attempt.1)"), "\(entry)")
    }
    // and no folder changed: same names, same contents
    let after = scene.guardedListings()
    for (folder, listing) in before {
      #expect(after[folder] == listing, "\(folder) changed")
    }
    // and the host named the first refused write, once for the whole run
    let first = attempts[0].1
    #expect(
      run.output.stderr.contains(
        "warning: hostile tried to write \(first), which it did not declare (sandbox refused)\n"),
      "\(run.output.stderr)")
    #expect(run.output.stderr.components(separatedBy: "tried to write").count == 2, "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  // MARK: - Network

  @Test(
    "a connect to a port it did not declare is refused and named; without any port, the socket is",
    arguments: [false, true])
  func connectingToAPortItDidNotDeclareIsRefusedAndTheServerSeesNothing(declaresAnotherPort: Bool) async throws {
    // given a server on loopback, and a plugin that declares no port or another one
    let scene = try HostileScene(needs: declaresAnotherPort)
    let server = try LoopbackServer()
    let declared = try LoopbackServer()
    defer {
      server.close()
      declared.close()
    }
    // when the plugin connects to the server
    let run = try await scene.run(
      ["attempt op=connect target=\(server.port)"], config: declaresAnotherPort ? ["port=\(declared.port)"] : [])
    // then the connect fails inside the plugin (without a port, it cannot even make the socket, so
    // no UDP either), and no connection reached the server
    let refused = declaresAnotherPort ? "connect \(server.port): EACCES" : "connect \(server.port): socket EACCES"
    #expect(run.log.first == refused, "\(run.log)")
    #expect(server.acceptedConnections() == 0)
    // and the host names the port, or says it used the network at all
    let warning =
      declaresAnotherPort
      ? "warning: hostile tried to connect to port \(server.port), which it did not declare (sandbox refused)\n"
      : "warning: hostile tried to use the network, which it did not declare (sandbox refused)\n"
    #expect(run.output.stderr.contains(warning), "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  @Test func listeningIsRefusedToEveryPlugin() async throws {
    // given a plugin that may use the network (it declares a port)
    let scene = try HostileScene(needs: true)
    // when the plugin binds a port (0: any) to listen on
    let run = try await scene.run(["attempt op=bind"], config: ["port=443"])
    // then the bind fails inside the plugin
    #expect(HostileScene.isRefusal(run.log.first, "bind"), "\(run.log)")
    // and the host says no plugin may listen
    let warnings = run.output.stderr.split(separator: "\n").filter {
      $0.hasPrefix("warning: hostile tried to listen on port ")
        && $0.hasSuffix(", which no plugin may (sandbox refused)")
    }
    #expect(warnings.count == 1, "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  @Test func aLocalSocketIsRefusedToEveryPlugin() async throws {
    // given a unix socket listening in a folder of the test's (as a session bus or a container
    // engine's would), and a plugin that may use the network
    let scene = try HostileScene(needs: true)
    let path = try HostileScene.folderUnderTmp("bus") + "/socket"
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer { Glibc.close(listener) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in
      for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    #expect(bound == 0)
    #expect(listen(listener, 4) == 0)
    _ = fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK)
    // when the plugin connects to it
    let run = try await scene.run(["attempt op=local target=\(path)"], config: ["port=443"])
    // then it cannot make the socket, and nothing reached the listener
    #expect(run.log.first == "local \(path): socket EACCES", "\(run.log)")
    #expect(accept(listener, nil, nil) == -1)
    #expect(
      run.output.stderr.contains(
        "warning: hostile tried to open a local (unix) socket, which no plugin may (sandbox refused)\n"),
      "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  // MARK: - From an effect's thread

  @Test func anEffectThreadIsRefusedTheSameReadsWritesAndConnects() async throws {
    // given a secret, a folder to keep, and a server
    let scene = try HostileScene()
    let server = try LoopbackServer()
    defer { server.close() }
    let before = scene.guardedListings()
    // when an effect's thread reads, creates and connects
    let run = try await scene.run([
      "attempt op=read target=\(scene.secret) from=effect",
      "attempt op=create target=\(scene.home)/new.txt from=effect",
      "attempt op=connect target=\(server.port) from=effect",
    ])
    // then each fails inside the plugin, in the order the effects ran
    #expect(run.log.count == 3, "\(run.log)")
    #expect(run.log.contains { HostileScene.isRefusal($0, "read \(scene.secret)") }, "\(run.log)")
    #expect(run.log.contains { HostileScene.isRefusal($0, "create \(scene.home)/new.txt") }, "\(run.log)")
    #expect(run.log.contains { $0 == "connect \(server.port): socket EACCES" }, "\(run.log)")
    // and nothing was read, written or connected to
    #expect(!run.output.stdout.contains(scene.secretText))
    #expect(scene.guardedListings() == before)
    #expect(server.acceptedConnections() == 0)
    // and each refusal is named
    for warning in [
      "warning: hostile tried to read \(scene.secret), which it did not declare (sandbox refused)",
      "warning: hostile tried to write \(scene.home)/new.txt, which it did not declare (sandbox refused)",
      "warning: hostile tried to use the network, which it did not declare (sandbox refused)",
    ] {
      #expect(run.output.stderr.contains(warning + "\n"), "\(run.output.stderr)")
    }
    try await scene.expectNormalEnd(run)
  }

  // MARK: - Operations the sandbox stops

  /// An operation seccomp stops, and the names the host may give its system call.
  struct StoppedOperation: Sendable, CustomTestStringConvertible {
    let op: String
    let syscalls: [String]
    /// Whether it takes the host's pid as its target (the worker's parent).
    var targetsTheHost = false
    var testDescription: String { op }
  }

  static let stoppedOperations: [StoppedOperation] = [
    StoppedOperation(op: "exec", syscalls: ["execve"]),
    StoppedOperation(op: "fork", syscalls: ["fork", "clone"]),
    StoppedOperation(op: "ptrace", syscalls: ["ptrace"], targetsTheHost: true),
    StoppedOperation(op: "vm_read", syscalls: ["process_vm_readv"], targetsTheHost: true),
    StoppedOperation(op: "kill", syscalls: ["kill", "tgkill"], targetsTheHost: true),
  ]

  /// Under ThreadSanitizer a fork goes through its runtime, which fails a check of its own when
  /// the filter stops the call, and hangs: that case is for the ordinary build.
  static let stoppedHere = stoppedOperations.filter { $0.op != "fork" || Sandbox.sanitizer != "thread" }

  @Test("an operation the sandbox stops costs only the worker", arguments: stoppedHere)
  func anOperationTheSandboxStopsEndsTheWorkerAndTheRunGoesOn(_ stopped: StoppedOperation) async throws {
    // given a running session whose state holds an outcome: a read of the plugin's own file
    let scene = try HostileScene()
    let host = try scene.liveHost()
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    let before = try HostileScene.state(of: host)
    #expect(before.hasPrefix(#"{"log":["read "#), "\(before)")
    // when the plugin tries the operation, aimed at the host where it takes a pid
    let target = stopped.targetsTheHost ? " target=\(host.child.pid)" : ""
    host.send("attempt op=\(stopped.op)\(target)\n")
    // then the state is as it was before: the attempt recorded nothing
    let after = try HostileScene.state(of: host)
    #expect(after == before)
    // and the host says the sandbox stopped the worker, naming the call and the action
    let errors = host.errors
    let action =
      stopped.targetsTheHost
      ? "{\"op\":\"\(stopped.op)\",\"target\":\"\(host.child.pid)\",\"type\":\"attempt\"}"
      : "{\"op\":\"\(stopped.op)\",\"type\":\"attempt\"}"
    let lines = stopped.syscalls.map {
      "error: hostile was stopped by the sandbox: \($0) is not allowed while applying \(action)\n"
    }
    #expect(lines.contains { errors.contains($0) }, "\(errors)")
    // and restarted it (the note may follow the state it printed: wait for it only once stopped)
    if errors.contains("was stopped by the sandbox") {
      let noted = try host.waitForErrors(containing: "note: hostile restarted at seq ")
      #expect(noted.contains("note: hostile restarted at seq "))
    }
    // and the host lives on, and the session goes on in a new worker
    #expect(host.isRunning)
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    let more = try HostileScene.state(of: host)
    #expect(more.hasPrefix(String(before.dropLast(2)) + #","read "#), "\(more)")
    #expect(host.quit() == 0)
    try await scene.expectReplays()
  }

  // MARK: - Limits

  /// A sanitizer's shadow memory is larger than any limit: its workers have none.
  static let hasMemoryLimit = Sandbox.sanitizer == nil

  @Test(.enabled(if: hasMemoryLimit, "no memory limit under a sanitizer"))
  func memoryAndDescriptorsRunOutAsErrorsNotCrashes() async throws {
    let scene = try HostileScene()
    // when the plugin asks for 8 GiB and for 100,000 descriptors
    let run = try await scene.run(["attempt op=alloc", "attempt op=fds"])
    // then the allocation fails (over the default 2 GiB)
    #expect(run.log.first == "alloc: ENOMEM", "\(run.log)")
    // and the descriptors run out before 5,000 (the limit is 4096)
    let fds = run.log.dropFirst().first ?? ""
    let count = fds.hasPrefix("fds: EMFILE after ") ? Int(fds.dropFirst("fds: EMFILE after ".count)) : nil
    #expect(count.map { $0 < 5000 } == true, "\(fds)")
    // and the worker did not crash
    #expect(!run.output.stderr.contains("error:"), "\(run.output.stderr)")
    #expect(!run.output.stderr.contains("restarted"), "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  @Test(.enabled(if: hasMemoryLimit, "no memory limit under a sanitizer"))
  func aRunawayAllocationEndsItsWorkerAtTheLimitAndTheRunGoesOn() async throws {
    // given a running session with a memory limit of 256 MiB, whose state holds an outcome
    let scene = try HostileScene()
    let host = try scene.liveHost(more: ["--max-memory", "256M"])
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    let before = try HostileScene.state(of: host)
    // when the plugin leaks until an allocation fails, and aborts
    host.send("attempt op=exhaust\n")
    // then the state is as before, and the host says the worker ran out of memory at its limit
    let after = try HostileScene.state(of: host)
    #expect(after == before)
    let errors = try host.waitForErrors(containing: "note: hostile restarted at seq ")
    #expect(
      errors.contains(
        #"error: hostile ran out of memory (limit 256 MiB) while applying {"op":"exhaust","type":"attempt"}"#),
      "\(errors)")
    // and the host lives on, its own memory far below what the worker held
    #expect(host.isRunning)
    #expect(host.quit() == 0)
    try await scene.expectReplays()
  }

  @Test(arguments: ["dispatch", "effect"])
  func aPluginThatScribblesOverTheSharedMemoryCostsItsWorkerOnly(from: String) throws {
    // given a running session whose state holds an outcome
    let scene = try HostileScene()
    let host = try scene.liveHost()
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    let before = try HostileScene.state(of: host)
    // when the plugin fills the memory its worker shares with the host with garbage
    host.send("attempt op=scribble from=\(from)\n")
    // then the host names what the worker broke and restarts it, with the state as before, or with
    // the outcome when it reached the host before the worker went (the worker rewrites a valid
    // position over the garbage as it writes): the new worker then applies it, as any action
    // that came before a crash
    let errors = try host.waitForErrors(containing: "note: hostile restarted at seq ")
    #expect(errors.contains("hostile broke the channel to the host"), "\(errors)")
    let applied = String(before.dropLast(2)) + #","scribble: ok"]}"#
    let restored = try HostileScene.state(of: host)
    #expect(restored == before || restored == applied, "\(restored)")
    // and the restarted worker serves as before, the host alive
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    let after = try HostileScene.state(of: host)
    #expect(after != before && after.hasPrefix(String(before.dropLast(2))), "\(after)")
    #expect(host.isRunning)
    #expect(host.quit() == 0)
  }

  @Test func garbageInTheRingsBytesCostsTheHostNothing() throws {
    // given a running session
    let scene = try HostileScene()
    let host = try scene.liveHost()
    // when the plugin fills the rings' bytes (not their positions) with garbage, and is called on
    host.send("attempt op=scribble_data\n")
    host.send("attempt op=read target=\(scene.plugins)/libhostile.so\n")
    // then the host still answers and quits normally, whatever the worker made of it
    let state = try HostileScene.state(of: host)
    #expect(state.hasPrefix(#"{"log":"#))
    #expect(host.isRunning)
    #expect(host.quit() == 0)
  }

  // MARK: - Declared needs

  @Test func aDeclaredWritePathThatDoesNotExistIsNotGrantedAndSaid() async throws {
    // given a plugin that declares it writes a file that is not there yet
    let scene = try HostileScene(needs: true)
    let missing = try HostileScene.folderUnderTmp("gone") + "/not-here"
    // when it creates it
    let run = try await scene.run(["attempt op=create target=\(missing)"], config: ["write=\(missing)"])
    // then it is refused, nothing is made, and the host said why before the run
    #expect(HostileScene.isRefusal(run.log.first, "create \(missing)"), "\(run.log)")
    #expect(!FileManager.default.fileExists(atPath: missing))
    #expect(
      run.output.stderr.contains(
        "warning: hostile declares that it writes \(missing), which does not exist, so it is not granted; "
          + "create it (a file or a folder) first\n"),
      "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }

  @Test func whatTheManifestDeclaresIsGrantedAndNothingNextToIt() async throws {
    // given a plugin that declares a read, a write folder and a port, each named by its config
    let scene = try HostileScene(needs: true)
    let writable = try HostileScene.folderUnderTmp("x-folder")
    let elsewhere = try HostileScene.folderUnderTmp("y-folder")
    let declared = try LoopbackServer()
    let other = try LoopbackServer()
    defer {
      declared.close()
      other.close()
    }
    let config = ["read=\(scene.secret)", "write=\(writable)", "port=\(declared.port)"]
    // when it reads, creates and connects there, and next to each
    let run = try await scene.run(
      [
        "attempt op=read target=\(scene.secret)", "attempt op=create target=\(writable)/made.txt",
        "attempt op=connect target=\(declared.port)",
        "attempt op=read target=\(scene.otherSecret)", "attempt op=create target=\(elsewhere)/made.txt",
        "attempt op=connect target=\(other.port)",
      ], config: config)
    // then what it declared works
    #expect(run.log.count == 6, "\(run.log)")
    let granted = Array(run.log.prefix(3))
    #expect(
      granted == [
        "read \(scene.secret): ok \(scene.secretText.utf8.count) bytes: \(scene.secretText)",
        "create \(writable)/made.txt: ok", "connect \(declared.port): ok",
      ])
    #expect(try String(contentsOfFile: "\(writable)/made.txt", encoding: .utf8) == "x")
    #expect(declared.acceptedConnections() == 1)
    // and the secret next to it, another folder and another port are still refused
    #expect(HostileScene.isRefusal(run.log.dropFirst(3).first, "read \(scene.otherSecret)"), "\(run.log)")
    #expect(HostileScene.isRefusal(run.log.dropFirst(4).first, "create \(elsewhere)/made.txt"), "\(run.log)")
    #expect(HostileScene.isRefusal(run.log.dropFirst(5).first, "connect \(other.port)"), "\(run.log)")
    #expect(!run.output.stdout.contains(scene.otherSecretText))
    #expect(!FileManager.default.fileExists(atPath: "\(elsewhere)/made.txt"))
    #expect(other.acceptedConnections() == 0)
    // and only those are named
    let stderr = run.output.stderr
    for warning in [
      "warning: hostile tried to read \(scene.otherSecret), which it did not declare (sandbox refused)",
      "warning: hostile tried to write \(elsewhere)/made.txt, which it did not declare (sandbox refused)",
      "warning: hostile tried to connect to port \(other.port), which it did not declare (sandbox refused)",
    ] {
      #expect(stderr.contains(warning + "\n"), "\(stderr)")
    }
    #expect(!stderr.contains(" \(scene.secret),"), "\(stderr)")
    #expect(!stderr.contains(writable), "\(stderr)")
    #expect(!stderr.contains("port \(declared.port),"), "\(stderr)")
    try await scene.expectNormalEnd(run)
  }

  // MARK: - The fixture itself

  @Test func inProcessTheFixtureReadsCreatesAndConnectsAsAsked() async throws {
    // given a file the test made, and a server (no sandbox in process: only harmless operations)
    let scene = try HostileScene()
    let file = "\(scene.scratch)/made-by-the-test.txt"
    try "hello from the test".write(toFile: file, atomically: true, encoding: .utf8)
    let server = try LoopbackServer()
    defer { server.close() }
    // when the plugin, run in the host's process, reads it, creates a file and connects, once
    // from an effect's thread; and is asked for an op that takes no target with one
    let run = try await scene.run(
      [
        "attempt op=read target=\(file)", "attempt op=read target=\(file) from=effect", ":settle",
        "attempt op=create target=\(scene.scratch)/new.txt", "attempt op=connect target=\(server.port)",
        "attempt op=fork target=1",
      ], isolation: "none")
    // then each outcome is recorded as it happened
    #expect(
      run.log == [
        "read \(file): ok 19 bytes: hello from the test", "read \(file): ok 19 bytes: hello from the test",
        "create \(scene.scratch)/new.txt: ok", "connect \(server.port): ok",
      ])
    #expect(try String(contentsOfFile: "\(scene.scratch)/new.txt", encoding: .utf8) == "x")
    #expect(server.acceptedConnections() == 1)
    // and the op given a target it does not take is refused, naming why
    #expect(run.output.stderr.contains("op fork takes no target"), "\(run.output.stderr)")
    try await scene.expectNormalEnd(run)
  }
}

// MARK: - The scene

/// What one test gives the hostile plugin to attack: a home of its own with a planted secret (and
/// a second one beside it), a folder under /tmp, the plugin's own folder and the session folder,
/// each holding `victim.txt`; and the runs of the host in that environment, under session `s`.
struct HostileScene {
  let home: String
  let secret: String
  let secretText = "hostile-test-secret-\(UInt32.random(in: 0...UInt32.max))"
  let otherSecret: String
  let otherSecretText = "hostile-other-secret-\(UInt32.random(in: 0...UInt32.max))"
  /// A folder under /tmp.
  let scratch: String
  /// The plugin folder (`--plugins`): libhostile.so and victim.txt.
  let plugins: String
  /// XDG_STATE_HOME.
  let state: String
  let environment: [String: String]

  /// The folder the host keeps its sessions in.
  var sessions: String { "\(state)/featurehost" }
  var journal: String { "\(sessions)/s.jsonl" }
  /// The folders no undeclared write may change.
  var guardedFolders: [String] { [home, scratch, plugins, sessions] }

  init(needs: Bool = false) throws {
    let root = try FixturePlugin.temporaryFolder()
    let files = FileManager.default
    home = "\(root)/home"
    secret = "\(home)/.ssh/id_test"
    otherSecret = "\(home)/.ssh/id_other"
    try files.createDirectory(atPath: "\(home)/.ssh", withIntermediateDirectories: true)
    try secretText.write(toFile: secret, atomically: false, encoding: .utf8)
    try otherSecretText.write(toFile: otherSecret, atomically: false, encoding: .utf8)
    scratch = try Self.folderUnderTmp("scratch")
    plugins = try FixturePlugin.temporaryFolder()
    try files.copyItem(atPath: try HostilePlugin.path(needs: needs), toPath: "\(plugins)/libhostile.so")
    state = "\(root)/state"
    try files.createDirectory(atPath: "\(state)/featurehost", withIntermediateDirectories: true)
    for folder in [home, scratch, plugins, "\(state)/featurehost"] {
      try "original\n".write(toFile: "\(folder)/victim.txt", atomically: false, encoding: .utf8)
    }
    environment = ["HOME": home, "XDG_STATE_HOME": state, "XDG_CACHE_HOME": "\(root)/cache"]
  }

  /// A new folder `/tmp/hostile-NAME-XXXXXX`, removed when the test process exits.
  static func folderUnderTmp(_ name: String) throws -> String {
    try FixturePlugin.temporaryFolder(in: "/tmp", prefix: "hostile-\(name)")
  }

  /// A host run and the plugin's log as `:state` showed it at the end.
  struct Run {
    let output: HostProcess.Output
    let log: [String]
  }

  /// Runs `host run hostile --session s` in a worker (or `isolation`), typing `lines`, then
  /// `:settle` and `:state`; returns what it printed and the log of the last state.
  func run(_ lines: [String], config: [String] = [], isolation: String = "process") async throws -> Run {
    let input = (lines + [":settle", ":state"]).map { $0 + "\n" }.joined()
    let output = try await HostProcess.run(
      arguments(config: config, isolation: isolation), input: input, environment: environment,
      timeout: .seconds(120))
    let state = output.stdout.split(separator: "\n").last { $0.hasPrefix(#"{"log":"#) }
    return Run(output: output, log: try state.map { try Self.log(String($0)) } ?? [])
  }

  /// The same run, left running for the test to drive.
  func liveHost(config: [String] = [], more: [String] = []) throws -> LiveHost {
    try LiveHost(
      arguments(config: config, isolation: "process") + more, environment: environment, deadline: .seconds(60))
  }

  private func arguments(config: [String], isolation: String) -> [String] {
    ["--plugins", plugins, "run", "hostile", "--session", "s", "--isolation", isolation]
      + config.flatMap { ["--config", $0] }
  }

  /// Settles a live host and returns its state line.
  static func state(of host: LiveHost) throws -> String {
    host.send(":settle\n:state\n")
    return try host.line(startingWith: #"{"log":"#)
  }

  /// The entries of a state line `{"log":[...]}`.
  static func log(_ state: String) throws -> [String] {
    let object = try JSONSerialization.jsonObject(with: Data(state.utf8)) as? [String: Any]
    guard let log = object?["log"] as? [String] else { throw FixtureError("not a hostile state: \(state)") }
    return log
  }

  /// Whether `entry` is the outcome of `attempt` ("create /x") refused by the sandbox.
  static func isRefusal(_ entry: String?, _ attempt: String) -> Bool {
    entry == "\(attempt): EACCES" || entry == "\(attempt): EPERM"
  }

  /// Every file and folder under each guarded folder with its contents (the host's own journal
  /// left out).
  func guardedListings() -> [String: [String: Data]] {
    var listings: [String: [String: Data]] = [:]
    for folder in guardedFolders {
      var listing: [String: Data] = [:]
      let files = FileManager.default
      for case let relative as String in files.enumerator(atPath: folder)?.allObjects ?? [] {
        if folder == sessions && relative.hasPrefix("s.") { continue }
        var isFolder: ObjCBool = false
        _ = files.fileExists(atPath: "\(folder)/\(relative)", isDirectory: &isFolder)
        listing[relative] = isFolder.boolValue ? Data("<folder>".utf8) : files.contents(atPath: "\(folder)/\(relative)")
      }
      listings[folder] = listing
    }
    return listings
  }

  /// A run ends normally: exit 0, and its session's journal replays.
  func expectNormalEnd(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    #expect(run.output.status == 0, "\(run.output.stderr)", sourceLocation: sourceLocation)
    try await expectReplays(sourceLocation: sourceLocation)
  }

  /// `host replay` of the session's journal exits 0.
  func expectReplays(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let replay = try await HostProcess.run(
      ["--plugins", plugins, "replay", journal], environment: environment, timeout: .seconds(120))
    #expect(replay.status == 0, "\(replay.stderr)", sourceLocation: sourceLocation)
  }
}

/// A TCP server on 127.0.0.1 that accepts nothing by itself: a test counts, after the fact, the
/// connections that reached it.
final class LoopbackServer {
  let descriptor: Int32
  let port: Int

  init() throws {
    (descriptor, port) = try LoopbackSocket.bind(listening: 16)
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
  }

  /// Accepts (and closes) every connection waiting: a loopback connect that succeeded has
  /// completed its handshake when connect returns, so it is waiting here by then.
  func acceptedConnections() -> Int {
    var count = 0
    while true {
      let connection = accept(descriptor, nil, nil)
      guard connection >= 0 else { return count }
      Glibc.close(connection)
      count += 1
    }
  }

  func close() { Glibc.close(descriptor) }
}
