import Flowchart
import FlowchartTesting
import Testing

/// Expects `chart` to print exactly `golden`, followed by the newline that ends its last
/// line: FlowchartTesting's `expectTree(_:matches:)`, under the name these tests use.
///
/// Write `golden` as a multi-line string literal, one state per line, as the tree is drawn.
func expectTree<Context>(
  _ chart: Flowchart<Context>, _ golden: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectTree(chart, matches: golden, sourceLocation: sourceLocation)
}

/// Expects `actual` to equal `expected`; on a mismatch the issue shows a line diff.
func expectText(
  _ actual: String, _ expected: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectText(actual, matches: expected, sourceLocation: sourceLocation)
}
