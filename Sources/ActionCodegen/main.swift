import Foundation

// Writes the flat-action decoder of a feature module: for every case of the feature's `Action`
// enum whose payload it understands, code that builds the case straight from the members of
// `{"type": "case", ...}`, with the meaning synthesized Codable gives them. Anything else (a case
// it cannot read, a custom `init(from:)` or `CodingKeys`) is left to Codable.
//
// Usage: ActionCodegen OUTPUT.swift SOURCE.swift...

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
  FileHandle.standardError.write(Data("usage: ActionCodegen OUTPUT.swift SOURCE.swift...\n".utf8))
  exit(2)
}
let sources = arguments.dropFirst().map { path in
  (name: (path as NSString).lastPathComponent, text: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
}
let generated = ActionDecoderSource(sources: sources).text
do {
  // Unchanged output keeps its date, so nothing downstream rebuilds.
  if (try? String(contentsOfFile: output, encoding: .utf8)) != generated {
    try generated.write(toFile: output, atomically: true, encoding: .utf8)
  }
} catch {
  FileHandle.standardError.write(Data("error: cannot write \(output): \(error)\n".utf8))
  exit(1)
}
