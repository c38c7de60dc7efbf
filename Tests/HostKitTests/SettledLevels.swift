/// The view the levels feature draws once its two levels met: what a run in a pipe ends with.
enum SettledLevels {
  /// The view at `level`, each bar `bar` cells wide, with its final newline.
  static func view(at level: Int, bar: Int) -> String {
    let cells = String(repeating: "█", count: bar)
    return "Levels — settled at \(level)\n  left  \(level) \(cells)\n  right \(level) \(cells)\n"
  }
}
