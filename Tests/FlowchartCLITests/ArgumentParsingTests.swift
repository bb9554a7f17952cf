import Testing

@testable import FlowchartCLI

/// Reading a command's arguments: options anywhere, `--name=value`, `--`, repeated options,
/// and the usage errors of swift-argument-parser's wording.
struct ArgumentParsingTests {
  private var run: CommandSpec { Tool.commands.first { $0.name == "run" }! }
  private var diagram: CommandSpec { Tool.commands.first { $0.name == "diagram" }! }
  private var convert: CommandSpec { Tool.commands.first { $0.name == "convert" }! }
  private var validate: CommandSpec { Tool.commands.first { $0.name == "validate" }! }

  @Test func optionsMayComeBeforeOrAfterTheFileAndRepeatWhenAllowed() throws {
    let parsed = try #require(
      try run.parse([
        "--decide", "A=yes", "chart.json", "--context={\"a\": 1}", "--decide", "B=x=y", "--log",
      ]))
    #expect(parsed.positionals == ["chart.json"])
    #expect(parsed.values(of: "--decide") == ["A=yes", "B=x=y"])
    #expect(parsed.value(of: "--context") == "{\"a\": 1}")
    #expect(parsed.isSet("--log"))
  }

  @Test func doubleDashEndsTheOptions() throws {
    let parsed = try #require(try validate.parse(["--", "-odd.json", "--help"]))
    #expect(parsed.positionals == ["-odd.json", "--help"])
  }

  @Test func helpAnywhereAsksForHelp() throws {
    #expect(try diagram.parse(["chart.json", "-h"]) == nil)
    #expect(try diagram.parse(["--format", "dot", "--help"]) == nil)
  }

  @Test func validateTakesOneOrMoreFiles() throws {
    let parsed = try #require(try validate.parse(["a.json", "b.xml"]))
    #expect(parsed.positionals == ["a.json", "b.xml"])
    #expect(
      throws: UsageError(
        message: "Missing expected argument '<files> ...'",
        help: "<files>  The chart files to check, JSON (.json) or XML (.xml).", command: "validate")
    ) { try validate.parse([]) }
  }

  @Test func unknownOptionIsAUsageError() {
    #expect(throws: UsageError(message: "Unknown option '--formt'", command: "diagram")) {
      try diagram.parse(["chart.json", "--formt", "dot"])
    }
  }

  @Test func valueOutsideTheListIsAUsageErrorThatListsTheValues() {
    #expect(
      throws: UsageError(
        message:
          "The value 'svg' is invalid for '--format <format>'. Please provide one of 'mermaid' and 'dot'.",
        help: "--format <format>  The diagram's language: mermaid or dot. (default: mermaid)",
        command: "diagram")
    ) { try diagram.parse(["chart.json", "--format=svg"]) }
  }

  @Test func optionWithoutItsValueIsAUsageError() {
    #expect(throws: UsageError.self) { try diagram.parse(["chart.json", "--format"]) }
    let error = #expect(throws: UsageError.self) {
      try run.parse(["chart.json", "--decide", "--log"])
    }
    #expect(error?.message == "Missing value for '--decide <state=decision>'")
  }

  @Test func flagWithAValueIsAUsageError() {
    let error = #expect(throws: UsageError.self) { try run.parse(["chart.json", "--log=yes"]) }
    #expect(error?.message == "The flag '--log' does not take a value")
  }

  @Test func singleOptionGivenTwiceIsAUsageError() {
    let error = #expect(throws: UsageError.self) {
      try diagram.parse(["chart.json", "--format", "dot", "--format", "mermaid"])
    }
    #expect(error?.message == "The option '--format' is given more than once; give it once")
  }

  @Test func requiredOptionMissingIsAUsageError() {
    let error = #expect(throws: UsageError.self) { try convert.parse(["chart.json"]) }
    #expect(error?.message == "Missing expected argument '--to <syntax>'")
  }

  @Test func extraArgumentIsAUsageError() {
    let error = #expect(throws: UsageError.self) { try diagram.parse(["a.json", "b.json"]) }
    #expect(error?.message == "Unexpected argument 'b.json'")
  }

  @Test func decisionSplitsAtItsLastEqualsSign() throws {
    #expect(try Tool.parseDecision("a=b=yes") == ("a=b", "yes"))
    #expect(try Tool.parseDecision("Plan?=") == ("Plan?", ""))
    #expect(throws: UsageError.self) { try Tool.parseDecision("Injured?") }
    #expect(throws: UsageError.self) { try Tool.parseDecision("=yes") }
  }

  @Test func contextKeepsBooleansNumbersAndNesting() throws {
    let value = try Tool.parseContext(#"{"a": true, "b": 1.5, "c": [null, "x"], "d": {"e": 0}}"#)
    #expect(value == ["a": true, "b": 1.5, "c": [nil, "x"], "d": ["e": 0]])
    #expect(try Tool.parseContext("false") == false)
    #expect(throws: UsageError.self) { try Tool.parseContext("{x") }
  }
}
