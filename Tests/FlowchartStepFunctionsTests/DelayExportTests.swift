import Flowchart
import FlowchartFiles
import FlowchartStepFunctions
import Testing

/// A delay exports to a `Wait` state: `Seconds` for a duration, `TimestampPath` for the time
/// a chart file's data holds; what a `Wait` state cannot say is refused.
struct DelayExportTests {
  @Test func aDelayForWholeSecondsIsAWaitWithSeconds() throws {
    let chart = try Flowchart<Int> {
      Delay("Remind later", for: .seconds(259_200))
      Action("Remind", isFinal: true) { _ in }
    }
    let states = try #require(try chart.stateMachineDefinition().document[path: "States"])
    #expect(states[path: "Remind_later.Type"] == "Wait")
    #expect(states[path: "Remind_later.Seconds"] == .number(259_200))
    #expect(states[path: "Remind_later.Next"] == "Remind")
    #expect(states[path: "Remind_later.TimestampPath"] == nil)
  }

  @Test func aFileDelayUntilADataPathIsAWaitWithATimestampPath() throws {
    let chart = try ChartFile.parse(
      """
      {"flowchart": [{"delay": "Expire the offer", "until": "offer.expiry", "final": true}]}
      """, syntax: .json, path: "offer.json"
    ).flowchart(handlers: HandlerRegistry<ChartValue>())
    let states = try #require(try chart.stateMachineDefinition().document[path: "States"])
    #expect(states[path: "Expire_the_offer.Type"] == "Wait")
    #expect(states[path: "Expire_the_offer.TimestampPath"] == "$.offer.expiry")
    #expect(states[path: "Expire_the_offer.End"] == .bool(true))
  }

  @Test func whatAWaitStateCannotSayIsRefused() throws {
    let chart = try Flowchart<Int> {
      Delay("Until a closure", until: { _ in WallClockTime(secondsSince1970: 0) })
      Delay("A fraction", for: .milliseconds(1500))
      Delay("Retried", for: .seconds(5)).retry(1)
      Action("End", isFinal: true) { _ in }
    }
    #expect {
      _ = try chart.stateMachineDefinition()
    } throws: { error in
      (error as? StepFunctionsExportError)?.problems.map(\.message) == [
        "Delay 'Until a closure' waits until a time its Swift closure reads from the context, which a Step Functions Wait state cannot run: declare it in a chart file, until a context key that holds an RFC 3339 time (a TimestampPath).",
        "Delay 'A fraction' waits for a fraction of a second, and a Step Functions Wait state counts whole seconds: wait for whole seconds.",
        "Delay 'Retried' has retries or catch routes, which a Step Functions Wait state does not take: leave them out.",
      ]
    }
  }
}
