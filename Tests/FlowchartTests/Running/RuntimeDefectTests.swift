import Flowchart
import Testing

/// An error a state throws on purpose.
private struct Breakdown: Error, Equatable {}

/// A context that records what ran.
private struct Journal: Sendable {
  var log: [String] = []
  var count = 0
}

/// A chart of `depth` dispatches, each the only state of its parent's one branch, around
/// one final action: built iteratively, and kept for the whole test process, so that
/// neither building nor releasing it depends on the stack.
private let deeplyNestedDispatches: Flowchart<Int> = {
  var innermost = Dispatch<Int>("Dispatch 0", isFinal: true) {
    Branch { Action("Leaf", isFinal: true) { $0 += 1 } }
  }
  for level in 1..<10_000 {
    let inner = innermost
    innermost = Dispatch<Int>("Dispatch \(level)", isFinal: true, merge: { $0 += $1 }) {
      Branch { inner }
    }
  }
  let outermost = innermost
  // The chart is compiled once, on first use; a failure shows in the test that uses it.
  return try! Flowchart<Int> { outermost }
}()

struct RuntimeDefectTests {
  // MARK: - Nested dispatches

  @Test func synchronousRunOfTenThousandNestedDispatchesDoesNotGrowTheStack() throws {
    let chart = deeplyNestedDispatches
    let result = try chart.runSynchronously(with: 0)
    #expect(result.context == 0)  // the innermost dispatch drops its branch's copy
    #expect(result.finalStateName == "Dispatch 9999")
    #expect(result.decision == .done)
    #expect(result.stepCount == 10_001)
    #expect(result.pathNames.last == "Leaf")
    #expect(result.path.count == RunResult<Int>.pathCapacity)
  }

  @Test func asynchronousRunOfTenThousandNestedDispatchesAgreesWithTheSynchronousRun()
    async throws
  {
    let chart = deeplyNestedDispatches
    let result = try await chart.run(with: 0)
    #expect(result.finalStateName == "Dispatch 9999")
    #expect(result.stepCount == 10_001)
    #expect(result.pathNames == (try chart.runSynchronously(with: 0)).pathNames)
  }

