import Foundation
import HostKit

// The plugin registry: `host list` served from a warm cache against `host --version` (the floor of
// any host process), the cold path beside it (every file scanned in a child), and `host run
// counter` with every shipped plugin installed against it with only the counter installed.

/// A fresh cache folder (the host's registry goes in XDG_CACHE_HOME/featurehost).
func freshCacheFolder() -> String {
  var template = Array((NSTemporaryDirectory() + "featurehost-bench-cache-XXXXXX").utf8CString)
  guard let path = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
    fatalError("mkdtemp failed")
  }
  return String(cString: path)
}

/// `host ARGUMENTS` (the executable in `hostFolder`) with its registry in `cache`, in ms.
func timedHost(
  _ arguments: [String], cache: String, hostFolder: String = folder, input: [UInt8] = []
) throws -> Double {
  var environment = ChildProcess.currentEnvironment
  environment["XDG_CACHE_HOME"] = cache
  environment["FEATUREHOST_PLUGIN_PATH"] = nil
  var process = ChildProcess("\(hostFolder)/host", arguments: arguments, environment: environment)
  process.standardInput = .bytes(input)
  return try timedProcess(process) * 1000
}

/// `host --version`, `host list` with a warm registry and with an empty one, alternating within
/// each round so all three see the same machine load. Medians in ms, and the warm/version ratio.
func hostListRegistry(rounds: Int) throws -> (version: Double, warm: Double, cold: Double, ratio: Double) {
  let warmCache = freshCacheFolder()
  _ = try timedHost(["list"], cache: warmCache)
  var version: [Double] = []
  var warm: [Double] = []
  var cold: [Double] = []
  var ratios: [Double] = []
  for _ in 0..<rounds {
    let v = try timedHost(["--version"], cache: warmCache)
    let w = try timedHost(["list"], cache: warmCache)
    let empty = freshCacheFolder()
    cold.append(try timedHost(["list"], cache: empty))
    try? FileManager.default.removeItem(atPath: empty)
    version.append(v)
    warm.append(w)
    ratios.append(w / v)
  }
  try? FileManager.default.removeItem(atPath: warmCache)
  return (median(version), median(warm), median(cold), median(ratios))
}

/// `host run counter` on empty input with every shipped plugin beside the host, and with a copy of
/// the host whose folder holds only the counter; both registries warm. Medians in ms, and the ratio.
func hostRunCounterRegistry(rounds: Int) throws -> (all: Double, only: Double, ratio: Double) {
  let alone = freshCacheFolder()
  let manager = FileManager.default
  try manager.copyItem(atPath: "\(folder)/host", toPath: "\(alone)/host")
  try manager.copyItem(atPath: "\(folder)/libCounter.so", toPath: "\(alone)/libCounter.so")
  let cache = freshCacheFolder()
  _ = try timedHost(["run", "counter"], cache: cache)
  _ = try timedHost(["run", "counter"], cache: cache, hostFolder: alone)
  var all: [Double] = []
  var only: [Double] = []
  var ratios: [Double] = []
  for _ in 0..<rounds {
    let a = try timedHost(["run", "counter"], cache: cache)
    let o = try timedHost(["run", "counter"], cache: cache, hostFolder: alone)
    all.append(a)
    only.append(o)
    ratios.append(a / o)
  }
  try? manager.removeItem(atPath: alone)
  try? manager.removeItem(atPath: cache)
  return (median(all), median(only), median(ratios))
}
