import FlowchartFiles
import Foundation
import Testing

@testable import FlowchartCLI

/// The tool's commands, run as the command line would run them, on the repository's samples
/// and on files written for the test: what each prints, where, and how it exits.
struct ToolTests {
  // MARK: - Help and usage

  @Test func toolHelpListsTheCommandsAndExitCodes() async {
    let outcome = await Tool.run(["--help"])
    #expect(outcome.exitCode == .success)
    #expect(outcome.errorOutput.isEmpty)
    #expect(
      outcome.output.hasPrefix("OVERVIEW: Check, print, draw, convert and run flowchart files.\n"))
    for line in [
      "USAGE: flowchart <subcommand>",
      "  validate                Check chart files and report every problem.",
      "  diagram                 Draw a chart as a Mermaid or Graphviz diagram.",
      "  64  Usage error: an unknown command or option, a missing or invalid argument.",
      "  See 'flowchart help <subcommand>' for detailed help.",
    ] {
      #expect(outcome.output.contains(line + "\n"), "missing: \(line)")
    }
    #expect(await Tool.run(["help"]) == outcome)
    #expect(await Tool.run(["-h"]) == outcome)
  }

  @Test func everyCommandHasHelpAndHelpCommandGivesTheSame() async {
    for command in Tool.commands {
      let outcome = await Tool.run([command.name, "--help"])
      #expect(outcome.exitCode == .success)
      #expect(outcome.output.hasPrefix("OVERVIEW: \(command.abstract)\n"))
      #expect(outcome.output.contains(Help.usage(command.usage) + "\n"))
      #expect(await Tool.run(["help", command.name]) == outcome)
      for line in outcome.output.split(separator: "\n") {
        #expect(line.count <= 80, "too wide: \(line)")
      }
    }
  }

  @Test func diagramHelpReadsLikeSwiftArgumentParsers() async {
    let outcome = await Tool.run(["diagram", "-h"])
    expectText(
      outcome.output,
      """
      OVERVIEW: Draw a chart as a Mermaid or Graphviz diagram.

      Writes the diagram to standard output. Render the DOT with Graphviz:
        flowchart diagram chart.json --format dot | dot -Tsvg -o chart.svg

      With --run, draws on it a run that `run --log-file` logged: the states it
      entered, with their visits and time, the exits it took, where it failed or was
      cancelled and why, and the states it never reached, faded.

      USAGE: flowchart diagram <file> [--format <format>] [--run <run-log>]

      ARGUMENTS:
        <file>                  The chart file, JSON (.json) or XML (.xml).

      OPTIONS:
        --format <format>       The diagram's language: mermaid or dot. (default:
                                mermaid)
        --run <run-log>         A run log of the chart (JSON lines, from run
                                --log-file) to draw on it.
        -h, --help              Show help information.

      """)
  }

  @Test func bareToolIsAUsageErrorFollowedByTheHelp() async {
    let outcome = await Tool.run([])
    #expect(outcome.exitCode == .usageError)
    #expect(outcome.output.isEmpty)
    #expect(outcome.errorOutput.hasPrefix("Error: Missing required subcommand.\n\nOVERVIEW: "))
  }

  @Test func unknownCommandIsAUsageErrorWithTheToolsUsage() async {
    let outcome = await Tool.run(["draw", "chart.json"])
    #expect(outcome.exitCode == .usageError)
    expectText(
      outcome.errorOutput,
      """
      Error: Unexpected argument 'draw'
      Usage: flowchart <subcommand>
        See 'flowchart --help' for more information.

      """)
  }

  @Test func wrongArgumentIsAUsageErrorWithTheCommandsUsage() async {
    let outcome = await Tool.run(["print"])
    #expect(outcome.exitCode == .usageError)
    expectText(
      outcome.errorOutput,
      """
      Error: Missing expected argument '<file>'
      Help:  <file>  The chart file, JSON (.json) or XML (.xml).
      Usage: flowchart print <file>
        See 'flowchart print --help' for more information.

      """)
  }

  // MARK: - validate

  @Test func validateListsEachValidFileWithItsStates() async {
    let outcome = await Tool.run(["validate", sample("health.json"), sample("form.xml")])
    #expect(outcome.exitCode == .success)
    #expect(outcome.errorOutput.isEmpty)
    #expect(
      outcome.output
        == "\(sample("health.json")): valid, 4 states\n\(sample("form.xml")): valid, 11 states\n")
  }

  @Test func validateReportsEveryProblemWithFileLineAndColumnAndExitsWithOne() async throws {
    let files = try TemporaryFiles()
    let broken = try files.write("three-mistakes.json", Fixtures.threeMistakes)
    let outcome = await Tool.run(["validate", broken, sample("health.xml")])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output == "\(sample("health.xml")): valid, 4 states\n")
    expectText(
      outcome.errorOutput.replacingOccurrences(of: files.directory + "/", with: ""),
      """
      three-mistakes.json:7:9: error: GoTo 'Lift weight' refers to no state. Declare a state named 'Lift weight', or use one of the declared names (did you mean 'Lift weights'?).
      three-mistakes.json:10:9: error: Condition 'Injured?' is final but declares exits, which could never be taken. Remove "final": true, or remove the exits.
      three-mistakes.json:14:5: error: Action 'Do sit-ups' is the last state of the top level and is not final, so the flow has nowhere to go after it. Add a state or a goTo after it, or declare it final ("final": true).
      Error: 1 of 2 files has problems.

      """)
  }

  @Test func validateReportsAFileThatCannotBeRead() async throws {
    let files = try TemporaryFiles()
    let missing = files.directory + "/missing.json"
    let outcome = await Tool.run(["validate", missing])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.errorOutput.hasPrefix(missing + ":"))
    #expect(outcome.errorOutput.contains(": error: "))
  }

  @Test func validateReportsMalformedSyntax() async throws {
    let files = try TemporaryFiles()
    let truncated = try files.write("truncated.xml", "<flowchart>\n  <action name=\"A\"")
    let outcome = await Tool.run(["validate", truncated])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.errorOutput.hasPrefix(truncated + ":2:"))
  }

  // MARK: - print, diagram, convert

  @Test func printWritesTheTree() async {
    let outcome = await Tool.run(["print", sample("health.json")])
    #expect(outcome.exitCode == .success)
    expectText(
      outcome.output,
      """
      Willing to exercise? (S)
      Y- Lift weights (A)
      |  Do sit-ups (A) !
      N- Injured? (S) !

      """)
  }

  @Test func diagramWritesMermaidByDefaultAndDOTOnRequest() async {
    let mermaid = await Tool.run(["diagram", sample("health.xml")])
    #expect(mermaid.exitCode == .success)
    #expect(mermaid.output.hasPrefix("flowchart TD\n  s0{\"Willing to exercise?\"}\n"))
    let dot = await Tool.run(["diagram", "--format", "dot", sample("health.xml")])
    #expect(dot.output.hasPrefix("digraph {\n"))
    #expect(
      dot.output.contains("  s3 [label=\"Injured?\", shape=diamond];\n  s3_end [label=\"\", "))
  }

  @Test func diagramOfAnInvalidFileReportsItsProblems() async throws {
    let files = try TemporaryFiles()
    let broken = try files.write("three-mistakes.json", Fixtures.threeMistakes)
    let outcome = await Tool.run(["diagram", broken])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    #expect(outcome.errorOutput.split(separator: "\n").count == 3)
  }

  @Test(arguments: ["health", "first-launch", "form"])
  func convertWritesTheOtherSyntaxAndReadingItBackGivesTheSameTree(sample name: String) async throws
  {
    let files = try TemporaryFiles()
    let xml = await Tool.run(["convert", sample("\(name).json"), "--to", "xml"])
    #expect(xml.exitCode == .success)
    let written = try files.write("\(name).xml", xml.output)
    let original = await Tool.run(["print", sample("\(name).json")])
    let roundTrip = await Tool.run(["print", written])
    #expect(roundTrip.exitCode == .success)
    #expect(roundTrip.output == original.output)
    let json = await Tool.run(["convert", written, "--to=json"])
    #expect(json.output.hasPrefix("{"))
  }

  // MARK: - run

  @Test func runOfADataOnlyChartPrintsTheResultAndContext() async {
    let outcome = await Tool.run([
      "run", sample("form.json"), "--context",
      #"{"answers": {"name": "Ada", "age": 36, "email": "ada@example.com", "plan": "pro"}}"#,
    ])
    #expect(outcome.exitCode == .success)
    expectText(
      outcome.output,
      """
      Final state: Accept
      Decision: done
      Path: Start application -> Answered every question? -> Adult? -> Which plan? -> Offer priority support -> Accept
      Context: {"answers": {"age": 36, "email": "ada@example.com", "name": "Ada", "plan": "pro"}, "status": "accepted", "support": "priority"}

      """)
  }

  @Test func runWithForcedDecisionsWalksAChartBoundToCodeAndLogsEachStep() async {
    let outcome = await Tool.run([
      "run", sample("health.json"), "--decide", "Willing to exercise?=no", "--decide",
      "Injured?=yes", "--log",
    ])
    #expect(outcome.exitCode == .success)
    expectText(
      outcome.output,
      """
      Willing to exercise? (S) no -> Injured?
      Injured? (S) ended: yes
      Final state: Injured?
      Decision: yes
      Path: Willing to exercise? -> Injured?
      Context: {}

      """)
  }

  @Test func stateDecidedSeveralTimesTakesOneDecisionPerVisit() async throws {
    let files = try TemporaryFiles()
    let retry = try files.write("retry.json", Fixtures.retry)
    let outcome = await Tool.run([
      "run", retry, "--decide", "Succeeded?=no", "--decide", "Succeeded?=yes",
    ])
    #expect(outcome.exitCode == .success)
    #expect(
      outcome.output.contains("Path: Fetch -> Succeeded? -> Wait -> Fetch -> Succeeded? -> Done\n"))
  }

  @Test func logShowsEachBranchStateAndTheDispatchOnceItJoins() async throws {
    let files = try TemporaryFiles()
    let sync = try files.write("sync.json", Fixtures.dispatch)
    let outcome = await Tool.run(["run", sync, "--decide", "Notes changed?=no", "--log"])
    #expect(outcome.exitCode == .success)
    let lines = outcome.output.split(separator: "\n").map(String.init)
    // The branches run concurrently, so their lines may come in either order.
    #expect(
      Set(lines.prefix(3)) == [
        "Upload photos (A) ended: done", "Notes changed? (S) no -> Skip notes",
        "Skip notes (A) ended: done",
      ])
    #expect(lines.dropFirst(3).prefix(2) == ["Sync (D) -> Done", "Done (A) ended: done"])
  }

  @Test func runThatReachesCodeItDoesNotHaveFailsAndSaysHowToForceIt() async {
    let outcome = await Tool.run(["run", sample("health.json")])
    #expect(outcome.exitCode == .failure)
    #expect(outcome.output.isEmpty)
    #expect(
      outcome.errorOutput.hasPrefix("Error: The run stopped at condition 'Willing to exercise?'"))
    #expect(outcome.errorOutput.contains("--decide 'Willing to exercise?=yes'"))
  }

  @Test func decisionForAnUnknownStateIsAUsageErrorThatSuggestsTheName() async {
    let outcome = await Tool.run(["run", sample("health.json"), "--decide", "Injure?=yes"])
    #expect(outcome.exitCode == .usageError)
    #expect(outcome.errorOutput.hasPrefix("Error: No state is named 'Injure?'."))
    #expect(outcome.errorOutput.contains("did you mean 'Injured?'?"))
  }

  @Test func decisionAConditionCannotTakeIsAUsageError() async {
    let outcome = await Tool.run(["run", sample("health.json"), "--decide", "Injured?=maybe"])
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.hasPrefix(
        "Error: The value 'Injured?=maybe' is invalid for '--decide <state=decision>': condition 'Injured?'"
      ))
  }

  @Test func contextThatIsNotJSONIsAUsageError() async {
    let outcome = await Tool.run(["run", sample("form.json"), "--context", "{answers"])
    #expect(outcome.exitCode == .usageError)
    #expect(
      outcome.errorOutput.hasPrefix("Error: The value '{answers' is invalid for '--context <json>'")
    )
  }
}

