import Flowchart
import Testing

/// The compiler's defects fixed for issues 7 and 13, and diagnostics that report a mistake
/// once, at its cause.
struct CompilerDiagnosticsTests {
  // MARK: - Names compare as Swift compares strings

  @Test(arguments: [
    ("Caf\u{E9}", "Cafe\u{301}"),
    ("Cafe\u{301}", "Caf\u{E9}"),
    ("\u{212B}", "\u{00C5}"),
    ("\u{00C5}", "\u{212B}"),
    ("K", "\u{212A}"),
    ("\u{212A}", "K"),
  ])
  func goToFindsANameEqualUnderEquality(reference: String, declared: String) throws {
    #expect(reference == declared)
    let chart = try Flowchart<Switches> {
      Action("Start")
      GoTo(reference)
      Action(declared, isFinal: true)
    }
    #expect(chart.describedExits(of: "Start") == ["next -> \(declared)"])
  }

  @Test func twoStatesWhoseNamesAreEqualUnderEqualityAreAmbiguous() {
    let line = #line + 7
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Which?") {
          $0.isOn
        } yes: {
          GoTo("Caf\u{E9}")
        } no: {
          Action("Cafe\u{301}", isFinal: true)
        }
        Action("Caf\u{E9}", isFinal: true)
      }
    }
    expectOnlyProblem(error, .ambiguousName, name: "Caf\u{E9}", line: line, saying: ["2 states"])
  }

  @Test func entryPointFindsANameEqualUnderEquality() throws {
    let chart = try Flowchart<Switches>(entryPoints: ["Caf\u{E9}"]) {
      Action("Start", isFinal: true)
      Action("Cafe\u{301}", isFinal: true)
    }
    #expect(chart.entryPoints.map { chart[$0].name } == ["Cafe\u{301}"])
  }

  // MARK: - GoTos no arrow takes

  @Test func goToAfterAFinalStateCanNeverBeTaken() {
    let line = #line + 10
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Ready?") {
          $0.isOn
        } yes: {
          Action("Done", isFinal: true)
        } no: {
          Action("Give up", isFinal: true)
          GoTo("Start")
        }
      }
    }
    expectOnlyProblem(
      error, .unreachableGoTo, name: "Start", line: line,
      saying: ["GoTo 'Start' can never be taken", "follows final Action 'Give up'", "Remove it"])
  }

  @Test func goToAfterAnotherGoToCanNeverBeTaken() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Done")
        GoTo("Start")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unreachableGoTo, name: "Start", line: line,
      saying: ["GoTo 'Start' can never be taken", "follows GoTo 'Done'"])
  }

  @Test func goToAfterAFinalDispatchCanNeverBeTaken() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Both", isFinal: true) {
          Branch { Action("Left", isFinal: true) }
        }
        GoTo("Both")
      }
    }
    expectOnlyProblem(error, .unreachableGoTo, name: "Both", line: line)
  }

  // MARK: - Names that cannot be read

  // Shown by the printed tree's rule: a name that would not read one way is a string literal.
  @Test(arguments: [
    (" ", #"" ""#), ("   ", #""   ""#), ("\t", #""\t""#),
    ("\u{A0}\u{3000}", #""\u{A0}\u{3000}""#),
  ])
  func nameOfOnlyWhitespaceIsInvalid(name: String, shown: String) {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Action(name, isFinal: true)
      }
    }
    let problem = expectOnlyProblem(error, .invalidName, name: name, line: line, saying: [shown])
    #expect(problem.map { isPrintable($0.message) } == true)
  }

  @Test(arguments: [
    ("a\u{0}b", #""a\0b""#), ("\u{1B}[2JCleared", #""\u{1B}[2JCleared""#),
    ("Bell\u{7}", #""Bell\u{7}""#), ("Caf\u{E9}\u{1B}[31m", #""Café\u{1B}[31m""#),
    ("Delete\u{7F}", #""Delete\u{7F}""#),
  ])
  func nameWithAControlCharacterIsInvalidAndShownEscaped(name: String, shown: String) {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Switches> {
        Action(name, isFinal: true)
      }
    }
    let problem = expectOnlyProblem(
      error, .invalidName, name: name, line: line, saying: ["control character", shown])
    #expect(problem.map { isPrintable($0.message) } == true)
    #expect(error.map { isPrintable($0.description) } == true)
  }

  @Test func namesOfOtherScriptsAndEmojiAreValid() throws {
    let chart = try Flowchart<Switches> {
      Action("Grüße, 世界")
      Action("👨‍👩‍👧 family", isFinal: true)
    }
    #expect(chart.states.count == 2)
  }

  @Test func branchNameWithAControlCharacterIsInvalid() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download", isFinal: true) {
          Branch("Feed\u{1B}[2J") { Action("Feed", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .invalidName, name: "Download", line: line,
      saying: ["Branch 1 of Dispatch 'Download'", #""Feed\u{1B}[2J""#])
  }

  // MARK: - The cost of a suggestion is bounded

  // 20 unknown names among 9,999 names of 200 characters took 15.8 s in a release build
  // without a bound on the work, and take many minutes in a debug build. (10,000 states in
  // all: more, and no suggestion is even tried.)
  @Test(.timeLimit(.minutes(5)))
  func suggestionsAmongManyLongNamesStayCheap() {
    let padding = String(repeating: "x", count: 190)
    let names = (0..<9_998).map { "\(padding)\($0 + 1_000_000_000)" }
    let unknown = (0..<20).map { "\(padding)y\($0 + 100_000_000)" }
    let error = definitionError {
      try Flowchart<Switches> {
        MultipleCondition("Route") {
          $0.word
        } exits: {
          for name in unknown {
            Case(name) { GoTo(name) }
          }
        }
        for name in names {
          Action(name)
        }
        Action("Done", isFinal: true)
      }
    }
    let problems = error?.problems ?? []
    #expect(problems.count == 20)
    #expect(problems.allSatisfy { $0.kind == .unknownName })
  }

  @Test func suggestionStillFindsATypoAmongManyNames() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Switches> {
        for index in 0..<5_000 {
          Action("Step \(index)")
        }
        GoTo("Stpe 4321")
      }
    }
    expectOnlyProblem(
      error, .unknownName, name: "Stpe 4321", line: line, saying: ["did you mean 'Step 4321'?"])
  }

  // MARK: - One mistake, one problem

  @Test func statesAfterAStateWithoutExitsAreNotAlsoUnreachable() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Ready?") { $0.isOn }
        Action("Next")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(error, .missingExits, name: "Ready?", line: line)
  }

  @Test func stateOnlyAMisspelledGoToLeadsToIsNotAlsoUnreachable() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Fetch dta")
        Action("Fetch data")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .unknownName, name: "Fetch dta", line: line, saying: ["did you mean 'Fetch data'?"])
  }

  @Test func unknownNameWithoutSuggestionMakesNoStateOfItsFlowUnreachable() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Completely unrelated")
        Action("Orphan")
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(error, .unknownName, name: "Completely unrelated", line: line)
  }

  @Test func statesOfABrokenBranchAreNotAlsoUnreachable() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch {
            Condition("Cached?") { $0.isOn }
            Action("Fetch", isFinal: true)
          }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(error, .missingExits, name: "Cached?", line: line)
  }

  @Test func goToAcrossABranchBoundaryDoesNotMakeItsTargetUnreachable() {
    let line = #line + 12
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch {
            Action("Avatar", isFinal: true)
            Action("Retry avatar", isFinal: true)
          }
        }
        Condition("Retry?") {
          $0.isOn
        } yes: {
          GoTo("Retry avatar")
        } no: {
          Action("Done", isFinal: true)
        }
      }
    }
    // Moving 'Retry avatar' out of the branch fixes both: one mistake.
    expectOnlyProblem(error, .crossesBranchBoundary, name: "Retry avatar", line: line)
  }

  @Test func stateThatStaysUnreachableOnceTheMistakesAreFixedIsStillReported() {
    let line = #line + 6
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        Condition("Ready?") { $0.isOn }
        Action("Done", isFinal: true)
        Action("Orphan", isFinal: true)
      }
    }
    expectProblems(
      error,
      [
        ExpectedProblem(.missingExits, "Ready?", line: line - 2),
        ExpectedProblem(.unreachable, "Orphan", line: line),
      ])
  }

  // MARK: - Loops

  @Test func loopIsReportedAtItsFirstStateNotAtTheStateLeadingIntoIt() {
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
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
    let problem = expectOnlyProblem(
      error, .neverReachesFinalState, name: "Fetch", line: line,
      saying: ["States 'Fetch', 'Succeeded?', 'Wait' loop forever"])
    #expect(problem?.message.contains("'Start'") == false)
  }

  @Test func loopLeadingIntoAnotherLoopIsNotReported() {
    let line = #line + 10
    let error = definitionError {
      try Flowchart<Switches> {
        Action("A")
        Condition("B?") {
          $0.isOn
        } yes: {
          GoTo("A")
        } no: {
        }
        Action("Spin")
        GoTo("Spin")
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Spin", line: line,
      saying: ["State 'Spin' loops forever"])
  }

  @Test func loopStatesAreNamedInDeclarationOrder() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Third")
        Action("First")
        Action("Second")
        Action("Third")
        GoTo("First")
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "First", line: line,
      saying: ["States 'First', 'Second', 'Third' loop forever"])
  }

  @Test func loopBackFromTheLastStateOfALongForwardChartIsReported() {
    // Every arrow but the last leads forward, as in the charts whose loop check is one pass
    // back from the last state (issue 26): that pass must see the one arrow back.
    let line = #line + 4
    let error = definitionError {
      try Flowchart<Switches> {
        for index in 0..<50 {
          Action("Step \(index)")
        }
        Condition("Again?") {
          $0.isOn
        } yes: {
          GoTo("Step 10")
        } no: {
          GoTo("Step 20")
        }
      }
    }
    expectOnlyProblem(
      error, .neverReachesFinalState, name: "Step 10", line: line,
      saying: [
        "States 'Step 10', 'Step 11', 'Step 12', 'Step 13', 'Step 14' and 36 more loop forever"
      ])
  }

  // MARK: - Counts

  @Test func aCountOfOneReadsInTheSingular() {
    let error = definitionError {
      try Flowchart<Switches> {
        Action("Start")
        GoTo("Done")
        Action("Orphan")
        Action("Orphan's follower", isFinal: true)
        Action("Done", isFinal: true)
      }
    }
    #expect(error?.problems.first?.message.contains("nor can the 1 state it leads to") == true)
    #expect(error?.description.contains("1 states") == false)
  }

  // MARK: - Branches have their own location and name

  @Test func emptyNamedBranchIsReportedAtTheBranchByName() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Download") {
          Branch("Avatar") { Action("Avatar", isFinal: true) }
          Branch("Profile") {}
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .emptyBranch, name: "Download", line: line,
      saying: ["Branch 2 ('Profile') of Dispatch 'Download' is empty"])
  }

  @Test func stateOfANamedBranchNamesItsBranch() {
    let line = #line + 5
    let error = definitionError {
      try Flowchart<Switches> {
        Dispatch("Both") {
          Branch("Left side") {
            Action("Left")
          }
        }
        Action("Done", isFinal: true)
      }
    }
    expectOnlyProblem(
      error, .exitLeadsNowhere, name: "Left", line: line,
      saying: ["last state of branch 1 ('Left side') of dispatch 'Both'"])
  }

  @Test func printedTreeShowsABranchsNameOnlyWhenGiven() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Download") {
        Branch("Profile") { Action("Avatar", isFinal: true) }
        Branch { Action("Feed", isFinal: true) }
      }
      Action("Show", isFinal: true)
    }
    expectTree(
      chart,
      """
      Download (D)
      |- Profile: Avatar (A) !
      |- Feed (A) !
      Show (A) !
      """)
  }

  /// Whether `text` holds no control character other than the line feed.
  private func isPrintable(_ text: String) -> Bool {
    !text.unicodeScalars.contains { $0 != "\n" && $0.properties.generalCategory == .control }
  }
}
