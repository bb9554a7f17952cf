extension Flowchart {
  /// A run as one self-contained HTML page: the chart with the run drawn on it, a table of
  /// the states it entered, a timeline of its states by start and duration, and its log.
  ///
  /// The page needs nothing else: no script, and no style sheet, image or font from
  /// elsewhere (its styles are inline), so it reads offline, attaches to a bug report and
  /// prints. Its parts, each a `section` with an `id`:
  ///
  /// - `summary`: how the run ended (class `finished`, `failed`, `cancelled` or
  ///   `unfinished`), and where and why it stopped.
  /// - `diagram`: the DOT of ``dotDescription(showing:)`` as SVG when `render` makes it
  ///   (each state a group with its `id`, `s3`, and its class, `entered`, `failed`,
  ///   `cancelled` or `unreached`); otherwise the Mermaid text of
  ///   ``mermaidDescription(showing:)`` and the printed tree, with a note that says how to
  ///   see it drawn.
  /// - `states`: one row per state: its name, kind, visits, failures, time, when first
  ///   entered, and why it stopped a flow.
  /// - `timeline`: an SVG with one lane per flow (the top level first, then each branch,
  ///   side by side in time), a bar per state from its start for its duration, classed as
  ///   the span ended (`decided`, `failed`, `cancelled`, `open`).
  /// - `log`: the log's lines as a table, when `logLines` has any.
  ///
  /// A platform that can run Graphviz passes a renderer (the `flowchart` tool runs `dot
  /// -Tsvg`); one that cannot (iOS) passes SVG made elsewhere, or none.
  ///
  /// ```swift
  /// let handle = chart.start(with: context, isLogged: true)
  /// _ = try? await handle.result
  /// let page = chart.htmlReport(of: RunOverlay(log: handle.log), logLines: handle.log.lines)
  /// ```
  ///
  /// - Parameters:
  ///   - run: What the run did.
  ///   - logLines: The run log's lines, oldest first; empty for no log table.
  ///   - title: The page's title and heading.
  ///   - render: Makes SVG from DOT text, or returns `nil` when it cannot; `nil` for none.
  /// - Complexity: O(*n* + *s* + *l*) in the chart's states and exits, the overlay's spans
  ///   and the log's lines, plus what `render` takes.
  public func htmlReport(
    of run: RunOverlay, logLines: [String] = [], title: String = "Run report",
    render: ((_ dot: String) -> String?)? = nil
  ) -> String {
    var page = HTMLPage(title: title)
    page.summary(of: run, in: self)
    let svg = render.flatMap { $0(dotDescription(showing: run)) }
    if let svg {
      page.diagram(svg: HTMLPage.inlineSVG(svg))
    } else {
      page.diagram(mermaid: mermaidDescription(showing: run), tree: treeDescription)
    }
    page.stateTable(of: run, in: self)
    page.timeline(of: run, in: self)
    if !logLines.isEmpty { page.log(logLines) }
    return page.finished()
  }
}

/// An HTML page as it is written: each part appended in order.
struct HTMLPage {
  private var text = ""

  /// The styles: the page's own, and the classes a run's drawing and timeline use.
  static let styles = """
    body{font:14px/1.4 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px;color:#222}
    h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #ddd}
    .summary{padding:8px 12px;border-left:6px solid #999;background:#f6f6f6}
    .summary.finished{border-color:#2e7d32;background:#eef7ee}
    .summary.failed{border-color:#c62828;background:#fbeaea}
    .summary.cancelled{border-color:#ef6c00;background:#fdf1e2}
    table{border-collapse:collapse;font-size:13px}
    th,td{border:1px solid #ddd;padding:2px 8px;text-align:left;vertical-align:top}
    td.number{text-align:right;font-variant-numeric:tabular-nums}
    tr.failed td{background:#fbeaea}tr.cancelled td{background:#fdf1e2}
    tr.unreached td{color:#999}
    pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}
    .note{color:#555;font-style:italic}
    .log td{font-family:ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px}
    #diagram svg{max-width:100%;height:auto}
    .lane{fill:#fafafa}.lane-label{font-size:11px;fill:#555}
    rect.decided{fill:#66bb6a}rect.failed{fill:#e53935}rect.cancelled{fill:#fb8c00}
    rect.open{fill:#90a4ae}
    @media print{body{margin:0}section{break-inside:avoid}}
    """

  init(title: String) {
    text = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    text += "<title>" + Self.escape(title) + "</title>\n"
    text += "<style>\n" + Self.styles + "\n</style>\n</head>\n<body>\n"
    text += "<h1>" + Self.escape(title) + "</h1>\n"
  }

  /// The page, closed.
  mutating func finished() -> String {
    text += "</body>\n</html>\n"
    return text
  }

