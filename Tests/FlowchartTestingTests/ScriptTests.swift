import Flowchart
import FlowchartTesting
import Testing

struct ScriptTests {
  @Test func forcedDecisionsChooseTheRouteWithoutRunningTheirCode() async throws {
    let chart = try healthWorkflow()
    // The subject would go the other way at both conditions: the script decides.
    let subject = Subject(isWillingToExercise: true, isInjured: false)
    let result = try await chart.run(
      with: subject, script: ["Willing to exercise?": .no, "Injured?": .yes])
    #expect(result.pathNames == ["Willing to exercise?", "Injured?"])
    #expect(result.finalStateName == "Injured?")
    #expect(result.decision == .yes)
  }

  @Test func unscriptedStatesRunTheirOwnCode() async throws {
    let chart = try healthWorkflow()
    let result = try await chart.run(
      with: Subject(isWillingToExercise: false), script: ["Willing to exercise?": .yes])
    #expect(result.pathNames == ["Willing to exercise?", "Lift weights", "Do sit-ups"])
    #expect(result.context.log == ["lifted weights", "did sit-ups"])
    #expect(result.decision == .done)
  }

  @Test func forcingDoneOnAnActionSkipsItsCode() async throws {
    let chart = try healthWorkflow()
    let script: Script = ["Willing to exercise?": .yes, "Lift weights": .done]
    let result = try await chart.run(with: Subject(), script: script)
    #expect(result.context.log == ["did sit-ups"])
  }

  @Test func keptCodeRunsButTheScriptDecides() throws {
    let chart = try retryLoop()
    // `Failed?` would say yes while the count is below 3; the script says no at once, and
    // `Fetch` keeps counting.
    let script = Script().deciding("Failed?", .no).keepingCode(of: "Failed?")
    let result = try chart.runSynchronously(with: Counter(), script: script)
    #expect(result.pathNames == ["Fetch", "Failed?", "Done"])
    #expect(result.context.count == 1)
  }

  @Test func keptCodeOfACondition() throws {
    struct Probe: Sendable { var asked = 0 }
    // swift-format-ignore
    let chart = try Flowchart<Probe> {
      Condition("Ask") { probe in probe.asked += 1; return true } yes: {
        Action("Yes", isFinal: true)
      } no: {
        Action("No", isFinal: true)
      }
    }
    let kept = try chart.runSynchronously(
      with: Probe(), script: Script().deciding("Ask", .no).keepingCode(of: "Ask"))
    #expect(kept.finalStateName == "No")
    #expect(kept.context.asked == 1)
    let skipped = try chart.runSynchronously(with: Probe(), script: ["Ask": .no])
    #expect(skipped.finalStateName == "No")
    #expect(skipped.context.asked == 0)
  }

