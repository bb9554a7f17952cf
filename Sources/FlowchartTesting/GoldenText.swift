import Flowchart
import Foundation
import Testing

/// Golden text: expectations that a text (a chart's tree, a diagram, a log) equals a stored
/// text, written in the test or kept in a file beside it.
///
/// A mismatch records an issue at the expectation, with a line-by-line diff. Set the
/// environment variable `FLOWCHART_RECORD=1` to rewrite the stored files with the actual
/// texts instead: each file rewritten still fails its test once, so that a recording run
/// cannot pass by accident; run the tests again without the variable to check them.
public enum GoldenText {
  /// The environment variable that turns recording on: `FLOWCHART_RECORD=1`.
  public static let recordVariable = "FLOWCHART_RECORD"

  /// Whether the environment asks to rewrite golden files: `FLOWCHART_RECORD` is set to
  /// anything but empty, `0`, `false` or `no`.
  public static var isRecording: Bool {
    guard let value = ProcessInfo.processInfo.environment[recordVariable] else { return false }
    return !["", "0", "false", "no"].contains(value.lowercased())
  }

  /// The differences between `actual` and `expected` as a report, or `nil` when they are
  /// equal.
  ///
  /// The report is the line-by-line diff an expectation shows: lines only in `expected`
  /// start with `-`, lines only in `actual` with `+`, two lines of context with two
  /// spaces; `@@ -3 +3 @@` gives where each stretch starts in each text. XCTest tests pass
  /// the report to `XCTFail`.
  public static func difference(actual: String, expected: String) -> String? {
    guard actual != expected else { return nil }
    let actualLines = lines(of: actual)
    let expectedLines = lines(of: expected)
    if actualLines == expectedLines {
      let which = actual.hasSuffix("\n") ? "the actual text" : "the expected text"
      return "The texts differ only in the newline at the end: \(which) has it."
    }
    var report = ["The text differs from the expected text (- expected, + actual):"]
    report += LineDiff(expected: expectedLines, actual: actualLines).hunks()
    return report.joined(separator: "\n")
  }

  /// The failure of comparing `actual` with the golden file at `path`, or `nil` when they
  /// are equal; in record mode, or when the file does not exist, writes `actual` there and
  /// says so.
  ///
  /// - Parameters:
  ///   - actual: The text to check.
  ///   - path: The file, absolute or relative to the directory of `filePath`.
  ///   - filePath: The test's file; keep the default.
  /// - Returns: `nil` when the file holds `actual`; otherwise a message for the test's
  ///   failure: the diff, or what was recorded.
  public static func fileDifference(
    actual: String, path: String, filePath: String = #filePath
  ) -> String? {
    fileDifference(actual: actual, path: path, filePath: filePath, recording: isRecording)
  }

  /// ``fileDifference(actual:path:filePath:)``, recording when `recording` is `true`.
  static func fileDifference(
    actual: String, path: String, filePath: String, recording: Bool
  ) -> String? {
    let url = goldenURL(path, filePath: filePath)
    let stored = try? String(contentsOf: url, encoding: .utf8)
    if let stored, stored == actual { return nil }
    if stored == nil || recording {
      do {
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try actual.write(to: url, atomically: true, encoding: .utf8)
      } catch {
        return "Could not record the golden file \(url.path): \(error)"
      }
      let reason =
        stored == nil
        ? "There was no golden file at \(url.path): it now holds the actual text."
        : "\(recordVariable) is set, so the golden file \(url.path) was rewritten with the actual text."
      return reason + " Check it, then run the test again without \(recordVariable)."
    }
    let diff = difference(actual: actual, expected: stored ?? "") ?? ""
    return diff
      + "\nGolden file: \(url.path). To accept the actual text, run the tests with \(recordVariable)=1."
  }

  /// The URL of the golden file `path`, relative to the directory of `filePath`.
  static func goldenURL(_ path: String, filePath: String) -> URL {
    if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
    return URL(fileURLWithPath: filePath).deletingLastPathComponent().appendingPathComponent(path)
  }

  /// The lines of `text`, without the empty line after its last newline.
  static func lines(of text: String) -> [Substring] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    if text.hasSuffix("\n") { lines.removeLast() }
    return lines
  }
}

/// Expects `actual` to equal `expected`; on a mismatch, records an issue at the expectation
/// with a line-by-line diff (see ``GoldenText/difference(actual:expected:)``).
///
/// ```swift
/// expectText(result.pathNames.joined(separator: "\n"), matches: """
///   Willing to exercise?
///   Injured?
///   """)
/// ```
///
/// - Parameters:
///   - actual: The text to check.
///   - expected: The text it must be.
///   - sourceLocation: Where the issue points; keep the default, the caller.
public func expectText(
  _ actual: String, matches expected: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let report = GoldenText.difference(actual: actual, expected: expected) else { return }
  IssueReporting.report(report, sourceLocation: sourceLocation)
}