  /// `text` with `&`, `<`, `>`, `"` and `'` written as entities.
  static func escape(_ text: String) -> String {
    var result = ""
    result.reserveCapacity(text.utf8.count)
    for character in text {
      switch character {
      case "&": result += "&amp;"
      case "<": result += "&lt;"
      case ">": result += "&gt;"
      case "\"": result += "&quot;"
      case "'": result += "&#39;"
      default: result.append(character)
      }
    }
    return result
  }

  /// `svg` without what may come before its `<svg` element (an XML declaration, a
  /// doctype, comments), which HTML does not take.
  static func inlineSVG(_ svg: String) -> String {
    guard let start = svg.firstRange(of: "<svg") else { return svg }
    return String(svg[start.lowerBound...])
  }

  mutating func summary<Context>(of run: RunOverlay, in chart: Flowchart<Context>) {
    let ending: String
    var words: String
    switch run.ending {
    case .finished:
      ending = "finished"
      words = "The run finished"
      if let end = run.flowEnds.keys.first(where: { chart[$0].isTopLevel }) {
        words += " at " + DisplayText.quoted(name: chart[end].name)
      }
      words += "."
    case .failed, .cancelled:
      ending = run.ending == .failed ? "failed" : "cancelled"
      words = run.ending == .failed ? "The run failed" : "The run was cancelled"
      if let failure = run.failure {
        if let state = failure.state, chart.states.contains(state) {
          words += " at " + DisplayText.quoted(name: chart[state].name)
        }
        words += " (" + failure.kind + "): " + failure.reason
      } else {
        words += "."
      }
    case .unfinished:
      ending = "unfinished"
      words = "The run had not ended when this report was made."
    }
    let entered = run.states.count
    text += "<section id=\"summary\">\n<p class=\"summary \(ending)\">" + Self.escape(words)
    text += "</p>\n<p>\(entered) of \(chart.states.count) states entered"
    let visits = run.states.values.reduce(0) { $0 + $1.visits }
    text += ", \(RunLog.grouped(visits)) visit\(visits == 1 ? "" : "s") in all.</p>\n</section>\n"
  }

  mutating func diagram(svg: String) {
    text += "<section id=\"diagram\">\n<h2>Diagram</h2>\n" + svg
    if !svg.hasSuffix("\n") { text += "\n" }
    text += "</section>\n"
  }

  mutating func diagram(mermaid: String, tree: String) {
    text += "<section id=\"diagram\">\n<h2>Diagram</h2>\n"
    text += "<p class=\"note\">Graphviz was not available to draw the diagram here: paste the"
    text += " Mermaid text into a Markdown page that renders it, or run"
    text +=
      " <code>flowchart diagram chart.json --run run-log.json --format dot | dot -Tsvg</code>.</p>\n"
    text += "<pre class=\"mermaid-text\">" + Self.escape(mermaid) + "</pre>\n"
    text += "<pre class=\"tree\">" + Self.escape(tree) + "</pre>\n</section>\n"
  }

  mutating func stateTable<Context>(of run: RunOverlay, in chart: Flowchart<Context>) {
    text += "<section id=\"states\">\n<h2>States</h2>\n<table>\n"
    text += "<tr><th>#</th><th>State</th><th>Kind</th><th>Visits</th><th>Failures</th>"
    text += "<th>Time</th><th>First entered</th><th>Stopped</th></tr>\n"
    for state in chart.states {
      let info = chart[state]
      let marks = run.states[state]
      let rowClass =
        marks.map { marks in
          marks.stop.map { $0.isCancellation ? "cancelled" : "failed" } ?? "entered"
        } ?? "unreached"
      text += "<tr id=\"state-\(state.index)\" class=\"\(rowClass)\"><td class=\"number\">"
      text += "\(state.index)</td><td>" + Self.escape(info.name) + "</td><td>"
      text += Self.escape("\(info.kind)") + "</td>"
      if let marks {
        text += "<td class=\"number\">\(RunLog.grouped(marks.visits))</td>"
        text += "<td class=\"number\">\(RunLog.grouped(marks.failures))</td>"
        text += "<td class=\"number\">" + RunLog.seconds(marks.time) + "</td>"
        text += "<td class=\"number\">" + (marks.firstEntered.map(RunLog.seconds) ?? "") + "</td>"
        text += "<td>" + Self.escape(marks.stop.map { "\($0.kind): \($0.reason)" } ?? "") + "</td>"
      } else {
        text += "<td class=\"number\">0</td><td></td><td></td><td></td><td></td>"
      }
      text += "</tr>\n"
    }
    text += "</table>\n</section>\n"
  }

  /// The timeline's drawing width, in pixels, for the bars.
  static let timelineWidth = 800.0
  /// Where the bars start, after the lanes' labels.
  static let timelineLeft = 110.0
  /// The height of one flow's lane.
  static let laneHeight = 18.0

