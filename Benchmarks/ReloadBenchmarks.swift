import Foundation
import HostKit

// Hot reload: from a new build landing on disk to the view drawn again.

/// Hears the views a runtime's stores draw; each one signals.
private final class ViewSignal: FeatureRenderer {
  let drawn = DispatchSemaphore(value: 0)
  var followsViews: Bool { true }
  func draws(on reason: ShowReason) -> Bool { false }
  func show(_ features: [PresentedFeature], focus: PresentedFeature, reason: ShowReason) {}
  func finish(_ features: [PresentedFeature], focus: PresentedFeature) {}
  func hear(_ event: StoreEvent, from origin: StoreOrigin) {
    if case .viewChanged = event { drawn.signal() }
  }
}

/// Prints errors; a reload that fails makes the measurement wait forever, so it must say why.
private final class ErrorPrinter: RuntimeReporter {
  func report(_ error: HostError) { FileHandle.standardError.write(Data("error: \(error.message)\n".utf8)) }
  func notice(_ notice: RuntimeNotice) {}
}

/// reload.counter: the median time, in ms, from a rebuilt libCounter.so renamed over the watched
/// file (written beforehand, untimed) to the counter's view drawn again, through a watched
/// SessionRuntime: the watch's quiet period, the copy and hash, the scanner child, a new instance
/// (a new worker with `workers`, started while the scanner runs), snapshot, restore, `restored`
/// and render.
func reloadCounter(reloads: Int, workers: Bool) throws -> Double {
  let plugins = try FileManager.default.url(
    for: .itemReplacementDirectory, in: .userDomainMask, appropriateFor: URL(fileURLWithPath: folder), create: true
  ).path
  defer { try? FileManager.default.removeItem(atPath: plugins) }
  chmod(plugins, 0o700)
  let file = "\(plugins)/libCounter.so"
  let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(folder)/libCounter.so"))
  let next = "\(plugins)/next.so"
  /// A build with other bytes each time (padding after the ELF image): each is a real change.
  func write(_ round: Int) throws {
    try (bytes + Data(count: round)).write(to: URL(fileURLWithPath: next))
    chmod(next, 0o755)
  }
  /// The change: the new build renamed over the watched file, as a linker that writes a temporary
  /// file does.
  func land() throws {
    guard rename(next, file) == 0 else { throw HostError("rename failed: errno \(errno)") }
  }
  try write(0)
  try land()
  let counter = loadPlugin("Counter")
  var settings = RunSettings()
  settings.instances = workers ? workerFactory : .inProcess
  settings.reload.watches = true
  settings.reload.loading = workers ? .workers : .inProcess
  settings.reload.scanner =
    ScannerProcess(executable: "\(folder)/host", timeout: .seconds(10)) { ["__scan", $0] }.scanner
  let signal = ViewSignal()
  let runtime = SessionRuntime(
    plugins: [
      PluginRecord(
        path: file, manifest: counter.manifest, abiMajor: counter.abiMajor, abiMinor: counter.abiMinor,
        structSize: counter.structSize)
    ], flow: .single("counter"), settings: settings, renderers: [signal], reporter: ErrorPrinter())
  defer { runtime.close() }
  try runtime.open()
  signal.drawn.wait()
  var times: [Double] = []
  for round in 1...reloads {
    try write(round)
    times.append(
      try seconds {
        try land()
        signal.drawn.wait()
      } * 1000)
  }
  return median(times)
}
