import Flowchart
import Testing

/// Expects `chart` to print exactly `golden`, followed by the newline that ends its last
/// line. On a mismatch, the issue lists each differing line.
///
/// Write `golden` as a multi-line string literal, one state per line, as the tree is drawn.
func expectTree<Context>(
  _ chart: Flowchart<Context>, _ golden: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectText(chart.treeDescription, golden + "\n", sourceLocation: sourceLocation)
}

/// Expects `actual` to equal `expected`; on a mismatch the issue shows a line diff.
func expectText(
  _ actual: String, _ expected: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard actual != expected else { return }
  Issue.record(
    Comment(rawValue: lineDiff(actual: actual, expected: expected)),
    sourceLocation: sourceLocation)
}

/// The lines where `actual` and `expected` differ, `-` for expected and `+` for actual,
/// then the whole actual text.
func lineDiff(actual: String, expected: String) -> String {
  let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
  let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
  var report = ["Text differs (- expected, + actual):"]
  for index in 0..<max(actualLines.count, expectedLines.count) {
    let wanted = index < expectedLines.count ? expectedLines[index] : nil
    let got = index < actualLines.count ? actualLines[index] : nil
    guard wanted != got else { continue }
    report.append("line \(index + 1):")
    report.append("  - " + (wanted.map { "«\($0)»" } ?? "(no line)"))
    report.append("  + " + (got.map { "«\($0)»" } ?? "(no line)"))
  }
  report.append("Actual text:")
  report.append(actual)
  return report.joined(separator: "\n")
}
