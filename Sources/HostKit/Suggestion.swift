/// "Did you mean" for mistyped names.
public enum Suggestion {
  /// The candidate closest to `input`, if it is close enough to be a likely typo.
  public static func closest(to input: String, in candidates: [String]) -> String? {
    // A word longer than every candidate by more than the edits allowed matches none: checked on
    // the byte count first, so a huge word costs no table and no lowercasing.
    let longest = candidates.map(\.utf8.count).max() ?? 0
    guard input.utf8.count <= 4 * (longest + 3) else { return nil }
    let limit = max(1, min(3, input.count / 3 + 1))
    let lowered = input.lowercased()
    var best: (name: String, distance: Int)?
    for candidate in candidates where abs(candidate.count - input.count) <= limit {
      let distance = editDistance(lowered, candidate.lowercased())
      if distance <= limit, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
    }
    if let best { return best.name }
    return candidates.first { $0.hasPrefix(input) && !input.isEmpty }
  }

  /// Levenshtein distance counting a swap of neighbours as one edit.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}
