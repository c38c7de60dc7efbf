import FeatureTesting
import Foundation
import HostKit
import Testing

/// Kittens at a real pseudo-terminal with 24-bit colour: its images, served by a loopback server,
/// are drawn as half-block thumbnails in their colours; a 404 is its line with the reason. In a
/// pipe, or with NO_COLOR, the same run prints exactly the text it always did.
@Suite(.serialized) struct ImageTerminalTests {
  /// A server with a solid PNG, a JPEG and a missing image, and a kittens catalog file of them.
  final class Gallery {
    let server: ImageServer
    let folder: String
    let urls: [String]
    var endpoint: String { "endpoint=file://\(folder)/catalog.json" }

    init() throws {
      let png = ImageEncoder.encode(
        TestImages.solid(width: 60, height: 40, 20, 120, 220), width: 60, height: 40, as: .png)
      server = try ImageServer([
        "/blue.png": .file(contentType: "image/png", bytes: try png ?? { throw FixtureFailure("no libpng") }()),
        "/cat.jpg": .file(contentType: "image/jpeg", bytes: try TestImages.jpeg(width: 320, height: 240)),
      ])
      folder = try FixturePlugin.temporaryFolder()
      urls = [server.url("/blue.png"), server.url("/cat.jpg"), server.url("/gone.jpg")]
      let catalog =
        "[" + urls.enumerated().map { #"{"id":"c\#($0.offset)","url":"\#($0.element)"}"# }.joined(separator: ",") + "]"
      try catalog.write(toFile: "\(folder)/catalog.json", atomically: true, encoding: .utf8)
    }

    /// The view kittens renders for the catalog, as text.
    var text: String {
      (["Kittens — 3 images"] + urls.enumerated().map { "  \($0.offset + 1). \($0.element)" }
        + ["end of the catalog: 'loadMore' has nothing more to load"]).joined(separator: "\n")
    }

    deinit { server.stop() }
  }

  @Test func aTrueColourTerminalShowsHalfBlockThumbnails() throws {
    let gallery = try Gallery()
    let host = try PseudoTerminal(
      ["run", "kittens", "--config", gallery.endpoint],
      environment: [
        "COLORTERM": "truecolor", "NO_COLOR": "", "TERM": "xterm-256color", "XDG_CACHE_HOME": gallery.folder + "/cache",
      ])
    // The solid blue PNG, two pixels a cell, in its exact colour.
    try host.waitFor("\u{1B}[38;2;20;120;220;48;2;20;120;220m▀▀▀▀")
    try host.waitFor("(not shown: HTTP 404)")
    let screen = host.all
    // Drawn images are labelled under their thumbnails, not listed; the missing one is its line.
    #expect(!screen.contains("  1. \(gallery.urls[0])"))
    #expect(screen.contains("  3. \(gallery.urls[2])  (not shown: HTTP 404)"))
    #expect(screen.contains("loading…"), "the view is drawn at once, with placeholders")
    #expect(try host.quit() == 0)
  }

  @Test func aPipeGetsTheTextAsAlways() async throws {
    let gallery = try Gallery()
    let output = try await HostProcess.run(
      ["run", "kittens", "--config", gallery.endpoint],
      environment: ["COLORTERM": "truecolor", "NO_COLOR": "", "XDG_CACHE_HOME": gallery.folder + "/cache"])
    #expect(output.status == 0, "\(output.stderr)")
    #expect(output.stdout == gallery.text + "\n")
  }

  @Test func noColorAtATerminalShowsTheText() throws {
    let gallery = try Gallery()
    let host = try PseudoTerminal(
      ["run", "kittens", "--config", gallery.endpoint],
      environment: ["COLORTERM": "truecolor", "NO_COLOR": "1", "XDG_CACHE_HOME": gallery.folder + "/cache"])
    try host.waitFor("  3. \(gallery.urls[2])")
    #expect(try host.quit() == 0)
    #expect(!host.all.contains("▀"))
    #expect(!host.all.contains("\u{1B}[38;2;"))
  }
}
