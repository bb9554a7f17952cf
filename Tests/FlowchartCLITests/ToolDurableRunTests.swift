import Foundation
import Testing

@testable import FlowchartCLI

/// `run --store`, `runs` and `resume`: a run saved in one invocation and finished in another.
@Suite struct ToolDurableRunTests {
  static let approval = """
    {
      "flowchart": [
        {"action": "Receive order", "store": [{"path": "status", "value": "received"}]},
        {"wait": "Approve", "storeAt": "approval"},
        {"action": "Ship", "final": true, "store": [{"path": "status", "value": "shipped"}]}
      ]
    }
    """

  /// A chart file, a store directory beside it, and the chart's path as runs record it.
  private func setUp() throws -> (files: TemporaryFiles, chart: String, store: String) {
    let files = try TemporaryFiles()
    let chart = try files.write("approval.json", Self.approval)
    return (files, URL(fileURLWithPath: chart).standardizedFileURL.path, files.directory + "/runs")
  }

  /// The id after `Run ID: `.
  private func runID(in output: String) throws -> String {
    let line = try #require(output.split(separator: "\n").first { $0.hasPrefix("Run ID: ") })
    return String(line.dropFirst("Run ID: ".count))
  }

  /// `text` with `id`, the store's path, the chart's path and timestamps replaced by names.
  private func masked(_ text: String, id: String, store: String, chart: String) -> String {
    text.replacingOccurrences(of: id, with: "<id>").replacingOccurrences(of: chart, with: "<chart>")
      .replacingOccurrences(of: store, with: "<store>")
      .replacingOccurrences(
        of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>", options: .regularExpression
      )
  }

  @Test func aRunThatWaitsIsSavedListedAndFinishedByResume() async throws {
    let (files, chart, store) = try setUp()
    _ = files
    let started = await Tool.run(["run", chart, "--store", store])
    #expect(started.exitCode == .waiting, "\(started.errorOutput)")
    #expect(started.exitCode.rawValue == 2)
    let id = try runID(in: started.output)
    #expect(
      masked(started.output, id: id, store: store, chart: chart) == """
        Waiting for input at 'Approve'.
        Run ID: <id>
        Go on with: flowchart resume <store> <id> --send 'Approve=<json>'

        """)
    #expect(started.errorOutput == "")

