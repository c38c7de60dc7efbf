import FeatureTesting
import Foundation
import HostKit
import Testing

/// The devtools page in Debian's headless Chromium against real hosts in a terminal. Needs the
/// browser: `Tests/Browser/setup` installs what is missing, and a test fails (never skips) when it
/// cannot. One browser at a time.
@Suite("devtools page in a browser", .serialized)
struct DevtoolsBrowserTests {
  @Test(
    "the counter's page shows its state, dispatches, skips, and travels where the slider is dragged; the terminal follows"
  )
  func counterPageDrivesTheRun() throws {
    let (terminal, url) = try DevtoolsPage.start(["run", "counter", "--devtools"])
    let screenshot = "\(DevtoolsPage.artifacts)/devtools-counter.png"
    try? FileManager.default.removeItem(atPath: screenshot)

    let report = try DevtoolsPage.browse("counter", url, screenshot: screenshot)

    #expect(report["initial"] as? [String: Int] == ["count": 0, "clicks": 0])
    #expect(report["catalogue"] as? [String] == ["increment", "decrement"])
    #expect(
      report["refusal"] as? String
        == "unknown action 'incremnt' for counter\nhelp: did you mean 'increment'? actions: increment, decrement")
    // Dispatched from the page: the state, its diff, the view, and the terminal.
    #expect(report["afterDispatch"] as? [String: Int] == ["count": 2, "clicks": 2])
    #expect(report["diff"] as? String == "- clicks: 1\n+ clicks: 2\n- count: 1\n+ count: 2")
    #expect((report["view"] as? String)?.contains("count:  2") == true)
    try terminal.waitFor("count:  2")
    // Skipping seq 2 recomputed the state after seq 3 without it.
    #expect(report["skipped"] as? [String: Int] == ["count": 1, "clicks": 1])
    #expect(report["skippedView"] as? String == "Counter\n  count:  1\n  clicks: 1")
    #expect((report["skipNote"] as? String)?.lowercased() == "(without seq 2)")
    // The slider, dragged back to seq 2, travelled there (journaled as a goto): the page shows the
    // state and view after seq 2, and so does the terminal.
    #expect(report["travelled"] as? [String: Int] == ["count": 1, "clicks": 1])
    #expect(report["travelledSeq"] as? String == "2")
    #expect(report["travelledView"] as? String == "Counter\n  count:  1\n  clicks: 1")
    #expect(report["travelRows"] as? [String] == ["goto"], "one drag, one travel")
    #expect((report["travelRow"] as? String)?.contains("to seq 2") == true)
    #expect(report["error"] as? String == "")
    try terminal.enter(":state", thenWaitFor: "{\"clicks\":1,\"count\":1}")
    // Selecting a seq with the keyboard shows its state and travels nowhere.
    #expect(report["selectedByKey"] as? [String: Int] == ["count": 2, "clicks": 2])
    #expect(report["viewByKey"] as? String == "Counter\n  count:  2\n  clicks: 2")
    // Every action row shows its time since the journal began; the start and the travel have none.
    let times = try #require(report["times"] as? [String])
    #expect(times.count == 5, "\(times)")
    #expect(times.enumerated().allSatisfy { index, time in (index == 0 || index == 4) == time.isEmpty }, "\(times)")
    #expect(times.dropFirst().dropLast().allSatisfy { $0.wholeMatch(of: /\+\d+\.\d{3} s/) != nil }, "\(times)")
    #expect(FileManager.default.fileExists(atPath: screenshot))
    #expect(try terminal.quit() == 0)
  }

  @Test("a flow's page shows its stack: both features of the frame, and which has focus")
  func flowPageShowsTheStack() throws {
    let flow = "\(DevtoolsPage.repository)/docs/dashboard.flow.json"
    let (terminal, url) = try DevtoolsPage.start(["run", "--flow", flow, "--devtools"])
    let report = try DevtoolsPage.browse("flow", url, screenshot: "\(DevtoolsPage.artifacts)/devtools-flow.png")
    #expect(report["stack"] as? [String] == ["counter #1", "levels #2"])
    #expect((report["focus"] as? String)?.contains("counter #1 focus") == true)
    #expect(report["state"] as? [String: Int] == ["count": 0, "clicks": 0])
    #expect(try terminal.quit() == 0)
  }

  @Test("a recorded journal opens read-only: its last state, its actions' times and refusals, no dispatch box")
  func recordedJournalOpensReadOnly() async throws {
    let folder = try StateFolder()
    let recorded = try await folder.host(
      ["run", "counter", "--session", "rec"], "increment\nincrement\n{\"type\":\"nope\"}\ndecrement\n")
    #expect(recorded.status == 0)
    let (terminal, url) = try DevtoolsPage.start(
      ["devtools", folder.journal("rec")], environment: ["XDG_STATE_HOME": folder.path])
    let report = try DevtoolsPage.browse(
      "recorded", url, screenshot: "\(DevtoolsPage.artifacts)/devtools-recorded.png")
    #expect(report["state"] as? [String: Int] == ["count": 1, "clicks": 3])
    #expect((report["mode"] as? String)?.hasSuffix("rec.jsonl") == true)
    #expect(report["dispatchShown"] as? Bool == false)
    // The recorded actions show the times the journal holds for them (seq 0, the start, has none).
    let times = try #require(report["times"] as? [String])
    #expect(times.count == 5 && times.first == "", "\(times)")
    #expect(times.dropFirst().allSatisfy { $0.wholeMatch(of: /\+\d+\.\d{3} s/) != nil }, "\(times)")
    // The action the counter refused is marked on the row it followed, from the journal.
    let refusals = try #require(report["refusals"] as? [[String]])
    #expect(refusals.count == 1 && refusals.first?.first == "3", "\(refusals)")
    #expect(
      refusals.first?.last?.hasPrefix(#"⛔ refused {"type":"nope"} at +"#) == true
        && refusals.first?.last?.contains(": action 'nope' of counter was refused") == true, "\(refusals)")
    terminal.type("\u{4}")
    #expect(try terminal.waitForExit() == 0)
  }

  @Test("a view's images are shown as thumbnails; one that cannot be had as its line")
  func imagesAreThumbnails() throws {
    let gallery = try ImageTerminalTests.Gallery()
    let (terminal, url) = try DevtoolsPage.start(
      ["run", "kittens", "--config", gallery.endpoint, "--devtools"],
      environment: ["XDG_CACHE_HOME": gallery.folder + "/cache"])
    let report = try DevtoolsPage.browse(
      "kittens", url, screenshot: "\(DevtoolsPage.artifacts)/devtools-kittens.png")
    let thumbnails = try #require(report["thumbnails"] as? [[Any]])
    #expect(thumbnails.compactMap { $0.first as? String } == Array(gallery.urls.prefix(2)))
    // Thumbnails are made at most 128 pixels wide.
    #expect(thumbnails.compactMap { $0.last as? Int }.allSatisfy { $0 > 0 && $0 <= 128 })
    #expect((report["alts"] as? [String])?.first?.contains(gallery.urls[2]) == true)
    #expect(try terminal.quit() == 0)
  }
}
