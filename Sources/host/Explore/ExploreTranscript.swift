import Foundation
import HostKit

/// Writes a shrunk failure as a transcript: the steps typed into `host run ID`, with what a
/// feature that keeps the contract prints, so `host check` runs it and fails where it breaks.
///
/// The host's own output is taken from a run of the transcript (as `host check --update` does);
/// only the lines of the failure are put back as the contract wants them.
struct ExploreTranscript {
  let id: String
  /// What follows `host` on the `$` line: `run ID` or `run --flow FILE` (nothing for the main
  /// flow), then `--config`, `--isolation` and the like.
  let hostArguments: [String]
  let pluginDirectories: [String]
  let folder: String

  /// Writes the transcript of `steps` into the folder as ID-explore-N.transcript (the first N
  /// from `number` not taken); returns its path.
  func write(_ steps: [ExploreStep], violation: ContractViolation, seed: UInt64, number: Int) throws(HostError)
    -> (path: String, reproduces: Bool)
  {
    let directory = URL(fileURLWithPath: folder).standardizedFileURL.path
    var number = number
    var path: String {
      "\(folder.hasSuffix("/") ? String(folder.dropLast()) : folder)/\(id)-explore-\(number).transcript"
    }
    while FileManager.default.fileExists(atPath: path) { number += 1 }
    let inputs = Self.inputs(steps, kind: violation.kind)
    let command = (["$ host"] + hostArguments.map(Self.quoted)).joined(separator: " ")
    let header = [
      "# host explore \(id) --seed \(seed): \(violation.summary) (\(violation.kind))",
      "# \(violation)".replacing("\n", with: " "),
      "# Expected: what the host printed, less the failure (an error, a :check that fails, a state a refusal changed).",
      command,
    ]
    let draftText = (header + inputs.map { "> \($0)" }).joined(separator: "\n") + "\n"
    let runner = TranscriptRunner(
      hostExecutable: try OwnExecutable.required("to run the transcript"), pluginDirectories: pluginDirectories,
      stepTimeout: .seconds(30))
    let actual: [String]
    do {
      let draft = try Transcript(parsing: draftText, directory: directory)
      actual = draft.rendered(with: runner.run(draft))
    } catch {
      throw HostError("cannot write the transcript of \(id)'s failure: \(error)")
    }
    let text = Self.expected(actual, kind: violation.kind, id: id).joined(separator: "\n") + "\n"
    do {
      try text.write(toFile: path, atomically: true, encoding: .utf8)
    } catch {
      throw HostError(
        "cannot write '\(path)': \(SystemReason.of(error, naming: path))", help: "name another folder with --out DIR")
    }
    // Run as `host check` would: it must fail there too.
    let reproduces: Bool
    do {
      let written = try Transcript(parsing: text, directory: directory)
      reproduces = !written.matches(runner.run(written))
    } catch {
      reproduces = false
    }
    return (path, reproduces)
  }

  /// The lines typed: the steps; then `:check` for a rule it checks; for a refusal, `:state`
  /// before and after the refused action.
  static func inputs(_ steps: [ExploreStep], kind: String) -> [String] {
    let lines = steps.map(\.line)
    switch kind {
    case "crash", "hang", "error", "lifecycle": return lines
    case "refusal": return lines.dropLast() + [":state"] + lines.suffix(1) + [":state"]
    default: return lines + [":check"]
    }
  }

  /// `actual` with the failure's lines as the contract wants them: no error after the last
  /// line typed; `:check` passing; the state after a refusal as it was before.
  static func expected(_ actual: [String], kind: String, id: String) -> [String] {
    guard let lastInput = actual.lastIndex(where: { $0.hasPrefix(">") }) else { return actual }
    var result = Array(actual[...lastInput])
    let after = actual[(lastInput + 1)...]
    switch kind {
    case "refusal":
      // The output of the `:state` before the refused action.
      let states = actual.indices.filter { actual[$0] == "> :state" }
      let before = states.count >= 2 ? actual[states[states.count - 2] + 1] : nil
      var replaced = false
      for line in after {
        if !replaced, let before, !line.hasPrefix("!"), !line.hasPrefix("^D") {
          result.append(before)
          replaced = true
        } else {
          result.append(line)
        }
      }
    case "crash", "hang", "error", "lifecycle":
      result += after.filter { !$0.hasPrefix("!") }
    default:
      // `error: ID: ...`: in a flow, the focused feature's id.
      let failed = after.first { $0.hasPrefix("! error: ") }.flatMap { $0.dropFirst(9).split(separator: ":").first }
      result.append(ColonCommand.checkPassed(failed.map(String.init) ?? id))
      result += after.filter { !$0.hasPrefix("!") }
    }
    return result
  }

  /// A word as a transcript's `$` line reads it back.
  static func quoted(_ word: String) -> String {
    let plain = word.allSatisfy { $0.isLetter || $0.isNumber || "-_=./:,".contains($0) }
    return plain ? word : "'" + word.replacing("'", with: "'\\''") + "'"
  }
}