    let listed = await Tool.run(["runs", store])
    #expect(listed.exitCode == .success)
    #expect(
      masked(listed.output, id: id, store: store, chart: chart)
        == "<id>  waiting for input at 'Approve'  <chart>  <time>\n")

    let resumed = await Tool.run(["resume", store, id, "--send", #"Approve={"by": "Ann"}"#])
    #expect(resumed.exitCode == .success, "\(resumed.errorOutput)")
    #expect(
      resumed.output == """
        Final state: Ship
        Decision: done
        Path: Receive order -> Approve -> Ship
        Context: {"approval": {"by": "Ann"}, "status": "shipped"}

        """)
    let finished = await Tool.run(["runs", store])
    #expect(
      masked(finished.output, id: id, store: store, chart: chart)
        == "<id>  finished  <chart>  <time>\n")
  }

  @Test func aResumeOnAChartThatChangedIsRefusedAndTheRunKept() async throws {
    let (files, chart, store) = try setUp()
    let started = await Tool.run(["run", chart, "--store", store])
    let id = try runID(in: started.output)
    _ = try files.write(
      "approval.json", Self.approval.replacingOccurrences(of: "Approve", with: "Sign off"))
    let refused = await Tool.run(["resume", store, id, "--send", "Sign off=true"])
    #expect(refused.exitCode == .failure)
    #expect(refused.output == "")
    #expect(
      masked(refused.errorOutput, id: id, store: store, chart: chart) == """
        Error: Run '<id>' cannot be resumed: its chart file '<chart>' changed since the run was saved, in a way the run cannot follow. The stored run is unchanged; restore the file's earlier version to resume it.
        The snapshot of run <id> does not fit the chart '<chart>': 2 positions no longer fit.
        - 'Approve', where the run waits for input, no longer exists in the chart: restore it, or map it to a state of the chart with `migrating:`.
        - 'Approve', which the run entered earlier (its path holds it), no longer exists in the chart: map it to a state of the chart with `migrating:`.

        """)
    let listed = await Tool.run(["runs", store])
    #expect(
      masked(listed.output, id: id, store: store, chart: chart)
        == "<id>  waiting for input at 'Approve'  <chart>  <time>\n")
  }

  @Test func badIdsMissingStoresAndUnknownRunsAreClearErrors() async throws {
    let (files, chart, store) = try setUp()
    _ = chart
    let missing = await Tool.run(["runs", files.directory + "/nowhere"])
    #expect(missing.exitCode == .failure)
    #expect(
      missing.errorOutput.replacingOccurrences(of: files.directory, with: "<dir>")
        == "Error: No run store at '<dir>/nowhere': there is no such directory. Give the directory given to `flowchart run --store`.\n"
    )
    try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: true)
    let empty = await Tool.run(["runs", store])
    #expect(empty.exitCode == .success)
    #expect(empty.output == "No runs in '\(store)'.\n")

    let unknown = await Tool.run(["resume", store, "order-1"])
    #expect(unknown.exitCode == .failure)
    #expect(
      unknown.errorOutput.replacingOccurrences(of: store, with: "<store>")
        == "Error: No run 'order-1' in the store '<store>': `flowchart runs <store>` lists the runs it holds.\n"
    )

    let bad = await Tool.run(["resume", store, "../etc"])
    #expect(bad.exitCode == .usageError)
    #expect(
      bad.errorOutput == """
        Error: The value '../etc' is invalid for '<run-id>': A run id cannot start with '.': '../etc'. Give an id that `flowchart runs` lists.
        Usage: flowchart resume <store> <run-id> [--send <state=json> ...] [--decide <state=decision> ...] [--log] [--log-file <path>] [--report <path>]
          See 'flowchart resume --help' for more information.

        """)
  }

  @Test func aSendToNoWaitingStateIsRefusedBeforeTheRunIsTouched() async throws {
    let (files, chart, store) = try setUp()
    _ = files
    let started = await Tool.run(["run", chart, "--store", store])
    let id = try runID(in: started.output)
    let before = try Data(contentsOf: URL(fileURLWithPath: store + "/" + id + ".run"))
    let refused = await Tool.run(["resume", store, id, "--send", "Aprove=true"])
    #expect(refused.exitCode == .usageError)
    #expect(
      refused.errorOutput == """
        Error: The value 'Aprove=…' is invalid for '--send <state=json>': the chart has no waiting state 'Aprove'; its waiting states are 'Approve'.
        Usage: flowchart resume <store> <run-id> [--send <state=json> ...] [--decide <state=decision> ...] [--log] [--log-file <path>] [--report <path>]
          See 'flowchart resume --help' for more information.

        """)
    let after = try Data(contentsOf: URL(fileURLWithPath: store + "/" + id + ".run"))
    #expect(before == after)
  }

  @Test func aSendRefusedOnAChangedChartSaysTheChartChanged() async throws {
    let (files, chart, store) = try setUp()
    let started = await Tool.run(["run", chart, "--store", store])
    let id = try runID(in: started.output)
    _ = try files.write(
      "approval.json",
      Self.approval.replacingOccurrences(
        of: #"{"wait": "Approve", "storeAt": "approval"}"#, with: #"{"action": "Approve"}"#))
    let refused = await Tool.run(["resume", store, id, "--send", "Approve=true"])
    #expect(refused.exitCode == .usageError)
    #expect(
      masked(refused.errorOutput, id: id, store: store, chart: chart) == """
        Error: The value 'Approve=…' is invalid for '--send <state=json>': the chart has no waiting state 'Approve'; it has none.
        Usage: flowchart resume <store> <run-id> [--send <state=json> ...] [--decide <state=decision> ...] [--log] [--log-file <path>] [--report <path>]
          See 'flowchart resume --help' for more information.
        Note: the chart file '<chart>' changed since run '<id>' was saved; run `flowchart resume <store> <id>` without --send and --decide to see whether the run can follow it.

        """)
    let plain = await Tool.run(["resume", store, id])
    #expect(plain.exitCode == .failure)
    #expect(plain.errorOutput.contains("was a waiting state and is now an action"))
  }

  @Test func runStoreRefusesASendToNoWaitingStateAndSavesNothing() async throws {
    let (files, chart, store) = try setUp()
    _ = files
    let refused = await Tool.run(["run", chart, "--store", store, "--send", "Aprove=true"])
    #expect(refused.exitCode == .usageError)
    #expect(
      refused.errorOutput.hasPrefix(
        "Error: The value 'Aprove=…' is invalid for '--send <state=json>': the chart has no waiting state 'Aprove'; its waiting states are 'Approve'.\n"
      ))
    #expect(!FileManager.default.fileExists(atPath: store))
  }

  @Test func runStoreWithASendFinishesAtOnce() async throws {
    let (files, chart, store) = try setUp()
    _ = files
    let finished = await Tool.run(["run", chart, "--store", store, "--send", "Approve=1"])
    #expect(finished.exitCode == .success, "\(finished.errorOutput)")
    #expect(finished.output.hasPrefix("Final state: Ship\n"))
    let listed = await Tool.run(["runs", store])
    #expect(listed.output.contains("  finished  \(chart)  "))
  }

  @Test func theToolsHelpNamesTheWaitingExitCode() async {
    let help = await Tool.run(["--help"])
    #expect(
      help.output.contains(
        """
          2   A run saved with --store (or resumed) waits for input or for a time: its id
              is printed (`Run ID: <id>`); go on with `flowchart resume`.

        """))
  }

  @Test func theHelpOfRunsAndResume() async {
    let runs = await Tool.run(["runs", "--help"])
    #expect(
      runs.output == """
        OVERVIEW: List the runs saved in a run store.

        Prints one line per run that `run --store` or `resume` saved in the directory:
        its id, where it stands (finished, failed at a state, waiting for input at a
        state), the chart file it runs, and when it was last saved (UTC). A file of the
        store that cannot be read is reported on standard error, and the exit code is
        then 1.

        USAGE: flowchart runs <store>

        ARGUMENTS:
          <store>                 The run store's directory, as given to `run --store`.

        OPTIONS:
          -h, --help              Show help information.

        """)
    let resume = await Tool.run(["resume", "--help"])
    #expect(
      resume.output == """
        OVERVIEW: Go on with a run saved in a run store.

        Loads the run from the store, reads its chart from the file it was started with,
        and goes on from where the run was saved: a run waiting for input waits again,
        and takes the value --send gives its state; a failed run runs the state that
        failed again. The run is saved again as it goes. Prints what `run` prints, and
        exits as `run --store` does.

        A chart file that changed since the run was saved is used if every state the run
        stands at or went through still exists with the same kind and exits; otherwise
        the run is not resumed, the states that no longer fit are listed, and the stored
        run is left as it was.

        USAGE: flowchart resume <store> <run-id> [--send <state=json> ...] [--decide
               <state=decision> ...] [--log] [--log-file <path>] [--report <path>]

        ARGUMENTS:
          <store>                 The run store's directory, as given to `run --store`.
          <run-id>                The run's id, as `run --store` or `runs` printed it.

        OPTIONS:
          --send <state=json>     Send a waiting state its input, a JSON value. Split at
                                  the first '='. Repeat for more states.
          --decide <state=decision>
                                  Force a state's decision: yes or no for a condition, a
                                  key for a multiple condition. Split at the last '='.
                                  Repeat for more states, or for one state's later
                                  visits.
          --log                   Print each state as the run enters it, and the exit it
                                  takes, as the run goes.
          --log-file <path>       Write the log of the resumed part of the run to a
                                  file, one JSON object per line: from where the run
                                  goes on (the part before is in the log file of the
                                  invocation that ran it). The file is created, or
                                  replaced, once the run goes on.
          --report <path>         Write a report of the resumed part of the run to an
                                  HTML file, as `run --report` does.
          -h, --help              Show help information.

        """)
  }
}

extension ToolDurableRunTests {
  @Test func theApprovalSampleWaitsThenFinishesWithItsLog() async throws {
    let files = try TemporaryFiles()
    let store = files.directory + "/runs"
    let started = await Tool.run(["run", sample("approval.json"), "--store", store, "--log"])
    #expect(started.exitCode == .waiting)
    let id = try runID(in: started.output)
    #expect(
      started.output.replacingOccurrences(of: id, with: "<id>")
        .replacingOccurrences(of: store, with: "<store>") == """
          Receive order (A) -> Approve
          Waiting for input at 'Approve'.
          Run ID: <id>
          Go on with: flowchart resume <store> <id> --send 'Approve=<json>'

          """)
    let resumed = await Tool.run(["resume", store, id, "--send", "Approve=true", "--log"])
    #expect(resumed.exitCode == .success, "\(resumed.errorOutput)")
    #expect(
      resumed.output == """
        Approve (W) -> Ship
        Ship (A) ended: done
        Final state: Ship
        Decision: done
        Path: Receive order -> Approve -> Ship
        Context: {"approval": true, "status": "shipped"}

        """)
  }
}