/// Expects `actual` to equal the golden file at `path`, relative to the directory of the
/// test's file; on a mismatch, records an issue with a line-by-line diff.
///
/// When the file does not exist, or `FLOWCHART_RECORD=1` is set, the file is written with
/// `actual` and the expectation fails once, saying so (see ``GoldenText``).
///
/// ```swift
/// expectText(chart.treeDescription, matchesFile: "Golden/health.txt")
/// ```
///
/// - Parameters:
///   - actual: The text to check.
///   - path: The golden file, absolute or relative to the directory of `filePath`.
///   - filePath: The test's file, whose directory `path` is relative to; keep the default.
///   - sourceLocation: Where the issue points; keep the default, the caller.
public func expectText(
  _ actual: String, matchesFile path: String, filePath: String = #filePath,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  guard let report = GoldenText.fileDifference(actual: actual, path: path, filePath: filePath)
  else { return }
  IssueReporting.report(report, sourceLocation: sourceLocation)
}

/// Expects `chart` to print as `expected`, the tree written one state per line, as a
/// multi-line string literal without the newline that ends the printed tree's last line.
///
/// ```swift
/// expectTree(chart, matches: """
///   Willing to exercise? (S)
///   Y- Lift weights (A)
///   |  Do sit-ups (A) !
///   N- Injured? (S) !
///   """)
/// ```
///
/// - Parameters:
///   - chart: The chart to print.
///   - expected: The tree it must print.
///   - sourceLocation: Where the issue points; keep the default, the caller.
public func expectTree<Context>(
  _ chart: Flowchart<Context>, matches expected: String,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectText(chart.treeDescription, matches: expected + "\n", sourceLocation: sourceLocation)
}

/// Expects `chart` to print as the golden file at `path`, relative to the directory of the
/// test's file; see ``expectText(_:matchesFile:filePath:sourceLocation:)``.
public func expectTree<Context>(
  _ chart: Flowchart<Context>, matchesFile path: String, filePath: String = #filePath,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
  expectText(
    chart.treeDescription, matchesFile: path, filePath: filePath, sourceLocation: sourceLocation)
}

/// A line diff by longest common subsequence, shown as hunks with context.
struct LineDiff {
  /// One line of the diff.
  enum Line {
    case same(Substring)
    case removed(Substring)
    case added(Substring)
  }

  /// How many unchanged lines to show around each change.
  static var context: Int { 2 }
  /// Above this many cells, lines are compared position by position instead: a diff of
  /// huge texts should not take long.
  static var cellLimit: Int { 4_000_000 }

  let lines: [Line]

  init(expected: [Substring], actual: [Substring]) {
    let rows = expected.count
    let columns = actual.count
    guard (rows + 1) * (columns + 1) <= Self.cellLimit else {
      var lines: [Line] = []
      for index in 0..<max(rows, columns) {
        let wanted = index < rows ? expected[index] : nil
        let got = index < columns ? actual[index] : nil
        if let wanted, wanted == got {
          lines.append(.same(wanted))
          continue
        }
        if let wanted { lines.append(.removed(wanted)) }
        if let got { lines.append(.added(got)) }
      }
      self.lines = lines
      return
    }
    // common[i][j]: the longest common subsequence of expected[i...] and actual[j...].
    var common = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
    for row in stride(from: rows - 1, through: 0, by: -1) {
      for column in stride(from: columns - 1, through: 0, by: -1) {
        common[row][column] =
          expected[row] == actual[column]
          ? common[row + 1][column + 1] + 1
          : max(common[row + 1][column], common[row][column + 1])
      }
    }
    var lines: [Line] = []
    var row = 0
    var column = 0
    while row < rows || column < columns {
      if row < rows && column < columns && expected[row] == actual[column] {
        lines.append(.same(expected[row]))
        row += 1
        column += 1
      } else if column < columns
        && (row == rows || common[row][column + 1] >= common[row + 1][column])
      {
        lines.append(.added(actual[column]))
        column += 1
      } else {
        lines.append(.removed(expected[row]))
        row += 1
      }
    }
    // Removals before additions within a change, as diffs show them.
    var ordered: [Line] = []
    var added: [Line] = []
    for line in lines {
      switch line {
      case .same:
        ordered += added
        added = []
        ordered.append(line)
      case .removed: ordered.append(line)
      case .added: added.append(line)
      }
    }
    self.lines = ordered + added
  }

  /// The changes with their context, each stretch headed by where it starts in each text.
  func hunks() -> [String] {
    var shown = [Bool](repeating: false, count: lines.count)
    for (index, line) in lines.enumerated() {
      if case .same = line { continue }
      let low = max(0, index - Self.context)
      let high = min(lines.count - 1, index + Self.context)
      for near in low...high { shown[near] = true }
    }
    var output: [String] = []
    var expectedLine = 1
    var actualLine = 1
    var inHunk = false
    for (index, line) in lines.enumerated() {
      if shown[index] && !inHunk {
        output.append("@@ -\(expectedLine) +\(actualLine) @@")
      }
      inHunk = shown[index]
      switch line {
      case .same(let text):
        if shown[index] { output.append("  " + text) }
        expectedLine += 1
        actualLine += 1
      case .removed(let text):
        output.append("- " + text)
        expectedLine += 1
      case .added(let text):
        output.append("+ " + text)
        actualLine += 1
      }
    }
    return output
  }
}
