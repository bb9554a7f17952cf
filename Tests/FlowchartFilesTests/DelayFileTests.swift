import Flowchart
import FlowchartFiles
import Testing

/// Delays written in chart files: `{"delay": …, "seconds": …}` or `"until"` a path of the
/// data holding an RFC 3339 time, in both syntaxes; written back; and their mistakes.
@Suite(.timeLimit(.minutes(5)))
struct DelayFileTests {
  private static let json = """
    {"flowchart": [
      {"delay": "Remind later", "seconds": 259200},
      {"delay": "Expire the offer", "until": "offer.expiry", "retry": {"count": 1}},
      {"delay": "Settle", "seconds": 0.5, "final": true}
    ]}
    """

  private static let xml = """
    <flowchart>
      <delay name="Remind later" seconds="259200"/>
      <delay name="Expire the offer" until="offer.expiry">
        <retry count="1"/>
      </delay>
      <delay name="Settle" seconds="0.5" final="true"/>
    </flowchart>
    """

  @Test(arguments: [(json, ChartSyntax.json), (xml, .xml)])
  func aDelayIsReadPrintedAndWrittenBack(text: String, syntax: ChartSyntax) throws {
    let file = try parse(text, syntax)
    #expect(
      file.states.map(\.kind) == [
        .delay(ChartDelay(name: "Remind later", timing: .seconds(259_200))),
        .delay(ChartDelay(name: "Expire the offer", timing: .until(path: "offer.expiry"))),
        .delay(ChartDelay(name: "Settle", isFinal: true, timing: .seconds(0.5))),
      ])
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    #expect(
      chart.description == """
        Remind later (T) · for 3 days
        Expire the offer (T) · until 'offer.expiry' [retry ×1]
        Settle (T) ! · for 0.5s
        """)
    // Written back, in either syntax, it reads as the same model.
    for target in [ChartSyntax.json, .xml] {
      let written = try parse(file.text(in: target), target)
      #expect(written.states.map(\.kind) == file.states.map(\.kind), "\(target)")
      #expect(
        written.states.map { $0.modifiers.retry?.count }
          == file.states.map { $0.modifiers.retry?.count },
        "\(target)")
    }
  }

  @Test func aDelayUntilATimeInTheDataWaitsUntilIt() async throws {
    let file = try parse(
      """
      {"flowchart": [
        {"delay": "Expire the offer", "until": "expiry"},
        {"action": "Expired", "final": true, "store": [{"path": "expired", "value": true}]}
      ]}
      """, .json)
    let chart = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
    // A time past: the run goes on at once.
    let past: ChartValue = .object(["expiry": .string("2001-01-01T00:00:00Z")])
    let result = try await chart.run(with: past)
    #expect(result.context[path: "expired"] == .bool(true))
    // A time to come: a live run waits until it, and says so.
    let future: ChartValue = .object(["expiry": .string("2100-01-01T00:00:00Z")])
    // Started paused, so that the subscription is made before the run can wait.
    let handle = chart.start(with: future, isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    while let event = await events.next() {
      if case .waitingUntil(let time) = event.kind {
        #expect(time == WallClockTime(rfc3339: "2100-01-01T00:00:00Z"))
        break
      }
    }
    #expect(handle.delays.map(\.stateName) == ["Expire the offer"])
    handle.cancel()
    await #expect(throws: RunError.self) { _ = try await handle.result }
  }

  @Test func aDelayWhoseDataHoldsNoTimeFailsTheRunSayingWhy() async throws {
    let chart = try parse(
      """
      <flowchart>
        <delay name="Expire the offer" until="expiry"/>
        <action name="Expired" final="true"/>
      </flowchart>
      """, .xml
    ).flowchart(handlers: HandlerRegistry<ChartValue>())
    await #expect {
      _ = try await chart.run(with: .object(["expiry": .string("tomorrow")]))
    } throws: { error in
      "\(error)".contains(
        "The run stopped at delay 'Expire the offer' (test.xml:2:3): it waits until the time at 'expiry' of the data, which holds \"tomorrow\", not an RFC 3339 time such as \"2026-01-04T00:00:00Z\": store the time there before the delay."
      )
    }
  }

  @Test func badDelaysAreLocatedErrors() {
    let json = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"delay": "Both", "seconds": 5, "until": "expiry"},
          {"delay": "Neither"},
          {"delay": "Negative", "seconds": -5},
          {"delay": "Text", "seconds": "5"},
          {"delay": "Typo", "secnds": 5},
          {"action": "End", "final": true}
        ]}
        """, .json)
    }
    #expect(
      json == [
        "test.json:2:3: malformed file: Delay 'Both' needs one of \"seconds\" (a number of seconds) or \"until\" (the key of the data that holds an RFC 3339 time, such as \"2026-01-04T00:00:00Z\"), not both.",
        "test.json:3:3: malformed file: Delay 'Neither' needs one of \"seconds\" (a number of seconds) or \"until\" (the key of the data that holds an RFC 3339 time, such as \"2026-01-04T00:00:00Z\"), not neither.",
        "test.json:4:36: malformed file: State 'Negative' has \"seconds\" = -5 seconds: give a number of seconds of zero or more, at most 1000000000.",
        "test.json:5:32: malformed file: Delay 'Text' has \"seconds\" in a string: write the seconds as a number, such as 30 or 259200.",
        "test.json:6:3: malformed file: Delay 'Typo' needs one of \"seconds\" (a number of seconds) or \"until\" (the key of the data that holds an RFC 3339 time, such as \"2026-01-04T00:00:00Z\"), not neither.",
        "test.json:6:21: malformed file: Unknown key \"secnds\" for a delay: its keys are \"catch\", \"final\", \"retry\", \"seconds\", \"timeout\", \"until\" (did you mean \"seconds\"?).",
      ])
    let xml = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        <flowchart>
          <delay name="Negative" seconds="-5"/>
          <delay name="Typo" secnds="5"/>
          <action name="End" final="true"/>
        </flowchart>
        """, .xml)
    }
    #expect(
      xml == [
        "test.xml:2:3: malformed file: State 'Negative' has seconds = -5 seconds: give a number of seconds of zero or more, at most 1000000000.",
        "test.xml:3:3: malformed file: Unknown attribute 'secnds' on <delay>: its attributes are final, name, seconds, timeout, until (did you mean 'seconds'?).",
        "test.xml:3:3: malformed file: Delay 'Typo' needs one of seconds=\"…\" (a number of seconds) or until=\"…\" (the key of the data that holds an RFC 3339 time, such as 2026-01-04T00:00:00Z), not neither.",
      ])
  }

  @Test func aTimeoutOnADelayIsALocatedDefinitionError() {
    let found = problems { () throws(DefinitionError) in
      _ = try parse(
        """
        {"flowchart": [
          {"delay": "Hurried", "seconds": 5, "timeout": 1},
          {"action": "End", "final": true}
        ]}
        """, .json
      ).flowchart(handlers: HandlerRegistry<ChartValue>())
    }
    #expect(
      found == [
        "test.json:2:3: invalid delay: Delay 'Hurried' has a timeout, which a delay does not take: it waits for its own time. Leave the timeout out, or wait for a shorter time."
      ])
  }
}
