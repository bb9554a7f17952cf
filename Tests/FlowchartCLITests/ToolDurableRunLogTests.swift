import FlowchartFiles
import Foundation
import Testing

@testable import FlowchartCLI

/// `run --store` and `resume` with `--log-file` and `--report`: each invocation logs the part
/// of the run it ran, up to where the run rests.
@Suite struct ToolDurableRunLogTests {
  /// A chart file and a store directory beside it.
  private func setUp() throws -> (files: TemporaryFiles, chart: String, store: String) {
    let files = try TemporaryFiles()
    let chart = try files.write("approval.json", ToolDurableRunTests.approval)
    return (files, URL(fileURLWithPath: chart).standardizedFileURL.path, files.directory + "/runs")
  }

  /// The id after `Run ID: `.
  private func runID(in output: String) throws -> String {
    let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("Run ID: ") })
    return String(line.dropFirst("Run ID: ".count))
  }

  /// Each record of the log file at `path` as "event state".
  private func events(in path: String) throws -> [String] {
    try RunLogFile.records(in: URL(fileURLWithPath: path)).compactMap { record in
      record.event.map { "\($0) \(record.state ?? "-")" }
    }
  }

  @Test func runStoreWritesTheLogAndReportUpToWhereTheRunWaits() async throws {
    let (files, chart, store) = try setUp()
    let log = files.directory + "/first.jsonl"
    let report = files.directory + "/first.html"
    let started = await Tool.run([
      "run", chart, "--store", store, "--log-file", log, "--report", report,
    ])
    #expect(started.exitCode == .waiting, "\(started.errorOutput)")
    #expect(started.errorOutput == "")
    #expect(started.output.hasPrefix("Waiting for input at 'Approve'.\nRun ID: "))
    #expect(
      try events(in: log) == [
        "runStarted Receive order", "entered Receive order", "decided Receive order",
        "entered Approve", "waiting Approve",
      ])
    let page = try String(contentsOfFile: report, encoding: .utf8)
    #expect(page.hasPrefix("<!DOCTYPE html>"))
    #expect(page.contains("<title>Run of first</title>"))
    #expect(page.contains("Approve"))
  }

  @Test func resumeLogsThePartItRuns() async throws {
    let (files, chart, store) = try setUp()
    let firstLog = files.directory + "/first.jsonl"
    let started = await Tool.run(["run", chart, "--store", store, "--log-file", firstLog])
    let id = try runID(in: started.output)
    let before = try String(contentsOfFile: firstLog, encoding: .utf8)

    let log = files.directory + "/second.jsonl"
    let report = files.directory + "/second.html"
    let resumed = await Tool.run([
      "resume", store, id, "--send", #"Approve={"by": "Ann"}"#, "--log-file", log, "--report",
      report,
    ])
    #expect(resumed.exitCode == .success, "\(resumed.errorOutput)")
    #expect(resumed.errorOutput == "")
    #expect(resumed.output.hasPrefix("Final state: Ship\n"))
    #expect(
      try events(in: log) == [
        "runStarted Approve", "entered Approve", "decided Approve", "entered Ship",
        "decided Ship", "runFinished Ship",
      ])
    let page = try String(contentsOfFile: report, encoding: .utf8)
    #expect(page.contains("<p class=\"summary finished\">The run finished at &#39;Ship&#39;.</p>"))
    // The first invocation's log is its own file, untouched.
    #expect(try String(contentsOfFile: firstLog, encoding: .utf8) == before)
  }

  @Test func aRefusedResumeLeavesALogFileOfThatNameAsItWas() async throws {
    let (files, chart, store) = try setUp()
    let log = files.directory + "/run.jsonl"
    let started = await Tool.run(["run", chart, "--store", store, "--log-file", log])
    let id = try runID(in: started.output)
    let before = try String(contentsOfFile: log, encoding: .utf8)
    #expect(!before.isEmpty)
    // 'Approve' is gone: the run, waiting there, cannot go on.
    _ = try files.write(
      "approval.json",
      """
      {"flowchart": [{"action": "Receive order"}, {"action": "Ship", "final": true}]}
      """)
    let refused = await Tool.run([
      "resume", store, id, "--log-file", log, "--report", files.directory + "/refused.html",
    ])
    #expect(refused.exitCode == .failure)
    #expect(refused.errorOutput.contains("cannot be resumed"))
    #expect(try String(contentsOfFile: log, encoding: .utf8) == before)
    #expect(!FileManager.default.fileExists(atPath: files.directory + "/refused.html"))
  }

  @Test func aLogFileInNoFolderIsAClearErrorAndNothingIsSaved() async throws {
    let (files, chart, store) = try setUp()
    let missing = files.directory + "/no-such-folder/run.jsonl"
    let run = await Tool.run(["run", chart, "--store", store, "--log-file", missing])
    #expect(run.exitCode == .failure)
    #expect(run.errorOutput.hasPrefix("Error: '\(missing)' cannot be created for --log-file ("))
    #expect(run.errorOutput.hasSuffix("); check the folder.\n"))
    #expect(run.output == "")
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  @Test func resumeRefusesALogFileOrReportInNoFolderBeforeTheRunGoesOn() async throws {
    let (files, chart, store) = try setUp()
    let started = await Tool.run(["run", chart, "--store", store])
    let id = try runID(in: started.output)
    let folder = files.directory + "/no-such-folder"
    for option in ["--log-file", "--report"] {
      let resumed = await Tool.run([
        "resume", store, id, "--send", "Approve=true", option, folder + "/run.out",
      ])
      #expect(resumed.exitCode == .failure)
      #expect(
        resumed.errorOutput == """
          Error: '\(folder)/run.out' cannot be written for \(option): there is no folder '\(folder)'. Give a file in a folder that exists; the stored run is unchanged.

          """)
      #expect(resumed.output == "")
    }
    // The run still waits: the refused resumes did not touch it.
    let listed = await Tool.run(["runs", store])
    #expect(listed.output.contains("waiting for input at 'Approve'"))
  }
}
