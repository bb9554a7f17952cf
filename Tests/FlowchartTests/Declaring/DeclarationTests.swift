import Flowchart
import Testing

/// What a declaration compiles to: which state follows which, what `if`, `for` and
/// `switch` do inside blocks, and what the compiled chart tells about its states.
struct DeclarationTests {
  // MARK: - Arrows

  @Test func statesOfABlockFollowOneAnotherInDeclarationOrder() throws {
    let chart = try Flowchart<Switches> {
      Action("First")
      Action("Second")
      Action("Third", isFinal: true)
    }
    #expect(chart[chart.start].name == "First")
    #expect(chart.describedExits(of: "First") == ["next -> Second"])
    #expect(chart.describedExits(of: "Second") == ["next -> Third"])
    #expect(chart.describedExits(of: "Third") == [])
  }

  @Test func conditionBranchWithoutFinalStateGoesOnToTheStateAfterTheCondition() throws {
    let chart = try Flowchart<Switches> {
      Condition("Ready?") {
        $0.isOn
      } yes: {
        Action("Prepare")
        Action("Check")
      } no: {
      }
      Action("Go", isFinal: true)
    }
    #expect(chart.describedExits(of: "Ready?") == ["yes -> Prepare", "no -> Go"])
    #expect(chart.describedExits(of: "Prepare") == ["next -> Check"])
    #expect(chart.describedExits(of: "Check") == ["next -> Go"])
  }

