import Flowchart
import Testing

/// The context of the STWorkflow README flow.
private struct Launch: Sendable {
  var isFirstLaunch: Bool
  var isOtherCheck = false
  var log: [String] = []
}

private func launchChart() throws -> Flowchart<Launch> {
  try Flowchart<Launch> {
    Condition("Check first launch") {
      $0.isFirstLaunch
    } yes: {
      Action("Fetch something") { $0.log.append("fetched") }
      Action("Final state", isFinal: true) { $0.log.append("final") }
    } no: {
      Condition("An other check") {
        $0.isOtherCheck
      } yes: {
        GoTo("Final state")
      } no: {
        Action("Log something") { $0.log.append("logged") }
        GoTo("Final state")
      }
    }
  }
}

/// The names of the states of a path.
private func names<Context>(_ path: [StateID], in chart: Flowchart<Context>) -> [String] {
  path.map { chart[$0].name }
}

private struct Failure: Error, Equatable {
  var code: Int
}

struct RunTests {
  @Test(arguments: [
    (true, false, ["Check first launch", "Fetch something", "Final state"], ["fetched", "final"]),
    (false, true, ["Check first launch", "An other check", "Final state"], ["final"]),
    (
      false, false, ["Check first launch", "An other check", "Log something", "Final state"],
      ["logged", "final"]
    ),
  ])
  func synchronousRunFollowsTheDecidedExits(
    isFirstLaunch: Bool, isOtherCheck: Bool, expectedPath: [String], expectedLog: [String]
  ) throws {
    let chart = try launchChart()
    let context = Launch(isFirstLaunch: isFirstLaunch, isOtherCheck: isOtherCheck)
    let result = try chart.runSynchronously(with: context)
    #expect(result.finalStateName == "Final state")
    #expect(result.finalState == chart.state(named: "Final state"))
    #expect(result.decision == .done)
    #expect(names(result.path, in: chart) == expectedPath)
    #expect(result.stepCount == expectedPath.count)
    #expect(result.context.log == expectedLog)
  }

  @Test func asynchronousRunMatchesTheSynchronousRun() async throws {
    let chart = try launchChart()
    for isFirstLaunch in [true, false] {
      let context = Launch(isFirstLaunch: isFirstLaunch)
      let synchronous = try chart.runSynchronously(with: context)
      let asynchronous = try await chart.run(with: context)
      #expect(asynchronous.path == synchronous.path)
      #expect(asynchronous.context.log == synchronous.context.log)
      #expect(asynchronous.decision == synchronous.decision)
    }
  }

  @Test func finalConditionReportsItsDecision() async throws {
    let chart = try Flowchart<Bool> {
      Condition("Injured?", isFinal: true) { $0 }
    }
    #expect(try chart.runSynchronously(with: true).decision == .yes)
    #expect(try chart.runSynchronously(with: false).decision == .no)
    #expect(try await chart.run(with: false).decision == .no)
  }

  @Test func finalMultipleConditionReportsItsKey() async throws {
    enum Grade: Hashable, Sendable { case high, low }
    let chart = try Flowchart<Int> {
      MultipleCondition("Grade", isFinal: true) { $0 > 5 ? Grade.high : .low }
    }
    let result = try chart.runSynchronously(with: 9)
    #expect(result.decision == .key(Grade.high))
    #expect(result.decision.key(as: Grade.self) == .high)
    #expect(result.decision.key(as: String.self) == nil)
    #expect(try await chart.run(with: 1).decision == .key(Grade.low))
  }

  @Test func asynchronousStatesAwaitTheirWork() async throws {
    let chart = try Flowchart<[String]> {
      Action("Load") { log in
        await Task.yield()
        log.append("loaded")
      }
      Condition("Loaded?") { log in
        await Task.yield()
        return log.contains("loaded")
      } yes: {
        MultipleCondition("Pick") { _ in
          await Task.yield()
          return "a"
        } exits: {
          Case("a") { Action("A", isFinal: true) { $0.append("a") } }
          Case("b") { Action("B", isFinal: true) }
        }
      } no: {
        Action("Failed", isFinal: true)
      }
    }
    #expect(!chart.isSynchronous)
    #expect(chart[chart.start].isAsynchronous)
    let result = try await chart.run(with: [])
    #expect(result.context == ["loaded", "a"])
    #expect(names(result.path, in: chart) == ["Load", "Loaded?", "Pick", "A"])
  }

  @Test func multipleConditionFollowsTheKeyOrTheDefault() throws {
    let chart = try Flowchart<String> {
      MultipleCondition("Route") {
        $0
      } exits: {
        Case("left") { Action("Left", isFinal: true) }
        Case("right") { Action("Right", isFinal: true) }
        Default { Action("Elsewhere", isFinal: true) }
      }
    }
    #expect(try chart.runSynchronously(with: "left").finalStateName == "Left")
    #expect(try chart.runSynchronously(with: "right").finalStateName == "Right")
    #expect(try chart.runSynchronously(with: "up").finalStateName == "Elsewhere")
  }