  mutating func timeline<Context>(of run: RunOverlay, in chart: Flowchart<Context>) {
    text += "<section id=\"timeline\">\n<h2>Timeline</h2>\n"
    guard !run.spans.isEmpty else {
      text += "<p class=\"note\">No state was timed.</p>\n</section>\n"
      return
    }
    if run.droppedSpanCount > 0 {
      text += "<p class=\"note\">The newest \(RunLog.grouped(run.spans.count)) spans;"
      text += " \(RunLog.grouped(run.droppedSpanCount)) earlier ones were not kept.</p>\n"
    }
    let flows = Set(run.spans.map(\.flow)).sorted()
    var lanes: [Int: Int] = [:]
    for (lane, flow) in flows.enumerated() { lanes[flow] = lane }
    let first = run.spans.map(\.start).min() ?? .zero
    let last = run.spans.map { $0.start + $0.duration }.max() ?? .zero
    let total = max(Self.seconds(last - first), 1e-9)
    let scale = Self.timelineWidth / total
    let height = Double(flows.count) * Self.laneHeight + 20
    let width = Self.timelineLeft + Self.timelineWidth + 10
    text += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Self.number(width))\""
    text += " height=\"\(Self.number(height))\" viewBox=\"0 0 \(Self.number(width))"
    text += " \(Self.number(height))\" role=\"img\" aria-label=\"Timeline\">\n"
    for (lane, flow) in flows.enumerated() {
      let y = Double(lane) * Self.laneHeight
      text += "<rect class=\"lane\" x=\"0\" y=\"\(Self.number(y))\" width=\"\(Self.number(width))\""
      text += " height=\"\(Self.number(Self.laneHeight - 2))\"/>"
      text += "<text class=\"lane-label\" x=\"4\" y=\"\(Self.number(y + 12))\">"
      text += flow == 0 ? "top level" : "branch flow \(flow)"
      text += "</text>\n"
    }
    for span in run.spans {
      let lane = Double(lanes[span.flow] ?? 0)
      let x = Self.timelineLeft + Self.seconds(span.start - first) * scale
      let barWidth = max(Self.seconds(span.duration) * scale, 1)
      let name = chart.states.contains(span.state) ? chart[span.state].name : "\(span.state)"
      let ending: String =
        switch span.ending {
        case .decided: "decided"
        case .failed: "failed"
        case .cancelled: "cancelled"
        case .open: "open"
        }
      text += "<rect class=\"\(ending)\" data-state=\"s\(span.state.index)\""
      text += " x=\"\(Self.number(x))\" y=\"\(Self.number(lane * Self.laneHeight + 2))\""
      text += " width=\"\(Self.number(barWidth))\" height=\"\(Self.number(Self.laneHeight - 6))\">"
      text += "<title>" + Self.escape(DisplayText.quoted(name: name)) + " at "
      text += RunLog.seconds(span.start) + " for " + RunLog.seconds(span.duration) + " ("
      text += ending + ")</title></rect>\n"
    }
    let axis = Double(flows.count) * Self.laneHeight + 14
    text += "<text class=\"lane-label\" x=\"\(Self.number(Self.timelineLeft))\""
    text += " y=\"\(Self.number(axis))\">" + RunLog.seconds(first) + "</text>"
    text += "<text class=\"lane-label\" x=\"\(Self.number(width - 10))\" y=\"\(Self.number(axis))\""
    text += " text-anchor=\"end\">" + RunLog.seconds(last) + "</text>\n</svg>\n</section>\n"
  }

  mutating func log(_ lines: [String]) {
    text += "<section id=\"log\">\n<h2>Log</h2>\n<table class=\"log\">\n"
    for line in lines {
      text += "<tr><td>" + Self.escape(line) + "</td></tr>\n"
    }
    text += "</table>\n</section>\n"
  }

  /// `duration` in seconds.
  static func seconds(_ duration: Duration) -> Double {
    let (whole, attoseconds) = duration.components
    return Double(whole) + Double(attoseconds) / 1e18
  }

  /// `value` with at most one decimal, as SVG coordinates are written here.
  static func number(_ value: Double) -> String {
    // Rounded by hand: `rounded()` needs the C math library, which the module does not link.
    let tenths = value * 10 + (value < 0 ? -0.5 : 0.5)
    guard tenths.isFinite, abs(tenths) < 1e15 else { return "0" }
    let whole = Int(tenths)
    let sign = whole < 0 ? "-" : ""
    let magnitude = abs(whole)
    return magnitude % 10 == 0
      ? "\(sign)\(magnitude / 10)" : "\(sign)\(magnitude / 10).\(magnitude % 10)"
  }
}
