import Foundation

/// One line of the results table: a workload measured for Flowchart and, usually, for its
/// baseline in the same process.
struct ReportRow: Sendable {
  /// The table section the row belongs to (`sync`, `async`, `dispatch`, `compile`,
  /// `print`, `memory`); the text table leaves a blank line between sections.
  var group: String
  /// What was measured, as shown in the table.
  var workload: String
  /// The unit of both sides' values, such as `ns/transition`.
  var unit: String
  /// Flowchart's values over the repetitions.
  var flowchart: Samples
  /// The baseline's values over the same, interleaved repetitions; `nil` for a figure
  /// that has no baseline of its own (bytes per state, time per state).
  var baseline: Samples?
  /// The largest acceptable ratio of medians, when the benchmark issue sets one.
  var targetRatio: Double?

  /// Flowchart's median over the baseline's.
  var medianRatio: Double? { baseline.map { flowchart.median / $0.median } }

  /// Flowchart's minimum over the baseline's.
  var minRatio: Double? { baseline.map { flowchart.min / $0.min } }

  /// Whether the median ratio is within the target; `nil` when there is no target.
  var meetsTarget: Bool? {
    guard let targetRatio, let medianRatio else { return nil }
    return medianRatio <= targetRatio
  }
}

/// The results of one run of the benchmark executable, and their text and Markdown forms.
struct Report: Sendable {
  /// The configuration the rows were measured with.
  var configuration: Configuration
  /// The rows, in the order measured.
  var rows: [ReportRow] = []
  /// Explanations printed under the table: what each baseline is, checksums, caveats.
  var notes: [String] = []

  /// Adds the rows and notes of `other`, measured with the same configuration.
  mutating func append(_ other: Report) {
    rows += other.rows
    notes += other.notes
  }

  private static let headers = [
    "Workload", "Unit", "Flowchart median", "Flowchart min", "Baseline median", "Baseline min",
    "Ratio median", "Ratio min", "Target",
  ]

  private func cells(of row: ReportRow) -> [String] {
    let dash = "—"
    let target: String
    if let targetRatio = row.targetRatio, let meets = row.meetsTarget {
      target = "≤ \(Self.formatLimit(targetRatio))× \(meets ? "ok" : "MISS")"
    } else {
      target = ""
    }
    return [
      row.workload, row.unit,
      Self.format(row.flowchart.median), Self.format(row.flowchart.min),
      row.baseline.map { Self.format($0.median) } ?? dash,
      row.baseline.map { Self.format($0.min) } ?? dash,
      row.medianRatio.map { Self.format($0) + "×" } ?? dash,
      row.minRatio.map { Self.format($0) + "×" } ?? dash,
      target,
    ]
  }

  private var summary: String {
    var mode = configuration.isQuick ? "quick (sizes reduced; figures not meaningful)" : "full"
    #if DEBUG
      mode += ", DEBUG BUILD (unoptimized: build with -c release for meaningful figures)"
    #endif
    return
      "mode: \(mode); \(configuration.repetitions) interleaved repetitions after one warm-up; "
      + "\(ProcessInfo.processInfo.activeProcessorCount) cores; "
      + "ratios are Flowchart / baseline (median over medians, min over mins)"
  }

  /// The report as an aligned plain-text table, for the terminal.
  var text: String {
    let table = [Self.headers] + rows.map(cells(of:))
    var widths = [Int](repeating: 0, count: Self.headers.count)
    for line in table {
      for (column, cell) in line.enumerated() {
        widths[column] = max(widths[column], cell.count)
      }
    }
    func render(_ line: [String]) -> String {
      line.enumerated().map { column, cell in
        let padding = String(repeating: " ", count: widths[column] - cell.count)
        // Text columns align left, numbers right.
        return column < 2 || column == line.count - 1 ? cell + padding : padding + cell
      }
      .joined(separator: "  ")
      .trimmingTrailingSpaces
    }
    var output = "Flowchart benchmarks — \(summary)\n\n"
    output += render(Self.headers) + "\n"
    output += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n"
    for (index, row) in rows.enumerated() {
      // A blank line between workload groups.
      if index > 0 && rows[index - 1].group != row.group {
        output += "\n"
      }
      output += render(cells(of: row)) + "\n"
    }
    if !notes.isEmpty {
      output += "\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n"
    }
    return output
  }

  /// The report as a Markdown document.
  var markdown: String {
    var output = "# Flowchart benchmarks\n\n"
    output += "Produced by `swift run -c release flowchart-benchmarks`; \(summary).\n\n"
    output += "| " + Self.headers.joined(separator: " | ") + " |\n"
    output +=
      "| "
      + Self.headers.indices.map { $0 < 2 || $0 == Self.headers.count - 1 ? "---" : "---:" }.joined(
        separator: " | ") + " |\n"
    for row in rows {
      let escaped = cells(of: row).map { $0.replacingOccurrences(of: "|", with: "\\|") }
      output += "| " + escaped.joined(separator: " | ") + " |\n"
    }
    if !notes.isEmpty {
      output += "\n## Notes\n\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n"
    }
    return output
  }

  /// Formats a target: `3`, `1.5`, `1.05`.
  static func formatLimit(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
  }

  /// Formats a value with three significant digits or so: `3.21`, `45.6`, `1234`.
  static func format(_ value: Double) -> String {
    guard value.isFinite else { return "n/a" }
    let magnitude = abs(value)
    if magnitude >= 100 { return String(format: "%.0f", value) }
    if magnitude >= 10 { return String(format: "%.1f", value) }
    return String(format: "%.2f", value)
  }
}

extension String {
  /// The string without the spaces at its end.
  fileprivate var trimmingTrailingSpaces: String {
    var trimmed = Substring(self)
    while trimmed.last == " " {
      trimmed.removeLast()
    }
    return String(trimmed)
  }
}
