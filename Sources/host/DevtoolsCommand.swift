import HostKit

/// `host devtools FILE`: serves the devtools page for a recorded journal until input ends.
struct DevtoolsCommand {
  let console: Console
  let global: Global

  /// Its arguments are read against `CommandTable.devtools`: one journal file.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let file = arguments.positionals[0]
    let page = try Self.pageFolder()
    let instances = try Isolation.factory(arguments)
    let found = global.discover()
    let subject = try RecordedDevtools(path: file, instances: instances) { id, journal throws(HostError) in
      guard let record = found.plugin(id: id) else {
        throw HostError(
          "journal '\(journal)' is of feature '\(id)', which is not among the plugins found",
          help: "known features: \(found.ids.joined(separator: ", ")); add its folder with --plugins DIR")
      }
      // Isolated, a worker loads it: no code of it runs here.
      return instances.runsPluginsHere ? try record.load() : record.described()
    }
    let server = try DevtoolsServer(subject: subject, hub: DevtoolsHub(), page: page, images: Self.images())
    defer { server.stop() }
    console.err("devtools: \(server.url)")
    console.note("serving \(file) until the input ends (Ctrl-D) or ':quit'")
    while let line = readLine() {
      if line.trimmingWhitespace().hasPrefix(":q") { break }
    }
    return 0
  }

  /// How the page's thumbnails are fetched: as the terminal's are, sharing its disk cache.
  static func images() -> ImageLoader.Settings? {
    guard let executable = OwnExecutable.path,
      let folder = ImageCache.defaultFolder(environment: ChildProcess.currentEnvironment)
    else { return nil }
    return ImageLoader.Settings(executable: executable, cache: ImageCache(folder: folder))
  }

  /// The page's folder, and libmicrohttpd checked: what is missing is said with how to get it.
  static func pageFolder() throws(HostError) -> String {
    guard HTTPServer.isAvailable else {
      throw HostError(
        "--devtools needs libmicrohttpd (libmicrohttpd.so.12), which is not installed",
        help: "install it: apt-get install libmicrohttpd12; the host runs the same without --devtools")
    }
    guard let page = DevtoolsServer.pageFolder() else {
      throw HostError(
        "the devtools page's files (Devtools/index.html) were not found above the host executable",
        help: "set FEATUREHOST_DEVTOOLS to the folder holding index.html, devtools.js and devtools.css")
    }
    return page
  }
}
