import Flowchart
import Testing

/// The tree printer: STWorkflow's text format, worked out by hand from its rules (DESIGN.md,
/// "The tree printer").
struct PrinterTests {
  // MARK: - Shapes

  @Test func readmeExampleOfSTWorkflowPrintsTheSame() throws {
    let chart = try Flowchart<Switches> {
      Condition("Check first launch") {
        $0.isOn
      } yes: {
        Action("Fetch something")
        Action("Final state", isFinal: true)
      } no: {
        Condition("An other check") {
          $0.isOn
        } yes: {
          GoTo("Final state")
        } no: {
          Action("Log something")
          GoTo("Final state")
        }
      }
    }
    let readme =
      "Check first launch (S)\n"
      + "Y- Fetch something (A)\n"
      + "|  Final state (A) !\n"
      + "N- An other check (S)\n"
      + "|  Y- Final state (A) !\n"
      + "|  N- Log something (A)\n"
      + "|  |  Final state (A) !\n"
    expectText(chart.treeDescription, readme)
  }

  @Test func cycleShowsTheStateItReturnsToWithAStar() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Condition("Succeeded?") {
        $0.isOn
      } yes: {
        Action("Done", isFinal: true)
      } no: {
        Action("Wait")
        GoTo("Fetch")
      }
    }
    expectTree(
      chart,
      """
      Fetch (A)
      Succeeded? (S)
      Y- Done (A) !
      N- Wait (A)
      |  Fetch (A) *
      """)
  }

  @Test func stateReachedFromBothExitsIsExpandedOnceThenStarred() throws {
    let chart = try Flowchart<Switches> {
      Condition("Logged in?") {
        $0.isOn
      } yes: {
        Action("Load profile")
      } no: {
      }
      Action("Show home")
      Action("Done", isFinal: true)
    }
    expectTree(
      chart,
      """
      Logged in? (S)
      Y- Load profile (A)
      |  Show home (A)
      |  Done (A) !
      N- Show home (A) *
      """)
  }

  @Test func finalStateReachedTwiceEndsWithABangBothTimes() throws {
    let chart = try Flowchart<Switches> {
      Condition("Ready?") {
        $0.isOn
      } yes: {
        GoTo("Done")
      } no: {
        GoTo("Done")
      }
      Action("Done", isFinal: true)
    }
    expectTree(
      chart,
      """
      Ready? (S)
      Y- Done (A) !
      N- Done (A) !
      """)
  }

  @Test func dispatchPrintsEachBranchThenItsNextStateInItsOwnColumn() throws {
    let chart = try Flowchart<Switches> {
      Dispatch("Download") {
        Branch {
          Action("Avatar")
          Action("Avatar saved", isFinal: true)
        }
        Branch {
          Condition("Cached?") {
            $0.isOn
          } yes: {
            Action("Use cache", isFinal: true)
          } no: {
            Action("Fetch feed", isFinal: true)
          }
        }
      }
      Action("Show", isFinal: true)
    }
    expectTree(
      chart,
      """
      Download (D)
      |- Avatar (A)
      |  Avatar saved (A) !
      |- Cached? (S)
      |  Y- Use cache (A) !
      |  N- Fetch feed (A) !
      Show (A) !
      """)
  }

  @Test func dispatchInsideAConditionIsIndentedUnderItsExit() throws {
    let chart = try Flowchart<Switches> {
      Condition("Online?") {
        $0.isOn
      } yes: {
        Dispatch("Download") {
          Branch {
            Action("Avatar")
            Action("Avatar saved", isFinal: true)
          }
          Branch {
            Action("Feed", isFinal: true)
          }
        }
        Action("Show", isFinal: true)
      } no: {
        Action("Offline", isFinal: true)
      }
    }
    expectTree(
      chart,
      """
      Online? (S)
      Y- Download (D)
      |  |- Avatar (A)
      |  |  Avatar saved (A) !
      |  |- Feed (A) !
      |  Show (A) !
      N- Offline (A) !
      """)
  }

  @Test func multipleConditionPrintsItsKeysInDeclarationOrder() throws {
    let chart = try Flowchart<Switches> {
      MultipleCondition("Which plan?") { _ in
        Membership.free
      } exits: {
        Case(.team) { Action("Invite team") }
        Case(.free) { Action("Show ads", isFinal: true) }
        Case(.pro) {}
      }
      Action("Welcome", isFinal: true)
    }
    expectTree(
      chart,
      """
      Which plan? (M)
      +- team: Invite team (A)
      |  Welcome (A) !
      +- free: Show ads (A) !
      +- pro: Welcome (A) !
      """)
  }

  @Test func multipleConditionPrintsItsDefaultExit() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Condition("Failed?") {
        $0.isOn
      } yes: {
        MultipleCondition("Command?") {
          $0.word
        } exits: {
          Case("retry") { GoTo("Fetch") }
          Case("skip") { Action("Skipped", isFinal: true) }
          Default { Action("Give up", isFinal: true) }
        }
      } no: {
        Action("Done", isFinal: true)
      }
    }
    expectTree(
      chart,
      """
      Fetch (A)
      Failed? (S)
      Y- Command? (M)
      |  +- retry: Fetch (A) *
      |  +- skip: Skipped (A) !
      |  +- default: Give up (A) !
      N- Done (A) !
      """)
  }

  @Test func finalConditionAndFinalMultipleConditionEndWithABang() throws {
    let chart = try Flowchart<Switches> {
      Action("Warm up")
      Condition("Willing?") {
        $0.isOn
      } yes: {
        MultipleCondition("Grade", isFinal: true) { $0.word }
      } no: {
        Condition("Injured?", isFinal: true) { $0.isOn }
      }
    }
    expectTree(
      chart,
      """
      Warm up (A)
      Willing? (S)
      Y- Grade (M) !
      N- Injured? (S) !
      """)
  }

  @Test func finalDispatchEndsWithABangAndStillShowsItsBranches() throws {
    let chart = try Flowchart<Switches> {
      Action("Start")
      Dispatch("Sync all", isFinal: true) {
        Branch { Action("Sync mail", isFinal: true) }
        Branch {
          Action("Sync photos")
          Action("Photos synced", isFinal: true)
        }
      }
    }
    expectTree(
      chart,
      """
      Start (A)
      Sync all (D) !
      |- Sync mail (A) !
      |- Sync photos (A)
      |  Photos synced (A) !
      """)
  }

  // MARK: - Entry points

  @Test func entryPointsTheStartDoesNotReachFollowAsTreesOfTheirOwnInListedOrder() throws {
    let chart = try Flowchart<Switches>(entryPoints: ["Resume", "Restore"]) {
      Action("Fetch")
      Condition("Ok?") {
        $0.isOn
      } yes: {
        Action("Done", isFinal: true)
      } no: {
        GoTo("Fetch")
      }
      Action("Restore")
      GoTo("Done")
      Action("Resume")
      Action("Reload")
      GoTo("Fetch")
    }
    expectTree(
      chart,
      """
      Fetch (A)
      Ok? (S)
      Y- Done (A) !
      N- Fetch (A) *
      Resume (A)
      Reload (A)
      Fetch (A) *
      Restore (A)
      Done (A) !
      """)
  }

  @Test func entryPointTheStartReachesIsNotPrintedAgain() throws {
    let chart = try Flowchart<Switches>(entryPoints: ["Wait"]) {
      Action("Fetch")
      Condition("Succeeded?") {
        $0.isOn
      } yes: {
        Action("Done", isFinal: true)
      } no: {
        Action("Wait")
        GoTo("Fetch")
      }
    }
    expectTree(
      chart,
      """
      Fetch (A)
      Succeeded? (S)
      Y- Done (A) !
      N- Wait (A)
      |  Fetch (A) *
      """)
  }

  // MARK: - Ways to get the text

  @Test func everyTextualFormIsTheTree() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Condition("Succeeded?") {
        $0.isOn
      } yes: {
        Action("Done", isFinal: true)
      } no: {
        GoTo("Fetch")
      }
    }
    let tree = "Fetch (A)\nSucceeded? (S)\nY- Done (A) !\nN- Fetch (A) *"
    // The tree as text ends each line with a line break; the descriptions leave the last
    // one to `print`, so printing a chart adds no blank line.
    #expect(chart.treeDescription == tree + "\n")
    #expect(chart.description == tree)
    #expect(chart.debugDescription == tree)
    #expect(String(describing: chart) == tree)
    #expect(String(reflecting: chart) == tree)
    #expect("\(chart)" == tree)
    var printed = ""
    print(chart, to: &printed)
    #expect(printed == tree + "\n")
  }

  @Test func printTreeWritesToAnyStreamAfterWhatItHolds() throws {
    let chart = try Flowchart<Switches> {
      Action("Fetch")
      Action("Done", isFinal: true)
    }
    var log = "Chart:\n"
    chart.printTree(to: &log)
    #expect(log == "Chart:\nFetch (A)\nDone (A) !\n")

    var stream = RecordingStream()
    chart.printTree(to: &stream)
    #expect(stream.writes.joined() == "Fetch (A)\nDone (A) !\n")
  }

  // MARK: - Scale

  @Test func longCycleOfOneHundredThousandStatesPrintsInOneColumn() throws {
    let count = 100_000
    let chart = try Flowchart<Switches> {
      for index in 0..<count {
        Action("Step \(index)")
      }
      Condition("Again?") {
        $0.isOn
      } yes: {
        GoTo("Step 0")
      } no: {
        Action("Done", isFinal: true)
      }
    }
    let lines = chart.treeDescription.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.count == count + 4)
    #expect(lines.first == "Step 0 (A)")
    #expect(lines[50_000] == "Step 50000 (A)")
    #expect(
      lines.suffix(5) == ["Step 99999 (A)", "Again? (S)", "Y- Step 0 (A) *", "N- Done (A) !", ""])
    #expect(lines.allSatisfy { !$0.hasPrefix("|") })
  }

  @Test func chainOfConditionsEachInThePreviousOnesNoIndentsOneLevelPerCondition() throws {
    // Each condition's `no` exit falls through to the next one: the tree goes one level
    // deeper per condition. The text grows with the square of the depth, hence 3,000.
    let count = 3_000
    let chart = try Flowchart<Switches> {
      for index in 0..<count {
        Condition("Check \(index)") {
          $0.isOn
        } yes: {
          GoTo("Done")
        } no: {
        }
      }
      Action("Done", isFinal: true)
    }
    let text = chart.treeDescription
    #expect(text.last == "\n")
    let lines = text.utf8.split(separator: UInt8(ascii: "\n")).map {
      String(decoding: $0, as: UTF8.self)
    }
    #expect(lines.count == 2 * count + 1)
    #expect(
      lines.prefix(6) == [
        "Check 0 (S)",
        "Y- Done (A) !",
        "N- Check 1 (S)",
        "|  Y- Done (A) !",
        "|  N- Check 2 (S)",
        "|  |  Y- Done (A) !",
      ])
    // Check 100 is nested 99 levels deep, past the printer's cache of 64 indents.
    let indent99 = String(repeating: "|  ", count: 99)
    #expect(lines[2 * 100] == indent99 + "N- Check 100 (S)")
    #expect(lines[2 * 100 + 1] == indent99 + "|  Y- Done (A) !")
    let deeper = String(repeating: "|  ", count: count - 2)
    let deepest = deeper + "|  "
    let last: [String] = [
      deeper + "N- Check \(count - 1) (S)",
      deepest + "Y- Done (A) !",
      deepest + "N- Done (A) !",
    ]
    #expect(Array(lines.suffix(3)) == last)
  }
}

/// A text stream that keeps each write apart.
private struct RecordingStream: TextOutputStream {
  var writes: [String] = []

  mutating func write(_ string: String) {
    writes.append(string)
  }
}
