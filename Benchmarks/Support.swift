import Foundation
import HostKit

// Shared by every measurement: timing, reporting and loading the built plugins.

/// The folder of this executable, where the release build puts the plugin libraries.
let folder: String = {
  guard let folder = PluginDiscovery.buildFolder else { fatalError("cannot find the build folder") }
  return folder
}()

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

/// `count` rounds of `first` and `second` measured side by side, each of them first in every
/// other round (on this shared machine the one measured second in every round was favoured or
/// hurt by the first's load): the pairs, in `(first, second)` order.
func alternating(_ count: Int, _ first: () throws -> Double, _ second: () throws -> Double) rethrows
  -> [(Double, Double)]
{
  try (0..<count).map { round in
    if round % 2 == 1 {
      let later = try second()
      return (try first(), later)
    }
    return (try first(), try second())
  }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
  let start = DispatchTime.now().uptimeNanoseconds
  try body()
  return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// The measurements named on the command line.
let selected = Array(CommandLine.arguments.dropFirst())

/// Whether `name` was asked for (all are, when no name is given).
func wanted(_ name: String) -> Bool { selected.isEmpty || selected.contains { name.hasPrefix($0) } }

func report(_ name: String, _ value: Double, _ unit: String) {
  // Ratios to two places: a target like 1.15x is judged on them.
  let text =
    unit == "x"
    ? String(format: "%.2f", value) : value < 100 ? String(format: "%.1f", value) : String(Int(value.rounded()))
  print("\(name): \(text) \(unit)")
}

func loadPlugin(_ name: String) -> LoadedPlugin {
  do {
    return try PluginLoader.load("\(folder)/lib\(name).so")
  } catch {
    FileHandle.standardError.write(Data("error: \(error)\nhelp: run 'swift build -c release' first\n".utf8))
    exit(1)
  }
}

/// An environment variable's value.
func environment(_ name: String) -> String? { ProcessInfo.processInfo.environment[name] }