  @Test func nestedBranchesFallThroughToWhatFollowsTheOutermostCondition() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      Condition("Outer?") {
        $0.isOn
      } yes: {
        Condition("Inner?") {
          $0.isOn
        } yes: {
          Action("Inner yes")
        } no: {
        }
      } no: {
        Action("Outer no")
      }
      Action("After", isFinal: true)
    }
    #expect(chart.describedExits(of: "Outer?") == ["yes -> Inner?", "no -> Outer no"])
    #expect(chart.describedExits(of: "Inner?") == ["yes -> Inner yes", "no -> After"])
    #expect(chart.describedExits(of: "Inner yes") == ["next -> After"])
    #expect(chart.describedExits(of: "Outer no") == ["next -> After"])
  }

  @Test func branchEndingAtAFinalStateDoesNotGoOn() throws {
    let chart = try Flowchart<Switches> {
      Condition("Ready?") {
        $0.isOn
      } yes: {
        Action("Done early", isFinal: true)
      } no: {
        Action("Prepare")
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.describedExits(of: "Done early") == [])
    #expect(chart.describedExits(of: "Prepare") == ["next -> Done"])
  }

  @Test func keyedExitsFallThroughLikeConditionBranches() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      MultipleCondition("Command?") {
        $0.word
      } exits: {
        Case("log") { Action("Log") }
        Case("skip") {}
        Default { GoTo("Start") }
      }
      Action("After", isFinal: true)
    }
    #expect(
      chart.describedExits(of: "Command?") == [
        "log -> Log", "skip -> After", "default -> Start",
      ])
    #expect(chart.describedExits(of: "Log") == ["next -> After"])
  }

  @Test func dispatchLeadsToEachBranchThenToTheStateAfterIt() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Download") {
        Branch {
          Condition("Cached?") {
            $0.isOn
          } yes: {
            Action("Use cache")
          } no: {
          }
          Action("Avatar ready", isFinal: true)
        }
        Branch {
          Action("Feed", isFinal: true)
        }
      }
      Action("Show", isFinal: true)
    }
    #expect(
      chart.describedExits(of: "Download") == [
        "branch 1 -> Cached?", "branch 2 -> Feed", "next -> Show",
      ])
    #expect(chart.describedExits(of: "Cached?") == ["yes -> Use cache", "no -> Avatar ready"])
    #expect(chart.describedExits(of: "Use cache") == ["next -> Avatar ready"])
  }

  @Test func finalDispatchLeadsOnlyToItsBranches() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Sync", isFinal: true) {
        Branch { Action("Mail", isFinal: true) }
      }
    }
    #expect(chart.describedExits(of: "Sync") == ["branch 1 -> Mail"])
  }

  @Test func goToJoinsPathsAtTheNamedState() throws {
    let chart = try Flowchart<Switches> {
      Action("Show")
      Condition("Again?") {
        $0.isOn
      } yes: {
        Condition("Cached?") {
          $0.isOn
        } yes: {
          GoTo("Show")
        } no: {
          Action("Fetch")
          GoTo("Show")
        }
      } no: {
        Action("Done", isFinal: true)
      }
    }
    #expect(chart.describedExits(of: "Cached?") == ["yes -> Show", "no -> Fetch"])
    #expect(chart.describedExits(of: "Fetch") == ["next -> Show"])
  }

  @Test func goToFindsItsStateWhateverItsNameLengthOrScript() throws {
    let long = String(repeating: "a long state name ", count: 5)  // 90 bytes
    let accented = "Prüfung ✓"  // 9 characters, 12 bytes
    let chart = try Flowchart<Switches> {
      Condition("Which?") {
        $0.isOn
      } yes: {
        GoTo(long)
      } no: {
      }
      Action("Prüfung ???")  // As many bytes as `accented`, and another name.
      GoTo(accented)
      Action(long, isFinal: true)
      Action(accented, isFinal: true)
    }
    #expect(chart.describedExits(of: "Which?") == ["yes -> \(long)", "no -> Prüfung ???"])
    #expect(chart.describedExits(of: "Prüfung ???") == ["next -> \(accented)"])
  }

  @Test func chartStartingWithAGoToStartsAtTheNamedState() throws {
    let chart = try Flowchart<Switches> {
      GoTo("Main")
      Action("Main")
      Action("Done", isFinal: true)
    }
    #expect(chart[chart.start].name == "Main")
  }

  // MARK: - Statements in blocks

  @Test(arguments: [false, true])
  func ifAddsItsStatesOnlyWhenItsConditionHolds(verbose: Bool) throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      if verbose {
        Action("Log")
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.states.count == (verbose ? 3 : 2))
    #expect(chart.describedExits(of: "Fetch") == [verbose ? "next -> Log" : "next -> Done"])
  }

  @Test(arguments: [false, true])
  func ifElseDeclaresOneOfItsBlocks(online: Bool) throws {
    let chart = try Flowchart<Switches> {
      if online {
        Action("Fetch remote")
        Action("Save")
      } else {
        Action("Read cache")
      }
      Action("Done", isFinal: true)
    }
    let first = online ? "Fetch remote" : "Read cache"
    #expect(chart[chart.start].name == first)
    #expect(chart.describedExits(of: first) == [online ? "next -> Save" : "next -> Done"])
    #expect(chart.states.count == (online ? 3 : 2))
  }

  enum Source: CaseIterable {
    case network
    case cache
    case nowhere
  }

  @Test(arguments: Source.allCases)
  func switchDeclaresTheBlockOfTheMatchingCase(source: Source) throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      switch source {
      case .network:
        Action("Fetch")
      case .cache:
        Action("Read cache")
        Action("Validate")
      case .nowhere:
        GoTo("Done")
      }
      Action("Done", isFinal: true)
    }
    let expected =
      switch source {
      case .network: "next -> Fetch"
      case .cache: "next -> Read cache"
      case .nowhere: "next -> Done"
      }
    #expect(chart.describedExits(of: "Start") == [expected])
    #expect(chart.states.count == [.network: 3, .cache: 4, .nowhere: 2][source])
  }

  @Test func forLoopDeclaresAChainInIterationOrder() throws {
    let steps = ["Download", "Unzip", "Install"]
    let chart = try Flowchart<Switches> {
      for step in steps {
        Action(step)
      }
      Action("Done", isFinal: true)
    }
    #expect(chart[chart.start].name == "Download")
    #expect(chart.describedExits(of: "Download") == ["next -> Unzip"])
    #expect(chart.describedExits(of: "Unzip") == ["next -> Install"])
    #expect(chart.describedExits(of: "Install") == ["next -> Done"])
  }

  @Test func forAndIfDeclareKeyedExits() throws {
    let commands = ["retry", "skip"]
    let allowsAbort = true
    let chart = try Flowchart<Switches> {
      MultipleCondition("Command?") {
        $0.word
      } exits: {
        for command in commands {
          Case(command) { Action("Handle \(command)", isFinal: true) }
        }
        if allowsAbort {
          Case("abort") { Action("Abort", isFinal: true) }
        } else {
          Default { Action("Ignore", isFinal: true) }
        }
      }
    }
    #expect(
      chart.describedExits(of: "Command?") == [
        "retry -> Handle retry", "skip -> Handle skip", "abort -> Abort",
      ])
  }

  @Test func forAndIfDeclareBranches() throws {
    let files = ["a.txt", "b.txt"]
    let alsoPhotos = false
    let chart = try Flowchart<Switches> {
      Dispatch("Sync", isFinal: true) {
        for file in files {
          Branch { Action("Sync \(file)", isFinal: true) }
        }
        if alsoPhotos {
          Branch { Action("Sync photos", isFinal: true) }
        }
      }
    }
    #expect(
      chart.describedExits(of: "Sync") == ["branch 1 -> Sync a.txt", "branch 2 -> Sync b.txt"])
  }

  @Test func declarationsBuiltByAFunctionAreSplicedInPlace() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Condition("Failed?") {
        $0.isOn
      } yes: {
        waitThenGo(to: "Fetch")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    #expect(chart.describedExits(of: "Failed?") == ["yes -> Wait before Fetch", "no -> Done"])
    #expect(chart.describedExits(of: "Wait before Fetch") == ["next -> Fetch"])
  }

  // MARK: - Queries

  @Test func stateInfoDescribesEachState() throws {
    let line = #line + 1
    let chart = try Flowchart<Switches> {
      Action("Fetch") { _ in await Task.yield() }
      Condition("Fetched?") {
        $0.isOn
      } yes: {
        Dispatch("Save") {
          Branch { Action("Save locally", isFinal: true) { $0.log.append("saved") } }
        }
        MultipleCondition("Grade", isFinal: true) { $0.word }
      } no: {
        GoTo("Fetch")
      }
    }
    #expect(chart.states.count == 5)
    // name: (kind, isFinal, isAsynchronous, isTopLevel, line)
    let expected: [String: (StateKind, Bool, Bool, Bool, Int)] = [
      "Fetch": (.action, false, true, true, line + 1),
      "Fetched?": (.condition, false, false, true, line + 2),
      "Save": (.dispatch, false, false, true, line + 5),
      "Save locally": (.action, true, false, false, line + 6),
      "Grade": (.multipleCondition, true, false, true, line + 8),
    ]
    for id in chart.states {
      let info = chart[id]
      #expect(info.id == id)
      #expect(info.location.fileID == #fileID)
      guard let (kind, isFinal, isAsynchronous, isTopLevel, line) = expected[info.name] else {
        Issue.record("Unexpected state \(info.name)")
        continue
      }
      #expect(info.kind == kind, "\(info.name)")
      #expect(info.isFinal == isFinal, "\(info.name)")
      #expect(info.isAsynchronous == isAsynchronous, "\(info.name)")
      #expect(info.isTopLevel == isTopLevel, "\(info.name)")
      #expect(info.location.line == line, "\(info.name)")
    }
    #expect(chart.describedExits(of: "Fetch") == ["next -> Fetched?"])
    #expect(chart.describedExits(of: "Fetched?") == ["yes -> Save", "no -> Fetch"])
    #expect(chart.describedExits(of: "Save") == ["branch 1 -> Save locally", "next -> Grade"])
    #expect(chart.describedExits(of: "Grade") == [])
  }

  @Test func statesAreDenseIDsFromZeroAndTheStartIsTheFirstDeclaredState() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Condition("Fetched?") {
        $0.isOn
      } yes: {
        Action("Done", isFinal: true)
      } no: {
        GoTo("Fetch")
      }
    }
    #expect(chart.states == StateID(0)..<StateID(3))
    #expect(chart.start == chart.state(named: "Fetch"))
    #expect(Set(chart.states.map { chart[$0].name }) == ["Fetch", "Fetched?", "Done"])
    #expect(chart.states.allSatisfy { chart.state(named: chart[$0].name) == $0 })
  }

  @Test func namesSharedByStatesAreFoundTogetherButNotAlone() throws {
    let chart = try Flowchart<Switches> {
      Condition("Verbose?") {
        $0.isOn
      } yes: {
        Action("Log", isFinal: true)
      } no: {
        Action("Log", isFinal: true)
      }
    }
    let logs = chart.states(named: "Log")
    #expect(logs.count == 2)
    #expect(logs == logs.sorted())
    #expect(logs.allSatisfy { chart[$0].name == "Log" })
    #expect(chart.describedExits(of: "Verbose?") == ["yes -> Log", "no -> Log"])
    #expect(Set(chart[chart.start].exits.map(\.target)) == Set(logs))
    #expect(chart.state(named: "Log") == nil)
    #expect(chart.state(named: "Missing") == nil)
    #expect(chart.states(named: "Missing") == [])
    #expect(chart.states(named: "Verbose?") == [chart.start])
  }

  @Test func entryPointsAreTheListedStatesInListedOrder() throws {
    let chart = try Flowchart<Switches>(entryPoints: ["Resume", "Fetch"]) {
      Action("Fetch")
      Action("Done", isFinal: true)
      Action("Resume")
      GoTo("Done")
    }
    let resume = try #require(chart.state(named: "Resume"))
    let fetch = try #require(chart.state(named: "Fetch"))
    #expect(chart.entryPoints == [resume, fetch])
    #expect(chart[resume].isTopLevel)
  }

  @Test func chartWithoutEntryPointsListsNone() throws {
    let chart = try Flowchart<Switches> {
      Action("Done", isFinal: true)
    }
    #expect(chart.entryPoints == [])
    #expect(chart.states.count == 1)
    #expect(chart[chart.start].isFinal)
  }

  @Test func chartOfSynchronousStatesIsSynchronous() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch") { $0.log.append("fetched") }
      Condition("Fetched?") {
        $0.isOn
      } yes: {
        Dispatch("Save") {
          Branch { Action("Save locally", isFinal: true) { $0.log.append("saved") } }
        }
        MultipleCondition("Grade", isFinal: true) { $0.word }
      } no: {
        MultipleCondition("Command?") {
          $0.word
        } exits: {
          Default { GoTo("Fetch") }
        }
      }
    }
    #expect(chart.isSynchronous)
    #expect(chart.states.allSatisfy { !chart[$0].isAsynchronous })
  }

  @Test func oneAsynchronousActionMakesTheChartAsynchronous() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch") { $0.log.append("fetched") }
      Action("Upload", isFinal: true) { _ in await Task.yield() }
    }
    #expect(!chart.isSynchronous)
    #expect(chart.states.filter { chart[$0].isAsynchronous } == chart.states(named: "Upload"))
  }

  @Test func asynchronousConditionMakesTheChartAsynchronous() throws {
    let chart = try Flowchart<Switches> {
      Condition("Online?", isFinal: true) { _ in
        await Task.yield()
        return true
      }
    }
    #expect(!chart.isSynchronous)
    #expect(chart[chart.start].isAsynchronous)
  }

  @Test func asynchronousMultipleConditionMakesTheChartAsynchronous() throws {
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which?") { context in
        await Task.yield()
        return context.word
      } exits: {
        Default { Action("Done", isFinal: true) }
      }
    }
    #expect(!chart.isSynchronous)
    #expect(chart[chart.start].isAsynchronous)
  }

  @Test func asynchronousStateInABranchMakesTheChartButNotTheDispatchAsynchronous() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Download", isFinal: true) {
        Branch { Action("Avatar", isFinal: true) { _ in await Task.yield() } }
      }
    }
    #expect(!chart.isSynchronous)
    #expect(!chart[chart.start].isAsynchronous)
    let avatar = try #require(chart.state(named: "Avatar"))
    #expect(chart[avatar].isAsynchronous)
    #expect(!chart[avatar].isTopLevel)
  }
}

/// Waits, then goes to `name`: declarations built outside a chart.
@FlowBuilder<Switches>
private func waitThenGo(to name: String) -> [Declaration<Switches>] {
  Action("Wait before \(name)")
  GoTo(name)
}
