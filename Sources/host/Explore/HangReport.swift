import Foundation
import HostKit

/// Reports a hang found in process and ends the exploration: the hung call's thread cannot be
/// stopped (nor the store closed behind it), so no run can follow in this process.
///
/// The steps are run again in workers, where the call timeout ends a hung worker: when the hang
/// shows there too, it is shrunk there and its transcript runs `host run` in a worker, so `host
/// check` fails on it within the call timeout instead of hanging. Otherwise the steps are
/// written as they were found, in process. Then it exits 1, as a found failure does.
struct HangReport: Sendable {
  let console: Console
  let id: String
  let seed: UInt64
  /// The same exploration, its instances in workers.
  let inWorkers: ExploreRun
  let generator: FlowSteps
  let writers: (inProcess: ExploreTranscript, inWorkers: ExploreTranscript)

  func report(_ steps: [ExploreStep], violation: ContractViolation) -> Never {
    console.clearProgress()
    var found = (steps: steps, violation: violation)
    var writer = writers.inProcess
    if let again = try? inWorkers.run(steps).violation, again.kind == violation.kind {
      found = ExploreCommand.shrink(steps, violation: again, explorer: inWorkers, generator: generator)
      writer = writers.inWorkers
    }
    do throws(HostError) {
      let (file, reproduces) = try writer.write(found.steps, violation: found.violation, seed: seed, number: 1)
      console.out(
        ExploreCommand.line(
          id: id, found: ExploreCommand.Found(violation: found.violation, steps: found.steps, file: file), seed: seed))
      if !reproduces {
        console.warn("\(file) passes under 'host check': the hang did not show in a plain run (timing?)")
      }
    } catch {
      console.report(error)
    }
    console.note(
      "a call hung in process, where its thread cannot be stopped: exploring ends here"
        + (writer.hostArguments.contains("process") ? " (shrunk in workers, where the call timeout ends it)" : ""))
    exit(1)
  }
}
