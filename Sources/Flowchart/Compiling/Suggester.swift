// "Did you mean": the declared name closest to an unknown one, by edit distance, within
// a budget of work that one compile's suggestions share.

/// Finds the declared name closest to an unknown one, within a budget of work shared by
/// every suggestion of one compile: a suggestion is a courtesy, and must not make
/// compiling a chart with many bad references, or very long names, slow. `package`, so that
/// front ends (FlowchartFiles' readers, the tool's `--decide`) suggest with the same rule.
package struct Suggester {
  /// How many cells of edit-distance tables all suggestions may fill together: a few
  /// milliseconds' work.
  static var budget: Int { 4_000_000 }
  /// How many unknown names may get a suggestion.
  static var suggestions: Int { 20 }

  private(set) var cellsLeft = Suggester.budget
  private(set) var suggestionsLeft = Suggester.suggestions

  /// A suggester with the whole budget.
  package init() {}

  /// The name of `names` closest to `name` by edit distance, ignoring case, if it is close
  /// enough to be a likely typo and the budget allows looking.
  package mutating func closestName(
    to name: String, in names: some Collection<String>
  ) -> (name: String, offset: Int)? {
    guard suggestionsLeft > 0, cellsLeft > 0, names.count <= 10_000 else { return nil }
    suggestionsLeft -= 1
    let target = Array(name.lowercased())
    let limit = max(2, target.count / 3)
    var best: (name: String, offset: Int, distance: Int)?
    var previous: [Int] = []
    var current: [Int] = []
    for (offset, candidate) in names.enumerated() {
      // Counting characters costs a step per byte, charged to the budget; a length that
      // differs by more than the limit cannot be within it.
      cellsLeft -= candidate.utf8.count
      if cellsLeft <= 0 { break }
      let length = candidate.count
      if abs(length - target.count) > limit { continue }
      let other = Array(candidate.lowercased())
      let cells = (target.count + 1) * (2 * limit + 1)
      guard cellsLeft >= cells else {
        cellsLeft = 0
        break
      }
      guard
        let distance = boundedEditDistance(
          target, other, limit: min(limit, best?.distance ?? limit), previous: &previous,
          current: &current)
      else { continue }
      if distance < best?.distance ?? .max
        || (distance == best?.distance && candidate < best!.name)
      {
        best = (candidate, offset, distance)
      }
    }
    return best.map { ($0.name, $0.offset) }
  }

  /// The edit distance between `a` and `b` if it is at most `limit`, else `nil`: fills
  /// only the band of cells within `limit` of the diagonal, and stops at a row whose every
  /// cell exceeds it.
  private mutating func boundedEditDistance(
    _ a: [Character], _ b: [Character], limit: Int, previous: inout [Int], current: inout [Int]
  ) -> Int? {
    if abs(a.count - b.count) > limit { return nil }
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    let outside = limit + 1
    previous = Array(0...b.count).map { min($0, outside) }
    current = [Int](repeating: outside, count: b.count + 1)
    for i in 1...a.count {
      let low = max(1, i - limit)
      let high = min(b.count, i + limit)
      current[0] = min(i, outside)
      if low > 1 { current[low - 1] = outside }
      var rowMinimum = current[0]
      if low <= high {
        for j in low...high {
          let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
          let value = min(previous[j] + 1, current[j - 1] + 1, substitution, outside)
          current[j] = value
          rowMinimum = min(rowMinimum, value)
        }
        cellsLeft -= high - low + 1
      }
      if high < b.count { current[high + 1] = outside }
      if rowMinimum > limit { return nil }
      swap(&previous, &current)
    }
    let distance = previous[b.count]
    return distance <= limit ? distance : nil
  }
}
