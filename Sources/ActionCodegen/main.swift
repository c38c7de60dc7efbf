import Foundation

// Writes what FeatureKit derives from a feature module's sources, so its author writes it once:
// - the flat-action decoder: for every case of the feature's `Action` enum whose payload it
//   understands, code that builds the case straight from the members of `{"type": "case", ...}`,
//   with the meaning synthesized Codable gives them (a custom `init(from:)` or `CodingKeys`
//   leaves it all to Codable);
// - the action catalogue, from the cases and their `///` comments (`ActionCatalogueSource`),
//   unless the manifest lists `actions:` by hand;
// - `init(config:)` and `initialState()` where the author wrote none (`FeatureDefaultsSource`).
// A comment or case the catalogue cannot use is a build error at its line.
//
// Usage: ActionCodegen OUTPUT.swift SOURCE.swift...

let arguments = CommandLine.arguments.dropFirst()
guard let output = arguments.first else {
  FileHandle.standardError.write(Data("usage: ActionCodegen OUTPUT.swift SOURCE.swift...\n".utf8))
  exit(2)
}
let sources = arguments.dropFirst().map { path in
  (name: path, text: (try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
}
let generated: String
do {
  generated = try GeneratedSource(sources: sources).text
} catch {
  FileHandle.standardError.write(Data((error.diagnostic + "\n").utf8))
  exit(1)
}
do {
  // Unchanged output keeps its date, so nothing downstream rebuilds.
  if (try? String(contentsOfFile: output, encoding: .utf8)) != generated {
    try generated.write(toFile: output, atomically: true, encoding: .utf8)
  }
} catch {
  FileHandle.standardError.write(Data("error: cannot write \(output): \(error)\n".utf8))
  exit(1)
}
