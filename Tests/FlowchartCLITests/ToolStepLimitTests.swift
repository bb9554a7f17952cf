import Flowchart
import FlowchartFiles
import Foundation
import Testing

@testable import FlowchartCLI

/// What a recording output sink received, and when.
private final class RecordingOutput: Sendable {
  private let text = Lock("")

  var sink: OutputSink { OutputSink { written in self.text.withLock { $0 += written } } }
  var written: String { text.withLock { $0 } }
}

/// `flowchart run --step-limit`, and `--log` written as the run goes.
@Suite(.timeLimit(.minutes(5)))
struct ToolStepLimitTests {
  /// A loop of data only whose exit needs a `stop` the context never has.
  static let endless = """
    {
      "flowchart": [
        {"action": "Tick", "store": [{"path": "ticked", "value": true}]},
        {
          "condition": "Told to stop?",
          "test": {"present": "stop"},
          "yes": [{"action": "Stop", "final": true}],
          "no": [{"goTo": "Tick"}]
        }
      ]
    }

    """

  @Test func theDefaultLimitStopsALoopWhoseExitIsNeverTaken() async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let outcome = await Tool.run(["run", loop])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    expectText(
      outcome.errorOutput,
      """
      Error: The run exceeded its step limit of 100000 states before entering action 'Tick' (\(loop):3:5). A cycle may never reach a final state, or the limit may be too low.
      Last states: … → 'Tick' → 'Told to stop?' → 'Tick' → 'Told to stop?' → 'Tick' → 'Told to stop?'
      Raise the limit with --step-limit <n>, above its default of 100000.

      """)
  }

  @Test func aLimitGivenStopsTheRunThereAndItsLogEndsWhereItStopped() async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let outcome = await Tool.run(["run", loop, "--step-limit", "5", "--log"])
    #expect(outcome.exitCode == .failure)
    expectText(
      outcome.output,
      """
      Tick (A) -> Told to stop?
      Told to stop? (S) no -> Tick
      Tick (A) -> Told to stop?
      Told to stop? (S) no -> Tick
      Tick (A) -> Told to stop?

      """)
    expectText(
      outcome.errorOutput,
      """
      Error: The run exceeded its step limit of 5 states before entering condition 'Told to stop?' (\(loop):4:5). A cycle may never reach a final state, or the limit may be too low.
      Last states: 'Tick' → 'Told to stop?' → 'Tick' → 'Told to stop?' → 'Tick'
      Raise the limit with --step-limit <n>, above 5.

      """)
  }

  @Test func theLargestLimitIsAcceptedAndARunWithinItSucceeds() async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let outcome = await Tool.run([
      "run", loop, "--step-limit", "\(Int.max)", "--context", #"{"stop": true}"#,
    ])
    #expect(outcome.exitCode == .success)
    #expect(outcome.output.contains("Path: Tick -> Told to stop? -> Stop\n"))
    let exact = await Tool.run(["run", loop, "--step-limit", "3", "--context", #"{"stop": 1}"#])
    #expect(exact.exitCode == .success)
  }

  @Test(arguments: [
    (
      "0",
      "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit 1000000."
    ),
    (
      "-3",
      "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit 1000000."
    ),
    (
      "\(Int.min)",
      "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit 1000000."
    ),
    (
      "-99999999999999999999",
      "the limit is the most states the run may enter, so it is at least 1; give a larger number, as in --step-limit 1000000."
    ),
    (
      "99999999999999999999",
      "it is larger than the largest limit, 9223372036854775807; give a number from 1 to 9223372036854775807."
    ),
    (
      "ten",
      "it is not a whole number; give the most states the run may enter, as in --step-limit 1000000."
    ),
    (
      "1.5",
      "it is not a whole number; give the most states the run may enter, as in --step-limit 1000000."
    ),
    (
      "",
      "it is not a whole number; give the most states the run may enter, as in --step-limit 1000000."
    ),
  ])
  func anInvalidLimitIsAUsageErrorThatSaysWhy(value: String, reason: String) async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let outcome = await Tool.run(["run", loop, "--step-limit=\(value)"])
    #expect(outcome.exitCode == .usageError)
    #expect(outcome.output.isEmpty)
    expectText(
      outcome.errorOutput,
      """
      Error: The value '\(value)' is invalid for '--step-limit <n>': \(reason)
      Help:  --step-limit <n>  The most states the run may enter before it stops with an error, so that a loop whose exit is never taken ends. A whole number from 1. (default: 100000)
      Usage: flowchart run <file> [--context <json>] [--decide <state=decision> ...] [--fail <state[=how]> ...] [--send <state=json> ...] [--step-limit <n>] [--log] [--log-file <path>] [--report <path>] [--store <directory>]
        See 'flowchart run --help' for more information.

      """)
  }

  @Test func runHelpDocumentsTheLimitAndItsDefault() async {
    let outcome = await Tool.run(["run", "--help"])
    #expect(
      outcome.output.contains(
        """
          --step-limit <n>        The most states the run may enter before it stops with
                                  an error, so that a loop whose exit is never taken
                                  ends. A whole number from 1. (default: 100000)

        """))
    #expect(outcome.output.contains("(100000 unless given)"))
  }

  // MARK: - --log as the run goes

  @Test func logLinesGoToTheOutputSinkAndNotIntoTheOutcome() async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let output = RecordingOutput()
    let outcome = await Tool.run(
      ["run", loop, "--log", "--context", #"{"stop": true}"#], output: output.sink)
    #expect(outcome.exitCode == .success)
    expectText(
      output.written,
      "Tick (A) -> Told to stop?\nTold to stop? (S) yes -> Stop\nStop (A) ended: done\n")
    #expect(outcome.output.hasPrefix("Final state: Stop\n"))
  }

  @Test func logLinesReachTheSinkWhileTheRunGoesOn() async throws {
    let output = RecordingOutput()
    let seen = Lock<String?>(nil)
    let chart = try Flowchart<ChartValue> {
      Action("First")
      Action("Look") { _ in seen.withLock { $0 = output.written } }
      Action("Last", isFinal: true)
    }
    let outcome = await Tool.run(
      chart, inner: InnerDecisions(), context: .object([:]), decisions: [], inputs: [],
      stepLimit: 10, log: true, output: output.sink)
    #expect(outcome.exitCode == .success)
    // While "Look" ran, the sink already held the step before it.
    #expect(seen.withLock { $0 } == "First (A) -> Look\n")
    #expect(output.written == "First (A) -> Look\nLook (A) -> Last\nLast (A) ended: done\n")
  }

  @Test func aLongLoggedRunStreamsEveryLineAndKeepsNoneOfThem() async throws {
    let files = try TemporaryFiles()
    let loop = try files.write("loop.json", Self.endless)
    let lines = Lock(0)
    let sink = OutputSink { text in lines.withLock { $0 += text.count { $0 == "\n" } } }
    let outcome = await Tool.run(["run", loop, "--log", "--step-limit", "20000"], output: sink)
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    #expect(lines.withLock { $0 } == 20_000)
  }
}
