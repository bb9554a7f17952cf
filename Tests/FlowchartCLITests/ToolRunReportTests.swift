import Foundation
import Testing

@testable import FlowchartCLI

/// `run --log-file` and `--report`, and `diagram --run`: a run's log written as JSON lines,
/// drawn back on its chart, and a run's HTML report.
struct ToolRunReportTests {
  @Test func aLoggedRunIsDrawnBackOnItsChart() async throws {
    let files = try TemporaryFiles()
    let log = files.directory + "/run.jsonl"
    let run = await Tool.run([
      "run", sample("health.json"), "--decide", "Willing to exercise?=no", "--decide",
      "Injured?=yes", "--log-file", log,
    ])
    #expect(run.exitCode == .success)
    let mermaid = await Tool.run(["diagram", sample("health.json"), "--run", log])
    #expect(mermaid.exitCode == .success)
    #expect(mermaid.output.contains("  class s0,s3,s3_end entered\n"))
    #expect(mermaid.output.contains("  class s1,s2,s2_end unreached\n"))
    #expect(mermaid.output.contains("  linkStyle 1,4 stroke:#2e7d32,stroke-width:3px\n"))
    let dot = await Tool.run(["diagram", sample("health.json"), "--run", log, "--format", "dot"])
    #expect(dot.output.contains(#"s3 [label="Injured?\n×1 · "#))
    #expect(
      dot.output.contains(
        ##"s0 -> s3 [label="no", color="#2e7d32", penwidth=2.5, class="taken"];"##))
  }

  @Test func aReportIsOneHTMLFileWithTheRunDrawnOnTheChart() async throws {
    let files = try TemporaryFiles()
    let report = files.directory + "/run.html"
    let run = await Tool.run([
      "run", sample("health.json"), "--decide", "Willing to exercise?=yes", "--report", report,
    ])
    #expect(run.exitCode == .success)
    #expect(run.output.hasPrefix("Final state: Do sit-ups\n"))
    let page = try String(contentsOfFile: report, encoding: .utf8)
    #expect(page.hasPrefix("<!DOCTYPE html>"))
    #expect(page.contains("<title>Run of run</title>"))
    #expect(
      page.contains("<p class=\"summary finished\">The run finished at &#39;Do sit-ups&#39;.</p>"))
    #expect(page.contains("<tr id=\"state-3\" class=\"unreached\">"))
    #expect(!page.contains("<script"))
    if Tool.renderSVG("digraph {}") != nil {
      #expect(page.contains("<g id=\"s1\" class=\"node entered\">"))
      #expect(page.contains("<g id=\"s3\" class=\"node unreached\">"))
    } else {
      #expect(page.contains("<pre class=\"mermaid-text\">"))
    }
  }

  @Test func aReportOfAFailedRunIsWrittenAndTheRunStillFails() async throws {
    let files = try TemporaryFiles()
    let report = files.directory + "/failed.html"
    let run = await Tool.run(["run", sample("health.json"), "--report", report])
    #expect(run.exitCode == .failure)
    let page = try String(contentsOfFile: report, encoding: .utf8)
    #expect(
      page.contains(
        "<p class=\"summary failed\">The run failed at &#39;Willing to exercise?&#39; (thrown error): "
      ))
    #expect(page.contains("<tr id=\"state-0\" class=\"failed\">"))
  }

  @Test func aReportThatCannotBeWrittenIsAnErrorNamingTheFile() async {
    let report = "/nonexistent-\(UUID().uuidString)/run.html"
    let run = await Tool.run([
      "run", sample("health.json"), "--decide", "Willing to exercise?=yes", "--report", report,
    ])
    #expect(run.exitCode == .failure)
    #expect(run.errorOutput.contains("Error: '\(report)' cannot be written for --report ("))
  }

  @Test func aFileThatIsNotARunLogIsAnErrorNamingIt() async throws {
    let files = try TemporaryFiles()
    let notLog = try files.write("notes.jsonl", "hello\n")
    let outcome = await Tool.run(["diagram", sample("health.json"), "--run", notLog])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    #expect(
      outcome.errorOutput.hasPrefix(
        "Error: '\(notLog)' is not a run log: a line is not a JSON record ("))
    #expect(outcome.errorOutput.hasSuffix("give a file that run --log-file wrote.\n"))
  }

  @Test func aLogOfAnotherChartIsAnErrorNamingTheLineAndTheState() async throws {
    let files = try TemporaryFiles()
    let log = files.directory + "/run.jsonl"
    _ = await Tool.run([
      "run", sample("health.json"), "--decide", "Willing to exercise?=yes", "--log-file", log,
    ])
    let outcome = await Tool.run(["diagram", sample("order.json"), "--run", log])
    #expect(outcome.exitCode == .failure)
    #expect(
      outcome.errorOutput.contains(
        "cannot be drawn on '\(sample("order.json"))': line 1: state #0 'Willing to exercise?' is not a state of the chart"
      ))
  }
}