/// Chart files the tests write.
enum Fixtures {
  /// Three mistakes: a misspelled `goTo`, a final condition with a branch, and a last state
  /// that is not final.
  static let threeMistakes = """
    {
      "flowchart": [
        {
          "condition": "Willing to exercise?",
          "run": "isWillingToExercise",
          "yes": [
            {"goTo": "Lift weight"}
          ],
          "no": [
            {"condition": "Injured?", "final": true, "run": "isInjured", "yes": [{"action": "Rest", "final": true}]}
          ]
        },
        {"action": "Lift weights", "run": "liftWeights"},
        {"action": "Do sit-ups", "run": "doSitUps"}
      ]
    }

    """

  /// A dispatch of two branches, one with a condition bound to code.
  static let dispatch = """
    {
      "flowchart": [
        {
          "dispatch": "Sync",
          "branches": [
            {"name": "Photos", "states": [{"action": "Upload photos", "final": true, "run": "upload"}]},
            {"states": [
              {
                "condition": "Notes changed?", "run": "notesChanged",
                "yes": [{"action": "Upload notes", "final": true}],
                "no": [{"action": "Skip notes", "final": true}]
              }
            ]}
          ]
        },
        {"action": "Done", "final": true}
      ]
    }

    """

  /// A retry loop whose condition is bound to code.
  static let retry = """
    {
      "flowchart": [
        {"action": "Fetch", "run": "fetch"},
        {
          "condition": "Succeeded?",
          "run": "succeeded",
          "yes": [{"action": "Done", "final": true}],
          "no": [{"action": "Wait"}, {"goTo": "Fetch"}]
        }
      ]
    }

    """
}

/// The path of the repository's sample `name`, in `Samples/`.
func sample(_ name: String) -> String {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Samples").appendingPathComponent(name)
    .path
}

/// A folder of its own in the temporary directory, removed when the value is.
final class TemporaryFiles {
  /// The folder's path.
  let directory: String

  init() throws {
    directory =
      FileManager.default.temporaryDirectory
      .appendingPathComponent("flowchart-cli-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(
      atPath: directory, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(atPath: directory)
  }

  /// Writes `text` to the file `name` in the folder; returns its path.
  func write(_ name: String, _ text: String) throws -> String {
    let path = directory + "/" + name
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }
}

/// Expects `actual` to equal `expected`, showing both on a mismatch.
func expectText(
  _ actual: String, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(actual == expected, sourceLocation: sourceLocation)
}
