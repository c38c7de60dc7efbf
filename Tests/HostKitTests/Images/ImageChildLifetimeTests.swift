import FeatureTesting
import Foundation
import HostKit
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A `host __image` child never outlives the host that started it, even while its download hangs.
@Suite("image children end with their host")
struct ImageChildLifetimeTests {
  /// The running children of `parent` whose command line contains `marker`, once there is one
  /// (at most 60 s).
  static func child(of parent: pid_t, running marker: String) -> pid_t? {
    let until = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < until {
      if let found = ProcessTree.children(of: parent).first(where: { ProcessTree.commandLine($0).contains(marker) }) {
        return found
      }
      sched_yield()
    }
    return nil
  }

  @Test func aChildWhoseHostIsKilledEndsAtOnceThoughItsDownloadHangs() throws {
    let server = try ImageServer(["/held": .hold])
    defer { server.stop() }
    let folder = try FixturePlugin.temporaryFolder()
    // given a stand-in host (sh) that starts an image child tied to it, with a 60 s deadline
    var stand = ChildProcess(
      "/bin/sh",
      arguments: [
        "-c", #"FEATUREHOST_PARENT=$$ "$0" __image "$1" "$2/original" "$2/thumbnail" 8 8 60000 100000 & wait"#,
        HostProcess.executable, server.url("/held"), folder,
      ])
    stand.standardOutput = .discard
    stand.standardError = .discard
    let shell = try stand.start()
    let image = try #require(Self.child(of: shell.pid, running: "__image"))
    // when the host is killed
    kill(shell.pid, SIGKILL)
    // then its image child ends well before its own deadline
    #expect(ProcessTree.waitUntilEnded(image, within: .seconds(20)))
    #expect(shell.finish(until: .now + .seconds(20)).termination == .signalled(SIGKILL))
  }

  @Test func aChildStartedByAHostThatIsAlreadyGoneLeavesWithoutFetching() async throws {
    let folder = try FixturePlugin.temporaryFolder()
    // pid 1 is not its parent: the host that named itself is gone
    let result = try await HostProcess.run(
      [ImageChild.command, "file:///nonexistent.png", "\(folder)/o", "\(folder)/t", "8", "8", "1000", "1000"],
      environment: [HostChild.parentVariable: "1"])
    #expect(result.status == 70)
    #expect(result.stdout.isEmpty)
  }

  @Test func theLoaderTiesItsChildrenToThisProcess() throws {
    let server = try ImageServer(["/held-too": .hold])
    defer { server.stop() }
    let folder = try FixturePlugin.temporaryFolder()
    let loader = ImageLoader(
      settings: ImageLoader.Settings(
        executable: HostProcess.executable, cache: ImageCache(folder: folder, capacity: ImageCache.defaultCapacity))
    ) { _ in }
    defer { loader.close() }
    #expect(loader.status(of: server.url("/held-too")) == .loading)
    let image = try #require(Self.child(of: getpid(), running: "/held-too"))
    let environment = try String(contentsOfFile: "/proc/\(image)/environ", encoding: .utf8)
      .split(separator: "\0").map(String.init)
    #expect(environment.contains("\(HostChild.parentVariable)=\(getpid())"))
    kill(image, SIGKILL)
  }
}
