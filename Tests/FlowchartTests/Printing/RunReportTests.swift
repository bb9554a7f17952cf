import Foundation
import Testing

@testable import Flowchart

/// The HTML report of a run: its parts, what it holds of the run, and that it needs
/// nothing from elsewhere. Facts read from the page, not the whole text.
struct RunReportTests {
  /// How many times `needle` occurs in `text`.
  private func count(_ needle: String, in text: String) -> Int {
    text.components(separatedBy: needle).count - 1
  }

  /// A report of the run that failed in a branch, its log and all.
  private func failedReport(
    render: ((String) -> String?)? = nil
  ) async throws -> (String, Flowchart<Trip>, RunOverlay, [String]) {
    let clock = ManualClock()
    let chart = try RunDiagramCharts.trip(clock, failing: true)
    let handle = chart.start(with: Trip(), clock: clock, isLogged: true)
    _ = try? await handle.result
    let run = RunOverlay(log: handle.log)
    let page = chart.htmlReport(
      of: run, logLines: handle.log.lines, title: "Trip <failed>", render: render)
    return (page, chart, run, handle.log.lines)
  }

  @Test func aReportHasEachPartOnceAndNeedsNothingFromElsewhere() async throws {
    let (page, _, _, _) = try await failedReport()
    #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"))
    #expect(page.hasSuffix("</body>\n</html>\n"))
    for part in ["summary", "diagram", "states", "timeline", "log"] {
      #expect(count("<section id=\"\(part)\">", in: page) == 1, "section \(part)")
    }
    for outside in ["<script", "src=", "href=", "@import", "url(", "<link", "<img"] {
      #expect(!page.contains(outside), "the page holds \(outside)")
    }
    // The one address is the SVG namespace, which is a name, not a request.
    #expect(count("http", in: page) == count("xmlns=\"http://www.w3.org/2000/svg\"", in: page))
    #expect(page.contains("<title>Trip &lt;failed&gt;</title>"))
  }

