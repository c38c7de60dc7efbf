import FeatureTesting
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The prompt always comes back: output that arrives while the prompt is shown (an async view,
/// a time travel's view) is drawn above it, and the prompt and the half-typed line are drawn
/// again below it, at every TERM, `dumb` included. Read from the screen tmux shows.
@Suite(.serialized, .enabled(if: TmuxScreen.isAvailable))
struct PromptReturnTests {
  /// A catalog server on 127.0.0.1 that takes the request and answers only when `release` is
  /// called, so the page arrives after the prompt is drawn.
  final class HeldCatalog: Sendable {
    let port: Int
    private let socket: Int32
    private let released = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    init(urls: [String]) throws {
      (socket, port) = try LoopbackSocket.bind(listening: 4)
      let body = "[" + urls.map { #"{"url":"\#($0)"}"# }.joined(separator: ",") + "]"
      let (socket, released, done) = (self.socket, self.released, self.done)
      Thread {
        defer { done.signal() }
        let client = accept(socket, nil, nil)
        guard client >= 0 else { return }
        defer { close(client) }
        // The request, to its blank line.
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) {
          let count = recv(client, &buffer, buffer.count, 0)
          guard count > 0 else { return }
          request += buffer[0..<count]
        }
        released.wait()
        let answer =
          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
          + "Connection: close\r\n\r\n\(body)"
        _ = answer.withCString { send(client, $0, strlen($0), 0) }
      }.start()
    }

    /// Lets the answer go.
    func release() { released.signal() }

    deinit {
      released.signal()
      shutdown(socket, Int32(SHUT_RDWR))
      close(socket)
      done.wait()
    }
  }

  static let cats = ["https://cats.example/a.jpg", "https://cats.example/b.jpg"]

  @Test(arguments: ["dumb", "xterm-256color"])
  func kittensFirstPageAfterThePromptBringsThePromptAndTheTypedLineBack(term: String) throws {
    let scratch = try JournalScratch()
    let server = try HeldCatalog(urls: Self.cats)
    let host = try TmuxScreen(
      ["run", "kittens", "--config", "endpoint=http://127.0.0.1:\(server.port)/"],
      environment: ["TERM": term, "XDG_STATE_HOME": scratch.file("state")], columns: 80)
    // given the prompt, a line half typed, and the first page still on its way
    try host.waitForLastLine("kittens>")
    try host.type(":sta")
    try host.waitForLastLine("kittens> :sta")
    // when the page arrives
    server.release()
    // then the view is drawn above, and the prompt comes back below it with the typed line
    let screen = try host.waitForScreen("the page and the prompt under it") {
      $0.contains("  2. https://cats.example/b.jpg") && $0.last == "kittens> :sta"
    }
    let view = try #require(screen.firstIndex { $0.hasPrefix("Kittens — 2 images") }, "\(screen)")
    #expect(!screen[view...].dropLast().contains { $0.hasPrefix("kittens>") }, "\(screen)")
    // and the line goes on where it was
    try host.type("te\r")
    try host.waitForScreen("the state") { $0.contains { $0.contains(#""isLoading":false"#) } }
    try host.waitForLastLine("kittens>")
    try host.type(":quit\r")
    #expect(try host.waitForExit() == 0)
  }

  @Test(arguments: ["dumb", "xterm-256color"])
  func aTimeTravelsViewComesAboveTheNextPrompt(term: String) throws {
    let scratch = try JournalScratch()
    let host = try TmuxScreen(
      ["run", "counter"], environment: ["TERM": term, "XDG_STATE_HOME": scratch.file("state")], columns: 80, rows: 200)
    try host.waitForLastLine("counter>")
    try host.type("increment\r")
    try host.waitForScreen("count 1") { $0.contains("  count:  1") && $0.last == "counter>" }
    // when travelling back and forth, each view printed while the next prompt may be drawn
    for round in 1...5 {
      try host.type(":undo\r")
      try host.waitForScreen(":undo \(round)") {
        $0.filter { $0 == "back at seq 1" }.count == round && $0.last == "counter>"
      }
      try host.type(":redo\r")
      try host.waitForScreen(":redo \(round)") {
        $0.filter { $0.hasPrefix("forward at seq") }.count == round && $0.last == "counter>"
      }
    }
    // then no view was drawn on a prompt's line, and the last prompt is alone on its line
    let screen = try host.screen()
    let prompts = screen.filter { $0.hasPrefix("counter>") }
    #expect(
      prompts.allSatisfy { ["counter>", "counter> increment", "counter> :undo", "counter> :redo"].contains($0) },
      "\(screen.joined(separator: "\n"))")
    #expect(screen.filter { $0 == "  count:  0" }.count == 5 + 1)
    try host.type(":quit\r")
    #expect(try host.waitForExit() == 0)
  }
}
