/// A line-by-line diff (longest common subsequence), rendered in the unified style people know
/// from `diff -u`: `-` for the expected side, `+` for the actual side.
public enum LineDiff {
  public enum Edit: Sendable, Equatable {
    case same(String)
    /// Only in the old (expected) lines.
    case removed(String)
    /// Only in the new (actual) lines.
    case added(String)
  }

  /// The edits that turn `old` into `new`, in order.
  public static func edits(_ old: [String], _ new: [String]) -> [Edit] {
    // Common ends first: most diffs here are a few changed lines in a long text.
    var prefix = 0
    while prefix < old.count, prefix < new.count, old[prefix] == new[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < old.count - prefix, suffix < new.count - prefix,
      old[old.count - 1 - suffix] == new[new.count - 1 - suffix]
    {
      suffix += 1
    }
    let a = Array(old[prefix..<(old.count - suffix)])
    let b = Array(new[prefix..<(new.count - suffix)])
    var middle: [Edit] = []
    if a.count * b.count > 4_000_000 {
      // Too large for the table: show the block as replaced rather than spend the memory.
      middle = a.map(Edit.removed) + b.map(Edit.added)
    } else {
      middle = longestCommonSubsequence(a, b)
    }
    return old[..<prefix].map(Edit.same) + middle + old[(old.count - suffix)...].map(Edit.same)
  }

  private static func longestCommonSubsequence(_ a: [String], _ b: [String]) -> [Edit] {
    let width = b.count + 1
    // lengths[i * width + j]: the LCS length of a[i...] and b[j...].
    var lengths = [Int](repeating: 0, count: (a.count + 1) * width)
    for i in stride(from: a.count - 1, through: 0, by: -1) {
      for j in stride(from: b.count - 1, through: 0, by: -1) {
        lengths[i * width + j] =
          a[i] == b[j]
          ? lengths[(i + 1) * width + j + 1] + 1
          : max(lengths[(i + 1) * width + j], lengths[i * width + j + 1])
      }
    }
    var edits: [Edit] = []
    var i = 0
    var j = 0
    while i < a.count || j < b.count {
      if i < a.count, j < b.count, a[i] == b[j] {
        edits.append(.same(a[i]))
        i += 1
        j += 1
      } else if j < b.count, i == a.count || lengths[i * width + j + 1] >= lengths[(i + 1) * width + j] {
        edits.append(.added(b[j]))
        j += 1
      } else {
        edits.append(.removed(a[i]))
        i += 1
      }
    }
    // Removals before additions inside each changed run, as diff -u shows them.
    return regroup(edits)
  }

  private static func regroup(_ edits: [Edit]) -> [Edit] {
    var result: [Edit] = []
    var removed: [Edit] = []
    var added: [Edit] = []
    func flush() {
      result += removed + added
      removed.removeAll()
      added.removeAll()
    }
    for edit in edits {
      switch edit {
      case .same:
        flush()
        result.append(edit)
      case .removed: removed.append(edit)
      case .added: added.append(edit)
      }
    }
    flush()
    return result
  }

  /// A unified diff with `@@ -l,n +l,n @@` hunk headers and `context` lines around each change,
  /// or "" when the texts are equal.
  public static func unified(
    old: [String], new: [String], oldName: String, newName: String, context: Int = 3
  ) -> String {
    let all = edits(old, new)
    guard all.contains(where: { if case .same = $0 { false } else { true } }) else { return "" }
    var lines = ["--- \(oldName)", "+++ \(newName)"]
    for hunk in hunks(all, context: context) {
      lines.append(
        "@@ -\(range(hunk.oldStart, hunk.oldCount)) +\(range(hunk.newStart, hunk.newCount)) @@")
      lines += hunk.edits.map(render)
    }
    return lines.joined(separator: "\n")
  }

  /// The changed lines with `context` lines around them and `...` between distant changes,
  /// without headers: for short texts such as a pretty-printed state.
  public static func compact(old: [String], new: [String], context: Int = 3) -> String {
    hunks(edits(old, new), context: context)
      .map { $0.edits.map(render).joined(separator: "\n") }
      .joined(separator: "\n  ...\n")
  }

  public static func render(_ edit: Edit) -> String {
    switch edit {
    case .same(let line): " \(line)"
    case .removed(let line): "-\(line)"
    case .added(let line): "+\(line)"
    }
  }

  struct Hunk {
    var oldStart: Int
    var oldCount = 0
    var newStart: Int
    var newCount = 0
    var edits: [Edit] = []
  }

  static func hunks(_ edits: [Edit], context: Int) -> [Hunk] {
    // Positions (1-based) of each edit in the old and new texts.
    var positions: [(old: Int, new: Int)] = []
    var oldLine = 1
    var newLine = 1
    for edit in edits {
      positions.append((oldLine, newLine))
      switch edit {
      case .same:
        oldLine += 1
        newLine += 1
      case .removed: oldLine += 1
      case .added: newLine += 1
      }
    }
    let changed = edits.indices.filter { if case .same = edits[$0] { false } else { true } }
    var ranges: [ClosedRange<Int>] = []
    for index in changed {
      let range = max(0, index - context)...min(edits.count - 1, index + context)
      if let last = ranges.last, range.lowerBound <= last.upperBound + 1 {
        ranges[ranges.count - 1] = last.lowerBound...range.upperBound
      } else {
        ranges.append(range)
      }
    }
    return ranges.map { range in
      var hunk = Hunk(oldStart: positions[range.lowerBound].old, newStart: positions[range.lowerBound].new)
      for index in range {
        let edit = edits[index]
        hunk.edits.append(edit)
        switch edit {
        case .same:
          hunk.oldCount += 1
          hunk.newCount += 1
        case .removed: hunk.oldCount += 1
        case .added: hunk.newCount += 1
        }
      }
      return hunk
    }
  }

  /// `start,count` as diff -u writes it (an empty side starts one line earlier).
  private static func range(_ start: Int, _ count: Int) -> String {
    count == 0 ? "\(start - 1),0" : count == 1 ? "\(start)" : "\(start),\(count)"
  }
}