  @Test func theSummaryTellsWhereAndWhyTheRunFailed() async throws {
    let (page, _, _, _) = try await failedReport()
    #expect(
      page.contains(
        "<p class=\"summary failed\">The run failed at &#39;Buy ticket&#39; (thrown error): The run stopped at action"
      ))
    #expect(page.contains("6 of 9 states entered, 8 visits in all."))
  }

  @Test func withoutARendererTheDiagramIsTheMermaidTextAndTheTreeWithANote() async throws {
    let (page, chart, run, _) = try await failedReport()
    #expect(page.contains("<p class=\"note\">Graphviz was not available"))
    let mermaid = HTMLPage.escape(chart.mermaidDescription(showing: run))
    #expect(page.contains("<pre class=\"mermaid-text\">" + mermaid + "</pre>"))
    #expect(page.contains("<pre class=\"tree\">" + HTMLPage.escape(chart.treeDescription)))
  }

  @Test func aRenderersSVGGoesInlineWithoutItsXMLDeclaration() async throws {
    var dotSeen = ""
    let (page, chart, run, _) = try await failedReport { dot in
      dotSeen = dot
      return "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg id=\"drawn\"></svg>\n"
    }
    #expect(dotSeen == chart.dotDescription(showing: run))
    #expect(page.contains("<h2>Diagram</h2>\n<svg id=\"drawn\"></svg>\n</section>"))
    #expect(!page.contains("<?xml"))
    #expect(!page.contains("mermaid-text"))
  }

  @Test func theStatesTableHasARowPerStateClassedByHowItEnded() async throws {
    let (page, chart, _, _) = try await failedReport()
    #expect(count("<tr id=\"state-", in: page) == chart.states.count)
    #expect(
      page.contains(
        "<tr id=\"state-4\" class=\"failed\"><td class=\"number\">4</td><td>Buy ticket</td>"))
    #expect(
      page.contains(
        "<tr id=\"state-0\" class=\"entered\"><td class=\"number\">0</td><td>Plan</td><td>action</td><td class=\"number\">2</td><td class=\"number\">0</td><td class=\"number\">0.200s</td><td class=\"number\">0.000s</td>"
      ))
    #expect(page.contains("<tr id=\"state-8\" class=\"unreached\">"))
  }

  @Test func theTimelineHasALanePerFlowAndABarPerSpan() async throws {
    let (page, _, run, _) = try await failedReport()
    #expect(run.spans.count == 8)
    let timeline = try #require(page.components(separatedBy: "<section id=\"timeline\">").last)
    #expect(count("<rect class=\"lane\"", in: timeline) == 3)  // the top level, two branches
    #expect(count("<rect class=\"decided\"", in: timeline) == 6)
    // The failing state, and its dispatch, which failed with it.
    #expect(count("<rect class=\"failed\"", in: timeline) == 2)
    #expect(timeline.contains("<title>&#39;Buy ticket&#39; at 0.400s for 0.300s (failed)</title>"))
    // Each branch in a lane of its own.
    #expect(
      timeline.contains(">branch flow 1</text>") && timeline.contains(">branch flow 2</text>"))
  }

  @Test func theLogIsATableOfItsLinesEscaped() async throws {
    let (page, _, _, lines) = try await failedReport()
    let log = try #require(page.components(separatedBy: "<section id=\"log\">").last)
    #expect(count("<tr><td>", in: log) == lines.count)
    #expect(log.contains("<tr><td>  0.100s  entered &#39;Booked?&#39;</td></tr>"))
  }

  /// Graphviz's SVG of a report: one group per state, with its ID and class.
  @Test(.enabled(if: GraphvizDot.path != nil || GraphvizDot.isCI, "needs Graphviz's dot"))
  func graphvizDrawsOneGroupPerStateWithItsClass() async throws {
    let dot = try #require(GraphvizDot.path, "Graphviz's dot is not on PATH")
    let (page, chart, _, _) = try await failedReport { text in
      try? GraphvizDot.svg(text, with: dot)
    }
    for state in chart.states {
      #expect(count("<g id=\"s\(state.index)\" class=\"node ", in: page) == 1, "\(state)")
    }
    #expect(page.contains("<g id=\"s4\" class=\"node failed\">"))
    #expect(page.contains("<g id=\"s8\" class=\"node unreached\">"))
    #expect(!page.contains("<?xml"))
  }
}

extension GraphvizDot {
  /// `text`, in the DOT language, rendered as SVG by `dot`.
  static func svg(_ text: String, with dot: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: dot)
    process.arguments = ["-Tsvg"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let svg = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: svg, as: UTF8.self)
  }
}

/// A report of a long run on a large chart: every span drawn, every state in the table.
struct LargeRunReportTests {
  @Test func aRunOf10000StatesOnAChartOf1000MakesAReportOfEverySpan() throws {
    let chart = try Flowchart<Trip> {
      for index in 0..<999 { Action("Step \(index)") }
      Action("Last", isFinal: true)
    }
    var run = RunOverlay()
    for step in 0..<10_000 {
      let state = StateID(step % 1_000)
      let time = Duration.milliseconds(step)
      run.record(.entered, state: state, flow: 0, time: time)
      run.record(.decided(.next), state: state, flow: 0, time: time + .microseconds(500))
    }
    run.record(.runFinished, state: StateID(999), flow: 0, time: .seconds(10))
    // About 0.08 s in a debug build, 1.8 MB (no timing is checked here).
    let page = chart.htmlReport(of: run)
    #expect(run.spans.count == 10_000)
    #expect(page.components(separatedBy: "<rect class=\"decided\"").count - 1 == 10_000)
    #expect(page.components(separatedBy: "<tr id=\"state-").count - 1 == 1_000)
    #expect(page.contains("<p class=\"summary finished\">The run finished at &#39;Last&#39;.</p>"))
  }
}
