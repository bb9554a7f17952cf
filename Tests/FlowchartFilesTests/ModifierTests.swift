import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// Counts calls from the code of a chart's states.
///
/// `@unchecked Sendable`: `count` is only read and written under `lock`.
final class CallCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0

  func increment() { lock.withLock { value += 1 } }
  var count: Int { lock.withLock { value } }
}

/// Timeouts, retries and catch routes written in files.
struct ModifierTests {
  static let json = """
    {"flowchart": [
      {"action": "Charge", "run": "charge", "timeout": 30,
       "retry": {"count": 3, "backoff": "exponential", "initial": 0.5, "multiplier": 2, "maximum": 10, "jitter": "full", "seed": 7, "errors": "declined"},
       "catch": [{"goTo": "Use cache", "errors": "timeout"}, {"goTo": "Report", "storeAt": "error"}]},
      {"action": "Done", "final": true},
      {"action": "Use cache", "final": true},
      {"action": "Report", "final": true}
    ]}
    """

  static let xml = """
    <flowchart>
      <action name="Charge" run="charge" timeout="30">
        <retry count="3" backoff="exponential" initial="0.5" multiplier="2" maximum="10" jitter="full" seed="7" errors="declined"/>
        <catch goTo="Use cache" errors="timeout"/>
        <catch goTo="Report" storeAt="error"/>
      </action>
      <action name="Done" final="true"/>
      <action name="Use cache" final="true"/>
      <action name="Report" final="true"/>
    </flowchart>
    """