  @Test func multipleConditionWithManyKeysUsesTheRightExit() throws {
    // More keys than the linear search handles, so the lookup table is used.
    let chart = try Flowchart<Int> {
      MultipleCondition("Route") {
        $0
      } exits: {
        for key in 0..<40 {
          Case(key) { Action("Exit \(key)", isFinal: true) }
        }
      }
    }
    for key in [0, 7, 8, 9, 23, 39] {
      #expect(try chart.runSynchronously(with: key).finalStateName == "Exit \(key)")
    }
    #expect(throws: RunError.self) { try chart.runSynchronously(with: 40) }
  }

  @Test func unmatchedKeyEndsTheRunWithARunError() throws {
    let chart = try Flowchart<String> {
      Action("Start") { _ in }
      MultipleCondition("Route") {
        $0
      } exits: {
        Case("left") { Action("Left", isFinal: true) }
      }
    }
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: "up") }
    #expect(error.kind == .unmatchedKey)
    #expect(error.stateName == "Route")
    #expect(error.unmatchedKey.map { AnyHashable($0) } == AnyHashable("up"))
    #expect(names(error.path, in: chart) == ["Start", "Route"])
    #expect(error.description.contains("'up'"))
    #expect(error.description.contains("Path: Start → Route"))
  }

  @Test func thrownErrorEndsTheRunNamingTheStateAndPath() async throws {
    let chart = try Flowchart<Int> {
      Action("Prepare") { $0 += 1 }
      Action("Upload") { value in
        if value > 0 { throw Failure(code: 42) }
      }
      Action("Done", isFinal: true)
    }
    for error in [
      try #require(throws: RunError.self) { try chart.runSynchronously(with: 0) },
      try await #require(throws: RunError.self) { try await chart.run(with: 0) },
    ] {
      #expect(error.kind == .thrown)
      #expect(error.state == chart.state(named: "Upload"))
      #expect(error.stateName == "Upload")
      #expect(names(error.path, in: chart) == ["Prepare", "Upload"])
      #expect(error.underlyingError as? Failure == Failure(code: 42))
      #expect(error.description.contains("action 'Upload'"))
      #expect(error.description.contains("RunTests.swift"))
    }
  }

  @Test func asynchronousThrownErrorIsReported() async throws {
    let chart = try Flowchart<Int> {
      Condition("Check") { _ in
        await Task.yield()
        throw Failure(code: 7)
      } yes: {
        Action("Yes", isFinal: true)
      } no: {
        Action("No", isFinal: true)
      }
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Check")
    #expect(error.underlyingError as? Failure == Failure(code: 7))
  }

  @Test func runStartsAtAnyNamedTopLevelState() async throws {
    let chart = try launchChart()
    let byName = try chart.runSynchronously(
      with: Launch(isFirstLaunch: true), startingAt: "Log something")
    #expect(names(byName.path, in: chart) == ["Log something", "Final state"])
    let byID = try await chart.run(
      with: Launch(isFirstLaunch: true),
      startingAt: try #require(chart.state(named: "An other check")))
    #expect(names(byID.path, in: chart) == ["An other check", "Log something", "Final state"])
  }

  @Test func startingAtAnUnknownOrAmbiguousNameIsARunError() async throws {
    let chart = try Flowchart<Int> {
      Action("Twin") { _ in }
      Action("Twin", isFinal: true)
    }
    let unknown = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, startingAt: "Nobody")
    }
    #expect(unknown.kind == .unknownStartState)
    #expect(unknown.state == nil)
    #expect(unknown.stateName == "Nobody")
    let ambiguous = try await #require(throws: RunError.self) {
      try await chart.run(with: 0, startingAt: "Twin")
    }
    #expect(ambiguous.kind == .unknownStartState)
    #expect(ambiguous.description.contains("2 states"))
    let outOfRange = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, startingAt: StateID(99))
    }
    #expect(outOfRange.kind == .unknownStartState)
  }

  @Test func startingInsideADispatchBranchIsARunError() throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fan out") {
        Branch { Action("Inside", isFinal: true) }
      }
      Action("After", isFinal: true)
    }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, startingAt: "Inside")
    }
    #expect(error.kind == .unknownStartState)
    #expect(error.description.contains("dispatch branch"))
  }

  @Test func synchronousRunOfAnAsynchronousChartFailsBeforeRunningAnything() throws {
    let chart = try Flowchart<[String]> {
      Action("Sync") { $0.append("sync") }
      Action("Async", isFinal: true) { log in
        await Task.yield()
        log.append("async")
      }
    }
    #expect(!chart.isSynchronous)
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: []) }
    #expect(error.kind == .asynchronousState)
    #expect(error.stateName == "Async")
    #expect(error.path.isEmpty)
    #expect(error.description.contains("chart.run(with:)"))
  }

  @Test func stepLimitStopsARunawayLoop() async throws {
    let chart = try Flowchart<Int> {
      Action("Spin") { $0 += 1 }
      Condition("Again?") { _ in
        true
      } yes: {
        GoTo("Spin")
      } no: {
        Action("Never", isFinal: true)
      }
    }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, stepLimit: 5)
    }
    #expect(error.kind == .stepLimitExceeded)
    #expect(error.path.count == 5)
    // The run stopped before entering its sixth state, the third "Again?".
    #expect(error.stateName == "Again?")
    #expect(names(error.path, in: chart) == ["Spin", "Again?", "Spin", "Again?", "Spin"])
    #expect(error.description.contains("step limit of 5"))
    let asynchronous = try await #require(throws: RunError.self) {
      try await chart.run(with: 0, stepLimit: 3)
    }
    #expect(asynchronous.kind == .stepLimitExceeded)
    #expect(names(asynchronous.path, in: chart) == ["Spin", "Again?", "Spin"])
    #expect(asynchronous.stateName == "Again?")
  }

  @Test func stepLimitEqualToThePathLengthIsEnough() throws {
    let chart = try launchChart()
    let result = try chart.runSynchronously(with: Launch(isFirstLaunch: true), stepLimit: 3)
    #expect(result.stepCount == 3)
  }

  @Test func millionStepCycleRunsWithoutGrowingTheStack() async throws {
    let chart = try Flowchart<Int> {
      Action("Increment") { $0 += 1 }
      Condition("Below a million?") {
        $0 < 500_000
      } yes: {
        GoTo("Increment")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    let synchronous = try chart.runSynchronously(with: 0)
    #expect(synchronous.context == 500_000)
    #expect(synchronous.stepCount == 1_000_001)
    #expect(synchronous.path.count == RunResult<Int>.pathCapacity)
    #expect(chart[try #require(synchronous.path.last)].name == "Done")
    #expect(chart[synchronous.path[synchronous.path.count - 2]].name == "Below a million?")
    let asynchronous = try await chart.run(with: 0)
    #expect(asynchronous.stepCount == synchronous.stepCount)
    #expect(asynchronous.path == synchronous.path)
  }

  @Test func contextChangesPersistAcrossStatesAndRuns() throws {
    let chart = try Flowchart<[Int]> {
      Action("One") { $0.append(1) }
      Action("Two") { $0.append(2) }
      Action("Three", isFinal: true) { $0.append(3) }
    }
    #expect(try chart.runSynchronously(with: [0]).context == [0, 1, 2, 3])
    // A chart is reusable: each run starts from the context it is given.
    #expect(try chart.runSynchronously(with: []).context == [1, 2, 3])
  }

  @Test func concurrentRunsOfOneChartAreIndependent() async throws {
    let chart = try Flowchart<Int> {
      Action("Add") { value in
        await Task.yield()
        value += 1
      }
      Condition("Below ten?") {
        $0 < 10
      } yes: {
        GoTo("Add")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    let results = try await withThrowingTaskGroup(of: Int.self) { group in
      for start in 0..<20 {
        group.addTask { try await chart.run(with: start % 10).context }
      }
      return try await group.reduce(into: [Int]()) { $0.append($1) }
    }
    #expect(results == Array(repeating: 10, count: 20))
  }

  @Test func pathKeepsTheMostRecentStatesInOrder() throws {
    let chart = try Flowchart<Int> {
      Action("Tick") { $0 += 1 }
      Condition("Again?") {
        $0 < 3_000
      } yes: {
        GoTo("Tick")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    let result = try chart.runSynchronously(with: 0)
    #expect(result.stepCount == 6_001)
    #expect(result.path.count == RunResult<Int>.pathCapacity)
    // Oldest first: the kept window ends with the final state, alternating before it.
    let names = result.path.map { chart[$0].name }
    #expect(names.last == "Done")
    for (offset, name) in names.dropLast().reversed().enumerated() {
      #expect(name == (offset.isMultiple(of: 2) ? "Again?" : "Tick"))
    }
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, stepLimit: 4_000)
    }
    #expect(error.path.count == RunResult<Int>.pathCapacity)
    #expect(error.path.last.map { chart[$0].name } == "Again?")
    #expect(error.stateName == "Tick")
  }

  @Test func longDispatchBranchesJoinTheirPathAndStepCount() async throws {
    let chart = try Flowchart<Int> {
      Action("Begin") { _ in }
      Dispatch("Fan out") {
        Branch {
          Action("Count") { $0 += 1 }
          Condition("More?") {
            $0 < 1_500
          } yes: {
            GoTo("Count")
          } no: {
            Action("Counted", isFinal: true)
          }
        }
        Branch { Action("Short", isFinal: true) }
      }
      Action("End", isFinal: true)
    }
    for result in [
      try chart.runSynchronously(with: 0),
      try await chart.run(with: 0),
    ] {
      #expect(result.stepCount == 2 + 3_001 + 1 + 1)
      #expect(result.path.count == RunResult<Int>.pathCapacity)
      let names = result.path.suffix(4).map { chart[$0].name }
      #expect(names == ["More?", "Counted", "Short", "End"])
    }
    // Joined branch states count toward the step limit of the flow that dispatched them.
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: 0, stepLimit: 3_004)
    }
    #expect(error.kind == .stepLimitExceeded)
    #expect(error.stateName == "End")
  }
}
