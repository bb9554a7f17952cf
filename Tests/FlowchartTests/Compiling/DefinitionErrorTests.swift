import Flowchart
import Testing

/// Each kind of definition problem: its kind, the name and line it points at, and a message
/// that names the state and says what to do.
struct DefinitionErrorTests {
  // MARK: - The chart as a whole

  @Test func chartWithoutStatesIsEmpty() {
    let line = #line + 1
    let error = definitionError { try Flowchart<Switches> {} }
    expectOnlyProblem(
      error, .emptyChart, name: nil, line: line,
      saying: ["declares no states", "Declare at least one state"])
    #expect(error?.location.line == line)
  }

  @Test func chartOfOnlyGoTosOrEmptyLoopsIsEmpty() {
    let names: [String] = []
    let line = #line + 2
    let error = definitionError {
      try Flowchart<Switches> {
        GoTo("Somewhere")
        for name in names {
          Action(name, isFinal: true)
        }
      }
    }
    expectOnlyProblem(error, .emptyChart, name: nil, line: line)
  }

  // MARK: - Names

  @Test(arguments: ["", "First line\nsecond line", "Windows\r\nline", "Paragraph\u{2029}end"])
  func nameMustBeNonEmptyAndOnOneLine(name: String) {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Action(name, isFinal: true)
      }
    }
    let problem = expectOnlyProblem(error, .invalidName, name: name, line: line)
    #expect(problem?.message.contains(where: \.isNewline) == false)
    #expect(error?.description.split(separator: "\n").count == 2)
  }

  @Test func messageOfAnEmptyNameSaysToGiveOne() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Action("", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .invalidName, name: "", line: line, saying: ["empty name", "Give every state a name"])
  }

  @Test func messageOfAMultiLineNameShowsTheLineBreakEscaped() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Fetch\nthen log", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .invalidName, name: "Fetch\nthen log", line: line,
      saying: [#"Fetch\nthen log"#, "line break", "Keep names on one line"])
  }

  @Test(arguments: [
    ("Fetch dta", "Fetch data"),
    ("fetch DATA", "Fetch data"),
    ("Retyr", "Retry"),
  ])
  func goToAMissingNameIsUnknownAndSuggestsTheClosestName(name: String, suggestion: String) {
    let line = #line + 10
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Fetch data")
        Condition("Fetched?") {
          $0.isOn
        } yes: {
          Action("Done", isFinal: true)
        } no: {
          Action("Retry")
          GoTo(name)
        }
      }
    }
    expectOnlyProblem(
      error, .unknownName, name: name, line: line,
      saying: [
        "GoTo '\(name)' refers to no state", "Declare a state named '\(name)'",
        "(did you mean '\(suggestion)'?)",
      ])
  }

  @Test func unknownNameFarFromEveryNameSuggestsNothing() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Fetch data")
        GoTo("Completely unrelated")
      }
    }
    let problem = expectOnlyProblem(error, .unknownName, name: "Completely unrelated", line: line)
    #expect(problem?.message.contains("did you mean") == false)
  }

  @Test func entryPointNamingNoStateIsUnknownAtTheChartsLine() {
    let line = #line + 2
    let error = definitionError {
      try Flowchart<Switches>(entryPoints: ["Resme"]) {
        Action("Start")
        Action("Resume")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unknownName, name: "Resme", line: line,
      saying: ["Entry point 'Resme' refers to no state", "did you mean 'Resume'?"])
  }

  @Test func everyUnknownEntryPointIsReported() {
    let line = #line + 2
    let error = definitionError {
      try Flowchart<Switches>(entryPoints: ["Nowhere", "Elsewhere"]) {
        Action("Done", isFinal: true)
      }
    }
    expectProblems(
      error,
      [
        ExpectedProblem(.unknownName, "Nowhere", line: line),
        ExpectedProblem(.unknownName, "Elsewhere", line: line),
      ])
  }

  @Test func goToANameTwoStatesShareIsAmbiguous() {
    let firstLine = #line + 7
    let goToLine = #line + 11
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Verbose?") {
          $0.isOn
        } yes: {
          Action("Log", isFinal: true)
        } no: {
          Condition("Quiet?") {
            $0.isOn
          } yes: {
            GoTo("Log")
          } no: {
            Action("Log", isFinal: true)
          }
        }
      }
    }
    expectOnlyProblem(
      error, .ambiguousName, name: "Log", line: goToLine,
      saying: [
        "GoTo 'Log' is ambiguous", "2 states", "lines \(firstLine), \(goToLine + 2)",
        "Rename them",
      ])
  }

  @Test func entryPointNamingTwoStatesIsAmbiguous() {
    let line = #line + 2
    let error = definitionError {
      try Flowchart<Switches>(entryPoints: ["Log"]) {
        Condition("Verbose?") {
          $0.isOn
        } yes: {
          Action("Log", isFinal: true)
        } no: {
          Action("Log", isFinal: true)
        }
      }
    }
    expectOnlyProblem(
      error, .ambiguousName, name: "Log", line: line, saying: ["Entry point 'Log' is ambiguous"])
  }

  @Test func badGoTosGeneratedOnOneLineAreEachReported() {
    let line = #line + 7
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Command?") {
          $0.word
        } exits: {
          for command in ["retry", "skip"] {
            Case(command) { GoTo("Handle \(command)") }
          }
        }
      }
    }
    expectProblems(
      error,
      [
        ExpectedProblem(.unknownName, "Handle retry", line: line),
        ExpectedProblem(.unknownName, "Handle skip", line: line),
      ])
  }

  @Test func goToThatSeveralExitsShareIsReportedOnce() {
    let line = #line + 10
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Ready?") {
          $0.isOn
        } yes: {
          Action("Prepare")
        } no: {
        }
        // The yes branch falls through to this GoTo, and so does the empty no branch.
        GoTo("Missing")
      }
    }
    expectOnlyProblem(error, .unknownName, name: "Missing", line: line)
  }

  @Test func goToNoArrowTakesIsReportedAsSuchRatherThanByItsName() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Done", isFinal: true)
        GoTo("Don")
        GoTo("Dome")
      }
    }
    expectProblems(
      error,
      [
        ExpectedProblem(.unreachableGoTo, "Don", line: line),
        ExpectedProblem(.unreachableGoTo, "Dome", line: line + 1),
      ])
  }

  // MARK: - Exits

  @Test func nonFinalConditionWithoutBranchesMissesExits() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Ready?") { $0.isOn }
      }
    }
    expectOnlyProblem(
      error, .missingExits, name: "Ready?", line: line,
      saying: ["Condition 'Ready?' has no exits", "yes: and no:", "isFinal: true"])
  }

  @Test func nonFinalMultipleConditionWithoutExitsMissesExits() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        MultipleCondition("Which word?") { $0.word }
      }
    }
    expectOnlyProblem(
      error, .missingExits, name: "Which word?", line: line,
      saying: ["Multiple condition 'Which word?' has no exits", "Case", "isFinal: true"])
  }

  @Test func multipleConditionWithAnEmptyExitsBlockMissesExits() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        MultipleCondition("Which word?") {
          $0.word
        } exits: {
        }
      }
    }
    expectOnlyProblem(
      error, .missingExits, name: "Which word?", line: line,
      saying: ["'Which word?' has no exits"])
  }

  @Test func lastTopLevelStateThatIsNotFinalLeadsNowhere() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Action("Log")
      }
    }
    expectOnlyProblem(
      error, .exitLeadsNowhere, name: "Log", line: line,
      saying: ["Action 'Log' is the last state of the top level", "isFinal: true"])
  }

  @Test func emptyBranchOfConditionAtTheEndOfTheChartLeadsNowhere() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Ok?") {
          $0.isOn
        } yes: {
          Action("Done", isFinal: true)
        } no: {
        }
      }
    }
    expectOnlyProblem(
      error, .exitLeadsNowhere, name: "Ok?", line: line,
      saying: ["The 'no' exit of Condition 'Ok?' leads nowhere", "Put a state or a GoTo"])
  }

  @Test func emptyKeyedExitAtTheEndOfTheChartLeadsNowhereAndIsNamedByItsKey() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        MultipleCondition("Command?") {
          $0.word
        } exits: {
          Case("stop") { Action("Stopped", isFinal: true) }
          Case("wait") {}
          Default { Action("Unknown", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .exitLeadsNowhere, name: "Command?", line: line,
      saying: ["The 'wait' exit of Multiple condition 'Command?' leads nowhere"])
  }

  @Test func branchOfConditionEndingWithoutFinalStateAtTheEndLeadsNowhere() {
    let line = #line + 8
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Ok?") {
          $0.isOn
        } yes: {
          Action("Done", isFinal: true)
        } no: {
          Action("Log")
        }
      }
    }
    expectOnlyProblem(error, .exitLeadsNowhere, name: "Log", line: line)
  }

  @Test func lastStateOfDispatchBranchThatIsNotFinalLeadsNowhere() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Both") {
          Branch {
            Action("Left")
          }
          Branch {
            Action("Right", isFinal: true)
          }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .exitLeadsNowhere, name: "Left", line: line,
      saying: [
        "Action 'Left' is the last state of branch 1 of dispatch 'Both'",
        "A branch ends at a final state",
      ])
  }

  // MARK: - Keys

  @Test func sameCaseKeyTwiceIsADuplicateAtTheSecondCase() {
    let firstLine = #line + 7
    let line = #line + 8
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Which word?") {
          $0.word
        } exits: {
          Case("a") { Action("A", isFinal: true) }
          Case("b") { Action("B", isFinal: true) }
          Case("a") { Action("A again", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .duplicateKey, name: "Which word?", line: line,
      saying: ["'Which word?' has key 'a' twice", "first at line \(firstLine)", "Keep one exit"])
  }

  @Test func twoDefaultsAreADuplicate() {
    let line = #line + 8
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Which word?") {
          $0.word
        } exits: {
          Case("a") { Action("A", isFinal: true) }
          Default { Action("Other", isFinal: true) }
          Default { Action("Other again", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .duplicateKey, name: "Which word?", line: line,
      saying: ["'Which word?' has a Default twice", "first at line \(line - 1)"])
  }

  @Test func enumKeyWithACaseLackingAnExitMissesACase() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Which plan?") { _ in
          Membership.free
        } exits: {
          Case(.free) { Action("Show ads", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .missingCase, name: "Which plan?", line: line,
      saying: ["'Which plan?' has no exit for .pro, .team", "Add a Case for each, or a Default"])
  }

  @Test func enumKeyWithADefaultNeedsNoOtherCase() throws {
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which plan?") { _ in
        Membership.free
      } exits: {
        Case(.free) { Action("Show ads", isFinal: true) }
        Default { Action("Paid", isFinal: true) }
      }
    }
    #expect(chart.states.count == 3)
  }

  @Test func enumKeyWithEveryCaseCoveredCompiles() throws {
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which plan?") { _ in
        Membership.free
      } exits: {
        Case(.team) { Action("Invite", isFinal: true) }
        Case(.free) { Action("Show ads", isFinal: true) }
        Case(.pro) { Action("Unlock", isFinal: true) }
      }
    }
    #expect(chart.states.count == 4)
  }

  @Test func stringKeysAreNeverCheckedForExhaustiveness() throws {
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which word?") {
        $0.word
      } exits: {
        Case("free") { Action("Show ads", isFinal: true) }
      }
    }
    #expect(chart.states.count == 2)
  }

  @Test func finalConditionWithBranchesHasExitsItCannotTake() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Done?", isFinal: true) {
          $0.isOn
        } yes: {
          Action("Yes", isFinal: true)
        } no: {
          Action("No", isFinal: true)
        }
      }
    }
    expectOnlyProblem(
      error, .finalStateWithExits, name: "Done?", line: line,
      saying: ["Condition 'Done?' is final but declares", "Remove isFinal: true"])
  }

  @Test func finalMultipleConditionWithExitsHasExitsItCannotTake() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Grade", isFinal: true) {
          $0.word
        } exits: {
          Case("a") { Action("A", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .finalStateWithExits, name: "Grade", line: line,
      saying: ["Multiple condition 'Grade' is final but declares keyed exits"])
  }

  @Test func finalConditionWithEmptyBranchesStillDeclaresExits() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Done?", isFinal: true, { $0.isOn }, yes: {}, no: {})
      }
    }
    expectOnlyProblem(
      error, .finalStateWithExits, name: "Done?", line: line, saying: ["is final but declares"])
  }

  @Test func finalMultipleConditionWithEmptyExitsStillDeclaresExits() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Done?", isFinal: true, { $0.word }, exits: {})
      }
    }
    expectOnlyProblem(
      error, .finalStateWithExits, name: "Done?", line: line, saying: ["is final but declares"])
  }

  @Test func unresolvedStartReportsOnlyItself() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        GoTo("Nowhere")
        Action("Elsewhere") { _ in }
        Action("Done", isFinal: true)
      }
    }
    // Without a start nothing is reachable; one problem explains it all.
    expectOnlyProblem(error, .unknownName, name: "Nowhere", line: line)
  }

  @Test func onlyTheFirstUnknownNamesGetSuggestions() throws {
    let error = try #require(
      definitionError {
        try Flowchart<Switches> {
          Action("Start") { _ in }
          Condition("Route?") {
            $0.isOn
          } yes: {
            Action("Fetch data", isFinal: true)
          } no: {
            Action("Done", isFinal: true)
          }
          for index in 0..<30 {
            Action("Dead \(index)")
            GoTo("Fetch dat\(index)")
          }
        }
      })
    let unknown = error.problems.filter { $0.kind == .unknownName }
    #expect(unknown.count == 30)
    #expect(unknown.filter { $0.message.contains("did you mean 'Fetch data'?") }.count == 20)
  }

  // MARK: - Dispatch

  @Test func dispatchWithoutBranchesIsEmpty() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download", branches: {})
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .emptyDispatch, name: "Download", line: line,
      saying: ["Dispatch 'Download' has no branches", "Declare at least one Branch"])
  }

  @Test func branchWithoutStatesIsEmpty() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch { Action("Avatar", isFinal: true) }
          Branch {}
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .emptyBranch, name: "Download", line: line,
      saying: ["Branch 2 of Dispatch 'Download' is empty", "at least one state"])
  }

  @Test func goToFromInsideABranchToTheTopLevelCrossesTheBoundary() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch {
            Action("Avatar")
            GoTo("Done")
          }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .crossesBranchBoundary, name: "Done", line: line,
      saying: [
        "GoTo 'Done' in branch 1 of dispatch 'Download' leads to a state in the top level",
        "cannot cross",
      ])
  }

  @Test func goToFromTheTopLevelIntoABranchCrossesTheBoundary() {
    let line = #line + 11
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch {
            Action("Avatar", isFinal: true)
          }
        }
        Condition("Retry?") {
          $0.isOn
        } yes: {
          GoTo("Avatar")
        } no: {
          Action("Done", isFinal: true)
        }
      }
    }
    expectOnlyProblem(
      error, .crossesBranchBoundary, name: "Avatar", line: line,
      saying: ["GoTo 'Avatar' in the top level leads to a state in branch 1 of dispatch"])
  }

  @Test func goToAStateOfASiblingBranchCrossesTheBoundary() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch {
            Action("Avatar")
            GoTo("Feed")
          }
          Branch { Action("Feed", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .crossesBranchBoundary, name: "Feed", line: line,
      saying: [
        "GoTo 'Feed' in branch 1 of dispatch 'Download' leads to a state in branch 2 of dispatch"
      ])
  }

  @Test func branchStartingWithAGoToTheTopLevelCrossesTheBoundary() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch { Action("Avatar", isFinal: true) }
          Branch { GoTo("Done") }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .crossesBranchBoundary, name: "Done", line: line,
      saying: ["GoTo 'Done' in branch 2 of dispatch 'Download' leads to a state in the top level"])
  }

  @Test func branchStartingWithAGoToItsOwnStateCompiles() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Download") {
        Branch {
          GoTo("Avatar")
          Action("Avatar", isFinal: true)
        }
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.describedExits(of: "Download") == ["branch 1 -> Avatar", "next -> Done"])
  }

  @Test func chartStartingWithAGoToIntoABranchCrossesTheBoundary() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches>(entryPoints: ["Download"]) {
        GoTo("Avatar")
        Dispatch("Download", isFinal: true) {
          Branch { Action("Avatar", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .crossesBranchBoundary, name: "Avatar", line: line,
      saying: ["GoTo 'Avatar' in the top level leads to a state in branch 1 of dispatch"])
  }

  // MARK: - The graph as a whole

  @Test func topLevelCycleWithoutExitNeverReachesAFinalState() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Fetch")
        Condition("Succeeded?") {
          $0.isOn
        } yes: {
          GoTo("Fetch")
        } no: {
          Action("Wait")
          GoTo("Fetch")
        }
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Fetch", line: line,
      saying: [
        "States 'Fetch', 'Succeeded?', 'Wait' loop forever", "no path from them",
        "reaches a final state",
      ])
  }

  @Test func singleStateLoopingOnItselfNeverReachesAFinalState() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Spin")
        GoTo("Spin")
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Spin", line: line,
      saying: ["State 'Spin' loops forever", "no path from it"])
  }

  @Test func branchWhoseStatesLoopNeverReachesAFinalState() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Poll") {
          Branch {
            Action("Ask")
            Action("Wait")
            GoTo("Ask")
          }
          Branch { Action("Other", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Ask", line: line,
      saying: ["Branch 1 of dispatch 'Poll' can never end", "states 'Ask', 'Wait' loop forever"])
  }

  @Test func stateAfterAGoToNothingReferencesIsUnreachable() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Done")
        Action("Orphan")
        Action("Done", isFinal: true)
      }
    }
    let problem = expectOnlyProblem(
      error, .unreachable, name: "Orphan", line: line,
      saying: ["Action 'Orphan' can never be reached", "entryPoints:"])
    #expect(problem?.message.contains("nor can") == false)
  }

  @Test func unreachableRegionIsReportedOnceAtItsHead() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Done")
        Action("Orphan")
        Action("Orphan's follower")
        Action("Orphan's last follower")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unreachable, name: "Orphan", line: line,
      saying: ["nor can the 2 states it leads to"])
  }

  /// Reachability goes forward in ID order until the first arrow back (`Again?`'s `yes`),
  /// then follows the states it marked and did not follow yet (`Far`, which only `Start`
  /// leads to) with a walk: `Beyond Far` is reached through them, and `Orphan` is still
  /// reported, once, at its head.
  @Test func statesMarkedBeforeAnArrowBackAreFollowed() {
    let line = #line + 16
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Start") {
          $0.isOn
        } yes: {
          GoTo("Far")
        }
        Condition("Again?") {
          $0.isOn
        } yes: {
          GoTo("Start")
        }
        Action("Done", isFinal: true)
        Action("Far")
        Action("Beyond Far", isFinal: true)
        Action("Orphan")
        Action("Orphan's follower", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unreachable, name: "Orphan", line: line, saying: ["nor can the 1 state it leads to"])
  }

  @Test func unreachableStateListedAsEntryPointCompiles() throws {
    let chart = try Flowchart<Switches>(entryPoints: ["Orphan"]) {
      Action("Start")
      GoTo("Done")
      Action("Orphan")
      Action("Done", isFinal: true)
    }
    let orphan = try #require(chart.state(named: "Orphan"))
    #expect(chart.entryPoints == [orphan])
  }

  @Test func entryPointInsideABranchIsReportedAtTheChartsLine() {
    let line = #line + 2
    let error = definitionError {
      try Flowchart<Switches>(entryPoints: ["Avatar"]) {
        Dispatch("Download") {
          Branch { Action("Avatar", isFinal: true) }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .entryPointInBranch, name: "Avatar", line: line,
      saying: [
        "Entry point 'Avatar' is inside branch 1 of dispatch 'Download'", "name the dispatch",
      ])
  }

  // MARK: - All problems at once

  @Test func oneCompileReportsEveryProblemOrderedByLine() {
    let chartLine = #line + 2
    let error = definitionError {
      try Flowchart<Switches> {
        Condition("Ready?") {
          $0.isOn
        } yes: {
          GoTo("Fetch dta")
        } no: {
          MultipleCondition("Which plan?") { _ in
            Membership.pro
          } exits: {
            Case(.pro) { Action("Pro") }
            Case(.pro) { Action("", isFinal: true) }
          }
        }
        Action("Fetch data")
        Dispatch("Download", branches: {})
        Action("Log")
      }
    }
    let line = chartLine + 1
    expectProblems(
      error,
      [
        ExpectedProblem(.unknownName, "Fetch dta", line: line + 3),
        ExpectedProblem(.missingCase, "Which plan?", line: line + 5),
        ExpectedProblem(.duplicateKey, "Which plan?", line: line + 9),
        ExpectedProblem(.invalidName, "", line: line + 9),
        ExpectedProblem(.emptyDispatch, "Download", line: line + 13),
        ExpectedProblem(.exitLeadsNowhere, "Log", line: line + 14),
      ])
    guard let error else { return }
    let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.first == "The flowchart declared at \(#fileID):\(chartLine) has 6 problems:")
    #expect(lines.dropFirst().map(String.init) == error.problems.map { "  \($0)" })
    #expect(error.location == SourceLocation(fileID: #fileID, line: chartLine))
  }

  @Test func summaryOfASingleProblemSaysOneProblem() {
    let chartLine = #line + 2
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Log")
      }
    }
    let summary = error?.description.split(separator: "\n").first
    #expect(summary == "The flowchart declared at \(#fileID):\(chartLine) has 1 problem:")
  }

  // MARK: - Scale

  @Test func longChainOfOneHundredThousandStatesCompiles() throws {
    let count = 100_000
    let chart = try Flowchart<Switches> {
      for index in 0..<count {
        Action("Step \(index)")
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.states.count == count + 1)
    #expect(chart[chart.start].name == "Step 0")
  }

  @Test func wideChartOfConditionsJoinedByGoToCompiles() throws {
    let count = 50_000
    let chart = try Flowchart<Switches> {
      for index in 0..<count {
        Condition("Check \(index)") {
          $0.isOn
        } yes: {
          Action("Handle \(index)")
          GoTo("Done")
        } no: {
        }
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.states.count == 2 * count + 1)
    #expect(
      chart.describedExits(of: "Check \(count - 1)") == [
        "yes -> Handle \(count - 1)", "no -> Done",
      ])
  }

  // Each orphan is a region of its own: reporting them must not rescan the chart for each,
  // which took minutes here.
  @Test(.timeLimit(.minutes(5)))
  func manyUnreachableStatesAreReportedInLinearTime() {
    let count = 40_000
    let error = definitionError {
      try Flowchart<Switches> {
        for index in 0..<count {
          Condition("Check \(index)") {
            $0.isOn
          } yes: {
            GoTo("Done")
            Action("Orphan \(index)", isFinal: true)
          } no: {
          }
        }
        Action("Done", isFinal: true)
      }
    }
    #expect(error?.problems.count == count)
    #expect(error?.problems.allSatisfy { $0.kind == .unreachable } == true)
  }

  @Test func twoThousandNestedConditionsCompile() throws {
    let depth = 2_000
    let chart = try Flowchart<Switches> {
      nestedConditions(depth)
    }
    #expect(chart.states.count == 2 * depth + 1)
    let bottom = try #require(chart.state(named: "Bottom"))
    #expect(chart[bottom].isFinal)
  }
}

/// `depth` conditions, each nested in the `yes` branch of the one before, down to a final
/// `Bottom`.
@FlowBuilder<Switches>
private func nestedConditions(_ depth: Int) -> [Declaration<Switches>] {
  if depth == 0 {
    Action("Bottom", isFinal: true)
  } else {
    Condition("Level \(depth)") {
      $0.isOn
    } yes: {
      nestedConditions(depth - 1)
    } no: {
      Action("Out \(depth)", isFinal: true)
    }
  }
}
