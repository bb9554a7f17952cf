import Flowchart
import FlowchartTesting
import Testing

/// A chart whose every state is asynchronous: a condition, a multiple condition, an action,
/// and a final multiple condition; each logs that its code ran.
private func asynchronousKinds() throws -> Flowchart<Counter> {
  // swift-format-ignore
  try Flowchart<Counter> {
    Condition("Ready?") { counter async in counter.log.append("ready"); return true } yes: {
      MultipleCondition("Size?") { counter async in counter.log.append("size"); return "s" } exits: {
        Case("s") { Action("Small") { counter async in counter.log.append("small") } }
        Case("l") {}
      }
      MultipleCondition("Grade", isFinal: true) { counter async in counter.log.append("grade"); return 1 }
    } no: {
      Action("Not ready", isFinal: true) { counter async in counter.log.append("not ready") }
    }
  }
}

struct AsynchronousScriptTests {
  @Test func forcedAsynchronousStatesRunWithoutTheirCode() async throws {
    let chart = try asynchronousKinds()
    let script: Script = ["Ready?": .yes, "Size?": .key("l"), "Grade": .key(3)]
    let result = try await chart.run(with: Counter(), script: script)
    #expect(result.pathNames == ["Ready?", "Size?", "Grade"])
    #expect(result.decision == .key(3))
    #expect(result.context.log.isEmpty)
    // Every asynchronous state forced, no code kept: the copy runs synchronously.
    #expect(try !chart.scripted(script).isSynchronous)
    let all = script.deciding("Small", .done).deciding("Not ready", .done)
    #expect(try chart.scripted(all).isSynchronous)
    #expect(try chart.runSynchronously(with: Counter(), script: all).decision == .key(3))
  }

  @Test func keptAsynchronousCodeRunsAndTheScriptDecides() async throws {
    let chart = try asynchronousKinds()
    let script = Script().deciding("Ready?", .yes).deciding("Size?", .key("l"))
      .deciding("Grade", .key(3)).keepingCode(of: "Ready?", "Size?", "Grade")
    #expect(try !chart.scripted(script).isSynchronous)
    let result = try await chart.run(with: Counter(), script: script)
    #expect(result.pathNames == ["Ready?", "Size?", "Grade"])
    #expect(result.decision == .key(3))
    #expect(result.context.log == ["ready", "size", "grade"])
  }

  @Test func keptCodeOfAnAsynchronousActionRuns() async throws {
    let chart = try asynchronousKinds()
    let script = Script().deciding("Ready?", .no).deciding("Not ready", .done)
      .keepingCode(of: "Not ready")
    let result = try await chart.run(with: Counter(), script: script)
    #expect(result.context.log == ["not ready"])
  }

  @Test func asynchronousStatesReportToACoverage() async throws {
    let chart = try asynchronousKinds()
    let coverage = Coverage(of: chart)
    _ = try await coverage.recordingChart.run(with: Counter())
    #expect(
      coverage.gaps.map { "\($0.missing == .state ? "state" : "exit") \($0.state.name)" } == [
        "exit Ready?", "exit Size?", "state Not ready",
      ])
    _ = try await chart.run(
      with: Counter(), script: Script().taking("Ready?", .no), recordingInto: coverage)
    _ = try await chart.run(
      with: Counter(), script: ["Size?": .key("l")], recordingInto: coverage)
    #expect(coverage.isComplete, "\(coverage.report)")
  }
}
