import HostKit

/// `host list`: one line per feature (id, version, ABI, path), then the rejected candidates.
struct ListCommand {
  static let usage = """
    usage: host [--plugins DIR]... list

    Lists every feature found in the plugin folders, one per line:
      ID  VERSION  abi MAJOR.MINOR  PATH
    then each plugin file that was not loaded, with the reason:
      rejected  PATH  REASON
    """

  let console: Console
  let global: Global

  func run(_ options: [String]) throws(HostError) -> Int32 {
    if options.contains("-h") || options.contains("--help") {
      console.out(Self.usage)
      return 0
    }
    if let extra = options.first { throw .usage("'list' takes no arguments, got '\(extra)'") }
    let result = global.discover()
    let width = result.plugins.map(\.id.count).max() ?? 0
    let versionWidth = result.plugins.map(\.manifest.version.count).max() ?? 0
    for plugin in result.plugins {
      let id = plugin.id.padding(toLength: width)
      let version = plugin.manifest.version.padding(toLength: versionWidth)
      console.out("\(id)  \(version)  abi \(plugin.abiMajor).\(plugin.abiMinor)  \(plugin.path)")
    }
    for rejection in result.rejections {
      console.out("rejected  \(rejection.path)  \(rejection.reason)")
    }
    if result.plugins.isEmpty {
      console.warn("no features found")
      console.note("plugin folders searched: \(global.searchedDirectories.joined(separator: ", "))")
    }
    return 0
  }
}

extension String {
  func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}