  @Test func nestedSynchronousDispatchesJoinInDeclarationOrder() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Journal> {
      Action("Before") { $0.log.append("before") }
      Dispatch("Outer", merge: { $0.log += $1.log.dropFirst(1) }) {
        Branch {
          Dispatch("Inner", isFinal: true, merge: { $0.log += $1.log.dropFirst(1) }) {
            Branch { Action("A", isFinal: true) { $0.log.append("a") } }
            Branch { Action("B", isFinal: true) { $0.log.append("b") } }
          }
        }
        Branch { Action("C", isFinal: true) { $0.log.append("c") } }
      }
      Action("After", isFinal: true) { $0.log.append("after") }
    }
    let synchronous = try chart.runSynchronously(with: Journal())
    let asynchronous = try await chart.run(with: Journal())
    for result in [synchronous, asynchronous] {
      #expect(result.context.log == ["before", "a", "b", "c", "after"])
      #expect(result.pathNames == ["Before", "Outer", "Inner", "A", "B", "C", "After"])
      #expect(result.stepCount == 7)
    }
  }

  @Test func failureInANestedSynchronousBranchNamesEveryEnclosingFlow() throws {
    // swift-format-ignore
    let chart = try Flowchart<Journal> {
      Action("Before") { _ in }
      Dispatch("Outer") {
        Branch { Action("Fine", isFinal: true) }
        Branch {
          Action("Prepare") { _ in }
          Dispatch("Inner", isFinal: true) {
            Branch { Action("Fail", isFinal: true) { _ in throw Breakdown() } }
          }
        }
      }
      Action("After", isFinal: true)
    }
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: Journal()) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Fail")
    #expect(error.pathNames == ["Before", "Outer", "Prepare", "Inner", "Fail"])
    #expect(error.description.contains("Path: Before → Outer → Prepare → Inner → Fail"))
  }

  // MARK: - Step limit

  /// A final dispatch of four one-state branches: five states in all.
  private func finalDispatchOfFour() throws -> Flowchart<Int> {
    try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true) {
        for index in 0..<4 {
          Branch { Action("Branch \(index)", isFinal: true) { $0 += 1 } }
        }
      }
    }
  }

  @Test func stepLimitStopsAFinalDispatchWhoseBranchesJoinPastIt() async throws {
    let chart = try finalDispatchOfFour()
    for error in [
      try #require(throws: RunError.self) { try chart.runSynchronously(with: 0, stepLimit: 1) },
      try await #require(throws: RunError.self) { try await chart.run(with: 0, stepLimit: 1) },
    ] {
      #expect(error.kind == .stepLimitExceeded)
      #expect(error.stateName == "Fan out")
      #expect(error.path.count == 5)
      #expect(error.description.contains("step limit of 1 state when the branches"))
      #expect(error.description.contains("it entered 5 states"))
    }
  }

  @Test func stepLimitThatCoversTheBranchesLetsTheDispatchJoin() async throws {
    let chart = try finalDispatchOfFour()
    #expect(try chart.runSynchronously(with: 0, stepLimit: 5).stepCount == 5)
    #expect(try await chart.run(with: 0, stepLimit: 5).stepCount == 5)
  }

  @Test func negativeStepLimitIsAClearErrorBeforeAnyStateRuns() async throws {
    let chart = try Flowchart<Int> {
      Action("Never", isFinal: true) { _ in throw Breakdown() }
    }
    for error in [
      try #require(throws: RunError.self) { try chart.runSynchronously(with: 0, stepLimit: -5) },
      try await #require(throws: RunError.self) { try await chart.run(with: 0, stepLimit: -1) },
    ] {
      #expect(error.kind == .invalidStepLimit)
      #expect(error.state == nil)
      #expect(error.path.isEmpty)
      #expect(error.description.contains("nil for no limit"))
    }
    let five = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, stepLimit: -5)
    }
    #expect(five.description.hasPrefix("A run cannot have a step limit of -5 states"))
  }

  @Test func countsInRunErrorsAgreeWithTheirNumber() throws {
    let chart = try Flowchart<Int> {
      Action("Spin") { $0 += 1 }
      Action("Stop", isFinal: true)
    }
    let limit = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, stepLimit: 1)
    }
    #expect(limit.description.contains("step limit of 1 state before entering action 'Stop'"))
    let outOfRange = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, startingAt: StateID(9))
    }
    #expect(outOfRange.description.contains("the chart has 2 states"))
    let single = try Flowchart<Int> { Action("Only", isFinal: true) }
    let beyond = try #require(throws: RunError.self) {
      try single.runSynchronously(with: 0, startingAt: StateID(1))
    }
    #expect(beyond.description.contains("the chart has 1 state."))
  }

  // MARK: - Paths

  /// A loop of 1,400 states, then a dispatch whose branch loops 1,400 more and then runs
  /// `last`.
  private func longPathsAroundADispatch(failing: Bool) throws -> Flowchart<Int> {
    // swift-format-ignore
    try Flowchart<Int> {
      Action("Tick") { $0 += 1 }
      Condition("More?") { $0 < 700 } yes: { GoTo("Tick") } no: {}
      Dispatch("Fan out", isFinal: true) {
        Branch {
          Action("Spin") { $0 += 1 }
          Condition("Again?") { $0 < 1_400 } yes: { GoTo("Spin") } no: {}
          Action("Last", isFinal: true) { _ in if failing { throw Breakdown() } }
        }
      }
    }
  }

  @Test func runErrorPathKeepsAtMostThePathCapacityAfterADispatch() async throws {
    let chart = try longPathsAroundADispatch(failing: true)
    for error in [
      try #require(throws: RunError.self) { try chart.runSynchronously(with: 0) },
      try await #require(throws: RunError.self) { try await chart.run(with: 0) },
    ] {
      #expect(error.kind == .thrown)
      #expect(error.path.count == RunResult<Int>.pathCapacity)
      #expect(error.pathNames.count == RunResult<Int>.pathCapacity)
      #expect(error.pathNames.suffix(3) == ["Spin", "Again?", "Last"])
      #expect(error.path.last == chart.state(named: "Last"))
    }
  }

  @Test func runResultPathKeepsAtMostThePathCapacityAfterADispatch() async throws {
    let chart = try longPathsAroundADispatch(failing: false)
    for result in [
      try chart.runSynchronously(with: 0),
      try await chart.run(with: 0),
    ] {
      #expect(result.stepCount == 1_400 + 1 + 1_400 + 1)
      #expect(result.path.count == RunResult<Int>.pathCapacity)
      #expect(result.pathNames.last == "Last")
    }
  }

  @Test func resultsAndErrorsNameTheirPaths() async throws {
    let chart = try Flowchart<Int> {
      Action("Prepare") { $0 += 1 }
      Condition("Ready?") {
        $0 > 0
      } yes: {
        Action("Upload", isFinal: true) { _ in throw Breakdown() }
      } no: {
        Action("Wait", isFinal: true)
      }
    }
    let result = try chart.runSynchronously(with: -1)
    #expect(result.pathNames == ["Prepare", "Ready?", "Wait"])
    #expect(result.pathNames == result.path.map { chart[$0].name })
    let error = try await #require(throws: RunError.self) { try await chart.run(with: 0) }
    #expect(error.pathNames == ["Prepare", "Ready?", "Upload"])
    #expect(error.pathNames == error.path.map { chart[$0].name })
  }

  // MARK: - Start

  @Test func runStartsAtAStateIDThatWasFound() async throws {
    let chart = try Flowchart<[String]> {
      Action("First") { $0.append("first") }
      Action("Last", isFinal: true) { $0.append("last") }
    }
    let last = try #require(chart.state(named: "Last"))
    #expect(try chart.runSynchronously(with: [], startingAt: last).context == ["last"])
    #expect(try await chart.run(with: [], startingAt: last).context == ["last"])
    #expect(try chart.runSynchronously(with: []).context == ["first", "last"])
  }

  // MARK: - Merge

  @Test func mergeMayReadTheContextAsItWasBeforeTheDispatch() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Journal> {
      Action("Before") { $0.log.append("before") }
      Dispatch("Fan out") { context, branch, original in
        context.log += branch.log.dropFirst(original.log.count)
        context.count += branch.count - original.count
      } branches: {
        Branch { Action("A", isFinal: true) { $0.log.append("a"); $0.count += 1 } }
        Branch { Action("B", isFinal: true) { $0.log.append("b"); $0.count += 2 } }
      }
      Action("After", isFinal: true) { $0.log.append("after") }
    }
    let start = Journal(log: [], count: 10)
    for result in [
      try chart.runSynchronously(with: start),
      try await chart.run(with: start),
    ] {
      #expect(result.context.log == ["before", "a", "b", "after"])
      #expect(result.context.count == 13)
    }
  }

  @Test func twoArgumentMergeStillGetsTheRunningContextAndTheBranch() throws {
    // swift-format-ignore
    let chart = try Flowchart<Journal> {
      Action("Before") { $0.log.append("before") }
      Dispatch("Fan out", isFinal: true) { context, branch in
        context.log += branch.log
      } branches: {
        Branch { Action("A", isFinal: true) { $0.log.append("a") } }
      }
    }
    #expect(try chart.runSynchronously(with: Journal()).context.log == ["before", "before", "a"])
  }
}
