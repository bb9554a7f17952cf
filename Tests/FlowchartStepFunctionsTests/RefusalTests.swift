import Flowchart
import FlowchartStepFunctions
import Testing

/// What ASL cannot say as Flowchart runs it is refused, each state named with its location and
/// the reason.
struct RefusalTests {
  private func messages<Context>(_ chart: Flowchart<Context>) -> [String] {
    do {
      _ = try chart.stateMachineDefinition()
      return []
    } catch {
      return error.problems.map(\.message)
    }
  }

  @Test func joinPolicyOtherThanAllIsRefused() throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fetch", isFinal: true, join: .firstSuccess) {
        Branch { Action("Mirror A", isFinal: true) { _ in } }
        Branch { Action("Mirror B", isFinal: true) { _ in } }
      }
    }
    #expect(
      messages(chart) == [
        "Dispatch 'Fetch' joins its branches with a policy other than `.all`, and a Step Functions Parallel state fails as soon as one branch fails and never stops early: join with `.all`, or catch each branch's failures inside the branch."
      ])
  }

  @Test func branchesThatWaitForBranchesAreRefused() throws {
    let chart = try Flowchart<Int> {
      Dispatch("Build", isFinal: true) {
        Branch("Compile") { Action("Compile sources", isFinal: true) { _ in } }
        Branch("Link", after: ["Compile"]) { Action("Link objects", isFinal: true) { _ in } }
      }
    }
    #expect(
      messages(chart) == [
        "Dispatch 'Build' has branches that wait for other branches, and a Parallel state starts all its branches at once: nest a dispatch in a branch instead."
      ])
  }

  @Test func equalJitterIsRefused() throws {
    let chart = try Flowchart<Int> {
      Action("Upload", isFinal: true) { _ in }
        .retry(2, backoff: .fixed(.seconds(1)).jittered(.equal))
    }
    #expect(
      messages(chart) == [
        "Action 'Upload' retries with equal jitter, and Step Functions' JitterStrategy is FULL or NONE: use `.jittered(.full)` or no jitter."
      ])
  }

  @Test func timeoutInFractionsOfASecondIsRefused() throws {
    let chart = try Flowchart<Int> {
      Action("Ping", isFinal: true) { _ in }.timeout(.milliseconds(1500))
    }
    #expect(
      messages(chart) == [
        "Action 'Ping' has a timeout of 1.5 seconds, and a Step Functions task's TimeoutSeconds is a whole number of seconds: round the timeout to whole seconds."
      ])
  }

  @Test func waitInsideASubflowIsRefused() throws {
    let inner = try Flowchart<Int> {
      Wait("Manager approval", for: Int.self, isFinal: true) { $0 = $1 }
    }
    let chart = try Flowchart<Int> {
      Subflow("Approve", isFinal: true, running: inner, context: .whole)
    }
    #expect(
      messages(chart) == [
        "Subflow 'Approve' runs a chart whose state 'Manager approval' waits for input, and its task runs that whole chart at once, where nothing can send the value: move the wait out to the outer chart, before or after the subflow."
      ])
  }

  @Test func waitInsideAMapsElementChartIsRefused() throws {
    let approve = try Flowchart<Int> {
      Wait("Line approval", for: Int.self, isFinal: true) { $0 = $1 }
    }
    let inner = try Flowchart<Int> {
      Action("Price line") { $0 += 1 }
      Subflow("Approve line", isFinal: true, running: approve, context: .whole)
    }
    let chart = try Flowchart<[Int]> {
      Map("Lines", isFinal: true, over: { $0 }, running: inner) { $0 = $1.outputs }
    }
    #expect(
      messages(chart) == [
        "Map 'Lines' runs a chart whose state 'Line approval' waits for input, and its task runs that whole chart at once, where nothing can send the value: move the wait out to the outer chart, before or after the map."
      ])
  }

  @Test func waitDirectlyInAMapsElementChartIsRefused() throws {
    let inner = try Flowchart<Int> {
      Wait("Line approval", for: Int.self, isFinal: true) { $0 = $1 }
    }
    let chart = try Flowchart<[Int]> {
      Map("Lines", isFinal: true, over: { $0 }, running: inner) { $0 = $1.outputs }
    }
    #expect(
      messages(chart) == [
        "Map 'Lines' runs a chart whose state 'Line approval' waits for input, and its task runs that whole chart at once, where nothing can send the value: move the wait out to the outer chart, before or after the map."
      ])
  }

  @Test func refusalNamesTheStateAndItsLocation() throws {
    let line = #line + 2
    let chart = try Flowchart<Int> {
      Dispatch("Race", isFinal: true, join: .quorum(1)) {
        Branch { Action("A", isFinal: true) { _ in } }
        Branch { Action("B", isFinal: true) { _ in } }
      }
    }
    do {
      _ = try chart.stateMachineDefinition()
      Issue.record("a quorum join was exported")
    } catch {
      #expect(error.problems.map(\.stateName) == ["Race"])
      #expect(error.problems.first?.location.line == line)
      #expect(error.description.hasPrefix("FlowchartStepFunctionsTests/RefusalTests.swift:\(line)"))
    }
  }
}