  @Test func aStateListedTwiceTakesItsDecisionsInTurn() throws {
    let chart = try retryLoop()
    let script: Script = ["Failed?": .yes, "Failed?": .yes, "Failed?": .no]
    // `Fetch` would stop after 3; the counter shows the script's three visits.
    let result = try chart.runSynchronously(with: Counter(count: 10), script: script)
    #expect(
      result.pathNames == ["Fetch", "Failed?", "Fetch", "Failed?", "Fetch", "Failed?", "Done"])
    #expect(result.context.count == 13)
  }

  @Test func aStateThatRunsOutOfDecisionsFailsTheRun() throws {
    let chart = try retryLoop()
    let script = Script().deciding("Failed?", .yes, .yes)
    let error = #expect(throws: RunError.self) {
      try chart.runSynchronously(with: Counter(), script: script)
    }
    #expect(error?.kind == .thrown)
    #expect(error?.stateName == "Failed?")
    let message = error.map { "\($0.underlyingError as Any)" } ?? ""
    #expect(
      message.contains(
        "gives 'Failed?' (FlowchartTestingTests/Fixtures.swift:47) 2 decisions, one per visit, but the runs of the scripted chart entered it 3 times"
      ), "\(message)")
  }

  @Test func aKeyLeadsToTheExitWithItsTextOrToTheDefault() throws {
    let chart = try everyKindChart()
    let free = try chart.runSynchronously(with: Counter(), script: ["Plan?": .key(Plan.free)])
    #expect(free.pathNames.prefix(2) == ["Plan?", "Show ads"])
    let pro = try chart.runSynchronously(with: Counter(), script: ["Plan?": .key("pro")])
    #expect(pro.pathNames.prefix(2) == ["Plan?", "Sync"])
    let team = try chart.runSynchronously(with: Counter(), script: ["Plan?": .key(Plan.team)])
    #expect(team.pathNames.prefix(2) == ["Plan?", "Invite team"])
  }

  @Test func statesInsideBranchesCanBeForced() async throws {
    let chart = try everyKindChart()
    let result = try await chart.run(
      with: Counter(), script: ["Plan?": .key(Plan.pro), "Has changes?": .no])
    #expect(
      result.pathNames == ["Plan?", "Sync", "Upload", "Has changes?", "Skip", "Done"])
    #expect(result.context.log == ["upload"])
  }

  @Test func forcingEveryAsynchronousStateMakesTheChartSynchronous() throws {
    let chart = try healthWorkflow()
    #expect(!chart.isSynchronous)
    let script: Script = ["Lift weights": .done, "Do sit-ups": .done]
    #expect(try chart.scripted(script).isSynchronous)
    let kept = script.keepingCode(of: "Lift weights")
    #expect(try !chart.scripted(kept).isSynchronous)
    let result = try chart.runSynchronously(
      with: Subject(isWillingToExercise: true), script: script)
    #expect(result.pathNames == ["Willing to exercise?", "Lift weights", "Do sit-ups"])
    #expect(result.context.log.isEmpty)
  }

  @Test func theOriginalChartIsUntouched() throws {
    let chart = try retryLoop()
    _ = try chart.scripted(["Failed?": .no])
    let result = try chart.runSynchronously(with: Counter())
    #expect(result.context.count == 3)
  }

  @Test func aStepLimitStillApplies() throws {
    let chart = try retryLoop()
    let error = #expect(throws: RunError.self) {
      try chart.runSynchronously(with: Counter(), script: ["Failed?": .yes], stepLimit: 10)
    }
    #expect(error?.kind == .stepLimitExceeded)
  }

  // MARK: - Errors at the call

  @Test func aDecisionTheStateCannotMakeIsAnError() throws {
    let chart = try healthWorkflow()
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Lift weights": .yes])
    }
    #expect(error?.stateName == "Lift weights")
    #expect(
      error?.message
        == "A script cannot force yes on action 'Lift weights' (FlowchartTestingTests/Fixtures.swift:22): it can decide only done. Force one of those instead."
    )
  }

  @Test func aKeyOnAConditionIsAnError() throws {
    let chart = try healthWorkflow()
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Injured?": .key("maybe")])
    }
    #expect(error?.message.contains("it can decide yes or no.") == true)
  }

  @Test func aKeyWithoutAnExitIsAnErrorWhenThereIsNoDefault() throws {
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      MultipleCondition("Size?") { _ in "s" } exits: {
        Case("s") { Action("Small", isFinal: true) }
        Case("l") { Action("Large", isFinal: true) }
      }
    }
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Size?": .key("m")])
    }
    #expect(
      error?.message.hasSuffix(
        "it can decide a key of its exits (its exits: s, l). Force one of those instead.")
        == true, "\(error as Any)")
  }

  @Test func aDispatchCannotBeForced() throws {
    let chart = try everyKindChart()
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Sync": .done])
    }
    #expect(error?.message.contains("a dispatch decides nothing") == true)
  }

  @Test func anUnknownNameIsAnErrorThatSuggestsTheClosestName() throws {
    let chart = try healthWorkflow()
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Injured": .yes])
    }
    #expect(
      error?.message
        == "No state is named 'Injured'. Use the name of one of the chart's 4 states (did you mean 'Injured?'?)."
    )
  }

  @Test func keepingTheCodeOfAStateTheScriptDoesNotForceIsAnError() throws {
    let chart = try healthWorkflow()
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(Script().keepingCode(of: "Injured?"))
    }
    #expect(error?.message.contains("which it does not force: that code runs anyway") == true)
  }

  @Test func anAmbiguousNameIsAnError() throws {
    // swift-format-ignore
    let chart = try Flowchart<Counter> {
      Condition("Check") { _ in true } yes: {
        Action("Log")
        Action("End", isFinal: true)
      } no: {
        Action("Log")
        Action("Other end", isFinal: true)
      }
    }
    let error = #expect(throws: ScriptError.self) {
      try chart.scripted(["Log": .done])
    }
    #expect(error?.message.hasPrefix("2 states are named 'Log' (declared at ") == true)
  }

  @Test func aScriptDescribesItself() {
    let script = Script().deciding("Retry?", .yes, .no).deciding("Plan?", .key(Plan.pro))
      .keepingCode(of: "Plan?")
    #expect(
      script.description == "Retry? = yes/no, Plan? = key(pro) (keeping the code of Plan?)")
  }

  /// A subflow on the whole context runs its chart in place; scripted, observed or left
  /// alone, it decides as its chart does.
  @Test func aSubflowRunInPlaceCanBeForcedAndCovered() async throws {
    let check = try Flowchart<Counter> {
      Action("Count") { $0.count += 1 }
      Condition("Enough?", isFinal: true) { $0.count >= 2 }
    }
    let chart = try Flowchart<Counter> {
      Subflow("Check", running: check, context: .whole) {
        Action("Done", isFinal: true)
      } no: {
        GoTo("Check")
      }
    }
    let plain = try chart.runSynchronously(with: Counter())
    #expect(plain.pathNames == ["Check", "Check", "Done"])
    #expect(plain.context.count == 2)

    let forced = try chart.runSynchronously(
      with: Counter(), script: Script().deciding("Check", .yes).keepingCode(of: "Check"))
    #expect(forced.pathNames == ["Check", "Done"])
    #expect(forced.context.count == 1)

    let coverage = Coverage(of: chart)
    let covered = try await coverage.recordingChart.run(with: Counter())
    #expect(covered.pathNames == plain.pathNames)
    #expect(covered.context.count == 2)
    #expect(coverage.isComplete, "\(coverage.report)")
  }
}
