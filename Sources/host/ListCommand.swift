import HostKit

/// `host list`: one line per feature (id, version, ABI, path, needs), then the rejected candidates.
struct ListCommand {
  let console: Console
  let global: Global

  /// Its arguments are read against `CommandTable.list`: `--verbose` adds the sandbox's state.
  func run(_ arguments: ParsedArguments) throws(HostError) -> Int32 {
    let result = global.discover()
    let width = result.plugins.map(\.id.count).max() ?? 0
    let versionWidth = result.plugins.map(\.manifest.version.count).max() ?? 0
    for plugin in result.plugins {
      let id = plugin.id.padding(toLength: width)
      let version = plugin.manifest.version.padding(toLength: versionWidth)
      let needs = plugin.manifest.needs.summary
      console.out("\(id)  \(version)  abi \(plugin.abiMajor).\(plugin.abiMinor)  \(plugin.path)  needs: \(needs)")
    }
    for rejection in result.rejections {
      console.out("rejected  \(rejection.path)  \(rejection.reason)" + (rejection.help.map { "; \($0)" } ?? ""))
    }
    if result.plugins.isEmpty {
      console.warn("no features found")
      console.note("plugin folders searched: \(global.searchedDirectories.joined(separator: ", "))")
    }
    if arguments.has(CommandTable.List.verbose) {
      for line in Sandbox.stateLines(SandboxSettings()) { console.out(line) }
    }
    return 0
  }
}

extension String {
  func padding(toLength length: Int) -> String {
    count >= length ? self : self + String(repeating: " ", count: length - count)
  }
}