  @Test(arguments: ChartSyntax.allCases)
  func bothSyntaxesReadTheSameModifiers(syntax: ChartSyntax) throws {
    let file = try parse(syntax == .json ? Self.json : Self.xml, syntax)
    let modifiers = file.states[0].modifiers
    #expect(modifiers.timeout == 30)
    #expect(modifiers.retry?.count == 3)
    #expect(
      modifiers.retry?.backoff
        == ChartBackoff(
          schedule: .exponential(initial: 0.5, multiplier: 2, maximum: 10), jitter: .full,
          seed: 7))
    #expect(modifiers.retry?.errors == "declined")
    #expect(modifiers.catches.map(\.target) == ["Use cache", "Report"])
    #expect(modifiers.catches.map(\.errors) == ["timeout", nil])
    #expect(modifiers.catches.map(\.storeAt) == [nil, "error"])
    #expect(file.states[1].modifiers.isEmpty)
  }

  @Test func theWriterWritesModifiersBackInBothSyntaxes() throws {
    let file = try parse(Self.json, .json)
    let json = file.text(in: .json)
    let xml = file.text(in: .xml)
    #expect(
      json.contains(
        #"{"action": "Charge", "run": "charge", "timeout": 30, "retry": {"count": 3, "backoff": "exponential", "initial": 0.5, "multiplier": 2, "maximum": 10, "jitter": "full", "seed": 7, "errors": "declined"}, "catch": [{"goTo": "Use cache", "errors": "timeout"}, {"goTo": "Report", "storeAt": "error"}]},"#
      ), "\(json)")
    expectText(
      xml,
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <flowchart>
        <action name="Charge" run="charge" timeout="30">
          <retry count="3" backoff="exponential" initial="0.5" multiplier="2" maximum="10" jitter="full" seed="7" errors="declined"/>
          <catch goTo="Use cache" errors="timeout"/>
          <catch goTo="Report" storeAt="error"/>
        </action>
        <action name="Done" final="true"/>
        <action name="Use cache" final="true"/>
        <action name="Report" final="true"/>
      </flowchart>

      """)
    for syntax in ChartSyntax.allCases {
      let reread = try parse(file.text(in: syntax), syntax)
      #expect(reread.text(in: .json) == json)
      #expect(reread.text(in: .xml) == xml)
    }
  }

  @Test func modifiersOfStatesWithBlocksAreWrittenFirst() throws {
    let file = try parse(
      """
      <flowchart>
        <condition name="Ready?" timeout="0.25">
          <present path="a"/>
          <catch goTo="End"/>
          <yes><action name="Go"/></yes>
        </condition>
        <action name="End" final="true"/>
      </flowchart>
      """, .xml)
    expectText(
      file.text(in: .xml),
      """
      <?xml version="1.0" encoding="UTF-8"?>
      <flowchart>
        <condition name="Ready?" timeout="0.25">
          <catch goTo="End"/>
          <present path="a"/>
          <yes>
            <action name="Go"/>
          </yes>
        </condition>
        <action name="End" final="true"/>
      </flowchart>

      """)
    let json = file.text(in: .json)
    #expect(try parse(json, .json) == parse(json, .json))
    #expect(try parse(json, .json).states[0].modifiers.catches.map(\.target) == ["End"])
    #expect(try parse(json, .json).states[0].modifiers.timeout == 0.25)
  }

  @Test func aDataOnlyChartCatchesABuiltInFailureAndStoresItsMessage() throws {
    let file = try parse(
      """
      {"flowchart": [
        {"action": "Check stock", "fail": "Out of stock",
         "catch": [{"goTo": "Apologise", "errors": "failure", "storeAt": "problem"}]},
        {"action": "Ship", "final": true},
        {"action": "Apologise", "final": true}
      ]}
      """, .json)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    let result = try chart.runSynchronously(with: .object([:]))
    #expect(result.pathNames == ["Check stock", "Apologise"])
    #expect(result.context[path: "problem"] == .string("Out of stock"))
  }

  @Test func anUncaughtBuiltInFailureFailsTheRunWithItsMessage() throws {
    let file = try parse(
      #"<flowchart><action name="Check" fail="Nope"/><action name="End" final="true"/></flowchart>"#,
      .xml)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect { try chart.runSynchronously(with: .object([:])) } throws: { error in
      "\(error)".contains("Nope")
    }
  }

  @Test func aRetryNamesTheErrorsItRetriesAndACatchItsHandler() throws {
    let attempts = CallCounter()
    var handlers = HandlerRegistry<ChartValue>()
    handlers["flaky"] = .action { _ in
      attempts.increment()
      throw ChartFailure(stateName: "Fetch", message: "flaky")
    }
    handlers["retryable"] = .errors(ChartFailure.self)
    handlers["note"] = .catch { context, error in context[path: "note"] = .string("\(error)!") }
    let file = try parse(
      """
      <flowchart>
        <action name="Fetch" run="flaky">
          <retry count="2" errors="retryable"/>
          <catch goTo="Recover" run="note"/>
        </action>
        <action name="Done" final="true"/>
        <action name="Recover" final="true"/>
      </flowchart>
      """, .xml)
    let result = try file.flowchart(handlers: handlers).runSynchronously(with: .object([:]))
    #expect(attempts.count == 3)
    #expect(result.pathNames == ["Fetch", "Recover"])
    #expect(result.context[path: "note"] == .string("flaky!"))
  }

  @Test func backoffsInSecondsBecomeTheCoresBackoffs() {
    #expect(ChartBackoff().backoff.description == "immediate")
    #expect(ChartBackoff(schedule: .fixed(delay: 0.5)).backoff.description == "fixed 0.5s")
    let exponential = ChartBackoff(
      schedule: .exponential(initial: 0.1, multiplier: 3, maximum: 5), jitter: .full, seed: 1)
    #expect(exponential.backoff.description == "exponential 0.1s×3…5s, full jitter")
    let plain = ChartBackoff(schedule: .exponential(initial: 1, multiplier: 2, maximum: 5))
    #expect((1...4).map(plain.backoff.delay(beforeRetry:)) == [1, 2, 4, 5].map(Duration.seconds))
  }

  struct Declined: Error {}

  @Test func anErrorTypeRegisteredByItsNameIsCaughtByThatName() throws {
    var handlers = HandlerRegistry<ChartValue>()
    handlers["decline"] = .action { _ in throw Declined() }
    handlers.registerErrors(Declined.self)
    #expect(handlers.names.contains("Declined"))
    let file = try parse(
      """
      {"flowchart": [
        {"action": "Pay", "run": "decline",
         "catch": [{"goTo": "Timed out", "errors": "timeout"}, {"goTo": "Declined", "errors": "Declined"}]},
        {"action": "Paid", "final": true},
        {"action": "Timed out", "final": true},
        {"action": "Declined", "final": true}
      ]}
      """, .json)
    let result = try file.flowchart(handlers: handlers).runSynchronously(with: .object([:]))
    #expect(result.pathNames == ["Pay", "Declined"])
  }

  @Test func anErrorFilterThatRejectsTheErrorIsNotRetried() throws {
    let attempts = CallCounter()
    var handlers = HandlerRegistry<ChartValue>()
    handlers["flaky"] = .action { _ in
      attempts.increment()
      throw ChartFailure(stateName: "Fetch", message: "flaky")
    }
    let file = try parse(
      """
      {"flowchart": [
        {"action": "Fetch", "run": "flaky", "retry": {"count": 5, "errors": "timeout"},
         "catch": [{"goTo": "Recover"}]},
        {"action": "Recover", "final": true}
      ]}
      """, .json)
    let result = try file.flowchart(handlers: handlers).runSynchronously(with: .object([:]))
    #expect(attempts.count == 1)
    #expect(result.pathNames == ["Fetch", "Recover"])
  }

  @Test func theTreeShowsTheModifiers() throws {
    let chart = try parse(Self.json, .json).flowchart(
      handlers: {
        var handlers = HandlerRegistry<ChartValue>()
        handlers["charge"] = .action { _ in }
        handlers["declined"] = .errors { _ in true }
        return handlers
      }())
    #expect(chart.treeDescription.contains("timeout 30s"), "\(chart.treeDescription)")
    #expect(chart.treeDescription.contains("retry ×3"), "\(chart.treeDescription)")
  }

  @Test(arguments: ChartSyntax.allCases)
  func anUnknownCatchTargetIsTheCompilersLocatedError(syntax: ChartSyntax) {
    let text =
      syntax == .json
      ? """
      {"flowchart": [
        {"action": "Work", "fail": "x",
         "catch": [{"goTo": "Recovr"}]},
        {"action": "Recover", "final": true}
      ]}
      """
      : """
      <flowchart>
        <action name="Work" fail="x">
          <catch goTo="Recovr"/>
        </action>
        <action name="Recover" final="true"/>
      </flowchart>
      """
    let found = problems { () throws(DefinitionError) in
      _ = try parse(text, syntax).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1, "\(found)")
    let place = syntax == .json ? "test.json:3:14:" : "test.xml:3:5:"
    #expect(found.first?.hasPrefix(place) == true, "\(found)")
    #expect(found.first?.contains("'Recovr'") == true, "\(found)")
    #expect(found.first?.contains("Recover") == true, "\(found)")
  }

  @Test func anUnregisteredErrorNameIsLocated() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"action": "Work", "retry": {"count": 1, "errors": "network"}},
          {"action": "End", "final": true}
        ]}
        """, .json
      ).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(found.count == 1, "\(found)")
    #expect(found.first?.hasPrefix("test.json:2:31: unbound name:") == true, "\(found)")
    #expect(found.first?.contains("'network'") == true, "\(found)")
    #expect(found.first?.contains(".errors") == true, "\(found)")
  }

  @Test func badModifierValuesAreLocatedInJSON() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"action": "A", "timeout": 0},
          {"action": "B", "retry": {"count": -1}},
          {"action": "C", "retry": {"count": 1, "backoff": "fixed"}},
          {"action": "D", "retry": {"count": 1, "backoff": "sometimes"}},
          {"action": "E", "retry": {"count": 1, "seed": 3}},
          {"action": "F", "retry": {"count": 1, "backoff": "exponential", "initial": 1, "maximum": 2, "multiplier": 0.5}},
          {"action": "G", "catch": [{"errors": "timeout"}]},
          {"action": "H", "timeout": "30s"},
          {"action": "I", "retry": {"count": 1, "delay": 2}},
          {"dispatch": "J", "timeout": 3, "branches": []},
          {"action": "K", "catch": [{"goTo": "A", "colour": "red"}]}
        ]}
        """, .json)
    }
    #expect(found.count == 11, "\(found)")
    let places = found.map { $0.prefix { $0 != " " } }
    #expect(
      places == [
        "test.json:2:30:", "test.json:3:38:", "test.json:4:28:", "test.json:5:52:",
        "test.json:6:49:", "test.json:7:109:", "test.json:8:29:", "test.json:9:30:",
        "test.json:10:50:", "test.json:11:21:", "test.json:12:43:",
      ], "\(found)")
    #expect(found[0].contains("State 'A'") && found[0].contains("greater than zero"))
    #expect(found[1].contains("State 'B'") && found[1].contains("whole number from 0"))
    #expect(found[2].contains("\"delay\""))
    #expect(found[3].contains("immediate, fixed or exponential"))
    #expect(found[4].contains("\"jitter\""))
    #expect(found[5].contains("\"multiplier\""))
    #expect(found[6].contains("\"goTo\""))
    #expect(found[7].contains("as a number"))
    #expect(found[8].contains("whose backoff is immediate"))
    #expect(found[9].contains("Unknown key \"timeout\" for a dispatch"))
    #expect(found[10].contains("Unknown key \"colour\" in a catch route"))
  }

  @Test func badModifierValuesAreLocatedInXML() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <action name="A" timeout="-1"/>
          <action name="B"><retry count="two"/></action>
          <action name="C"><retry count="1" backoff="exponential" initial="1"/></action>
          <action name="D"><catch goTo="A" storeAt="x" run="y"/></action>
          <action name="E"><retry count="1"/><retry count="2"/></action>
          <dispatch name="F"><retry count="1"/></dispatch>
        </flowchart>
        """, .xml)
    }
    #expect(found.count == 6, "\(found)")
    let places = found.map { $0.prefix { $0 != " " } }
    #expect(
      places == [
        "test.xml:2:3:", "test.xml:3:20:", "test.xml:4:20:", "test.xml:5:20:", "test.xml:6:38:",
        "test.xml:7:22:",
      ], "\(found)")
    #expect(found[0].contains("State 'A'") && found[0].contains("greater than zero"))
    #expect(found[1].contains("State 'B'"))
    #expect(found[2].contains("initial and maximum"))
    #expect(found[3].contains("keep one"))
    #expect(found[4].contains("second <retry>"))
    #expect(found[5].contains("<dispatch> holds <retry>"))
  }
}

/// Inputs the fuzzing found that crash `XMLParser` on Linux, refused before it reads them.
struct XMLParserCrashTests {
  @Test func aProcessingInstructionWithoutDataIsALocatedError() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        "<?xm?>\n<flowchart>\n  <action name=\"A\" final=\"true\"/>\n</flowchart>", .xml)
    }
    #expect(found.count == 1, "\(found)")
    #expect(found.first?.hasPrefix("test.xml:1:1:") == true, "\(found)")
    #expect(found.first?.contains("processing instruction") == true, "\(found)")
  }

  @Test func theXMLDeclarationIsNoProcessingInstruction() throws {
    let file = try parse(
      "<?xml version=\"1.0\"?>\n<flowchart><action name=\"A\" final=\"true\"/></flowchart>", .xml)
    #expect(file.states.count == 1)
  }
}
