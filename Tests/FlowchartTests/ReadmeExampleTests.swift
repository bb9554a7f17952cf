import Flowchart
import Foundation
import Testing

/// Every Swift code block of README.md, copied as written, with its promised behaviour asserted.
///
/// When a README example changes, change its copy here: a README example that no longer compiles
/// or no longer does what the README says fails these tests.
struct ReadmeExampleTests {
  @Test func everySwiftBlockOfTheReadmeIsCopiedHere() throws {
    let thisFile = URL(fileURLWithPath: #filePath)
    let root = thisFile.deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    // The "Testing your flowcharts" section's block is copied in FlowchartTestingTests.
    let testingCopies = root.appendingPathComponent(
      "Tests/FlowchartTestingTests/ReadmeExampleTests.swift")
    let copies = try [thisFile, testingCopies].map { try String(contentsOf: $0, encoding: .utf8) }
      .joined(separator: "\n")
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }

    // Blocks that import FlowchartFiles are copied into FlowchartFilesTests' ReadmeTests.
    let blocks = swiftBlocks(in: readme).filter { $0.first != "import FlowchartFiles" }
    #expect(blocks.count == 9)
    for block in blocks {
      // Each line of the block, in order, with only this file's assertions in between.
      var rest = copies[...]
      for line in block where !line.isEmpty {
        guard let found = rest.firstIndex(of: line) else {
          Issue.record("README line not copied into ReadmeExampleTests.swift: \(line)")
          break
        }
        rest = rest[(found + 1)...]
      }
    }
  }

  @Test func timeoutsRetriesAndCatchRoutesPrintAndRun() async throws {
    // README: "Timeouts, retries and catch routes".
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }
    @Sendable func upload(_ photo: String) async throws {}

    struct Purchase: Sendable {
      var photo = "cat.jpg"
      var failure: String?
    }

    // swift-format-ignore
    let checkout = try Flowchart<Purchase> {
      Action("Upload photo") { purchase in try await upload(purchase.photo) }
        .timeout(.seconds(30))
        .retry(3, backoff: .exponential(initial: .seconds(1), maximum: .seconds(10)).jittered())
        .catch(goTo: "Report failure") { purchase, error in purchase.failure = "\(error)" }
      Action("Submit order", isFinal: true) { _ in }
      Action("Report failure", isFinal: true)
    }
    print(checkout)
    // Upload photo (A) [timeout 30s, retry ×3 (exponential 1s×2…10s, full jitter)]
    // x- catch: Report failure (A) !
    // Submit order (A) !
    #expect(
      printed == """
        Upload photo (A) [timeout 30s, retry ×3 (exponential 1s×2…10s, full jitter)]
        x- catch: Report failure (A) !
        Submit order (A) !

        """)
    // An upload that succeeds within its timeout: the run needs no clock to go on.
    let result = try await checkout.run(with: Purchase())
    #expect(result.finalStateName == "Submit order")
    #expect(result.context.failure == nil)
  }

  @Test func aFailedLiveRunIsRetriedFromWhereItStopped() async throws {
    // README: "Live runs", retry.
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }
    struct Order: Sendable { var server = "main" }
    struct Unreachable: Error {}
    let photoOrder = try Flowchart<Order> {
      Action("Prepare") { _ in }
      Action("Upload") { order in
        guard order.server == "backup" else { throw Unreachable() }
      }
      Action("Submit", isFinal: true)
    }

    let upload = photoOrder.start(with: Order())
    do {
      _ = try await upload.result
    } catch {
      let again = try upload.retry { $0.server = "backup" }
      let result = try await again.result
      print(result.path.map { photoOrder[$0].name })  // ["Prepare", "Upload", "Upload", "Submit"]
    }
    #expect(printed == #"["Prepare", "Upload", "Upload", "Submit"]"# + "\n")
  }

  @Test func chartsInsideChartsRunAsOneState() throws {
    // README: "Charts inside charts".
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }

    // swift-format-ignore
    struct Payment: Sendable { var amount = 0; var isAccepted = true }
    struct Order: Sendable {
      var payment = Payment()
      var isShipped = false
    }

    // swift-format-ignore
    let pay = try Flowchart<Payment> {
      Condition("Card accepted?") { $0.isAccepted } yes: {
        Action("Paid", isFinal: true)
      } no: {
        Action("Refused", isFinal: true)
      }
    }
    let order = try Flowchart<Order> {
      Subflow("Pay", running: pay, context: .keyPath(\.payment)) {
        Case("Paid") { Action("Ship", isFinal: true) { $0.isShipped = true } }
        Case("Refused") { Action("Cancel", isFinal: true) }
      }
    }
    print(try order.runSynchronously(with: Order()).pathNames)  // ["Pay", "Ship"]
    #expect(printed == "[\"Pay\", \"Ship\"]\n")
    var tree = ""
    order.printTree(to: &tree, expandingSubflows: true)  // Pay's chart drawn below it
    expectText(
      tree,
      """
      Pay (F)
      :  Card accepted? (S)
      :  Y- Paid (A) !
      :  N- Refused (A) !
      +- Paid: Ship (A) !
      +- Refused: Cancel (A) !

      """)
  }

  @Test func exampleRunsTheOtherCheckPathAndPrintsSTWorkflowsTree() throws {
    // README: "Example".
    struct Launch: Sendable {
      var isFirstLaunch: Bool
      var passesOtherCheck: Bool
      var log: [String] = []
    }
    // The README's `print` calls write here, not to standard output, and the test checks
    // what they wrote.
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }

    // swift-format-ignore
    let chart = try Flowchart<Launch> {
      Condition("Check first launch") { $0.isFirstLaunch } yes: {
        Action("Fetch something") { $0.log.append("fetched") }
        Action("Final state", isFinal: true)
      } no: {
        Condition("An other check") { $0.passesOtherCheck } yes: {
          GoTo("Final state")
        } no: {
          Action("Log something") { $0.log.append("logged") }
          GoTo("Final state")
        }
      }
    }

    let launch = Launch(isFirstLaunch: false, passesOtherCheck: false)
    let result = try chart.runSynchronously(with: launch)
    print(result.finalStateName, result.decision)  // Final state done
    print(result.pathNames)  // ["Check first launch", "An other check", …]
    print(chart)
    // End of the README block.

    #expect(
      printed == """
        Final state done
        ["Check first launch", "An other check", "Log something", "Final state"]

        """ + chart.treeDescription)

    #expect(result.finalStateName == "Final state")
    #expect(result.decision == .done)
    #expect(
      result.path.map { chart[$0].name } == [
        "Check first launch", "An other check", "Log something", "Final state",
      ])
    #expect(result.context.log == ["logged"])
    #expect(
      chart.treeDescription == """
        Check first launch (S)
        Y- Fetch something (A)
        |  Final state (A) !
        N- An other check (S)
        |  Y- Final state (A) !
        |  N- Log something (A)
        |  |  Final state (A) !

        """)

    let firstLaunch = try chart.runSynchronously(
      with: Launch(isFirstLaunch: true, passesOtherCheck: false))
    #expect(
      firstLaunch.path.map { chart[$0].name } == [
        "Check first launch", "Fetch something", "Final state",
      ])
    let otherCheckPasses = try chart.runSynchronously(
      with: Launch(isFirstLaunch: false, passesOtherCheck: true))
    #expect(
      otherCheckPasses.path.map { chart[$0].name } == [
        "Check first launch", "An other check", "Final state",
      ])
  }

  @Test func allFourKindsFallThroughToTheDispatchAndMergeItsBranches() throws {
    // README: "Four kinds of state, and a final flag".
    enum Plan: Sendable, CaseIterable { case free, pro, team }

    struct Signup: Sendable {
      var plan: Plan
      var profile: String?
      var settings: String?
    }
    // The README's `print` calls write here, not to standard output, and the test checks
    // what they wrote.
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }

    // swift-format-ignore
    let onboarding = try Flowchart<Signup> {
      MultipleCondition("Which plan?") { $0.plan } exits: {
        Case(.free) { Action("Show ads") }
        Case(.pro) { Action("Unlock pro features") }
        Case(.team) { Action("Invite the team") }
      }
      Dispatch("Load account") { context, branch in
        context.profile = context.profile ?? branch.profile
        context.settings = context.settings ?? branch.settings
      } branches: {
        Branch { Action("Load profile", isFinal: true) { $0.profile = "Ada" } }
        Branch { Action("Load settings", isFinal: true) { $0.settings = "Dark mode" } }
      }
      Condition("Ready?", isFinal: true) { $0.profile != nil && $0.settings != nil }
    }
    print(onboarding)
    // End of the README block.

    #expect(printed == onboarding.treeDescription)

    #expect(
      onboarding.treeDescription == """
        Which plan? (M)
        +- free: Show ads (A)
        |  Load account (D)
        |  |- Load profile (A) !
        |  |- Load settings (A) !
        |  Ready? (S) !
        +- pro: Unlock pro features (A)
        |  Load account (D) *
        +- team: Invite the team (A)
        |  Load account (D) *

        """)
    #expect(onboarding.isSynchronous)
    let kinds = onboarding.states.map { onboarding[$0].kind }
    #expect(Set(kinds) == [.condition, .multipleCondition, .action, .dispatch])

    for plan in Plan.allCases {
      let result = try onboarding.runSynchronously(with: Signup(plan: plan))
      #expect(result.finalStateName == "Ready?")
      #expect(result.decision == .yes)
      #expect(result.context.profile == "Ada")
      #expect(result.context.settings == "Dark mode")
    }
  }

  @Test func healthWorkflowMapsEveryRouteAndReportsErrors() async throws {
    // README: "The Health workflow".
    struct Subject: Sendable {
      var isWillingToExercise: Bool
      var isInjured: Bool
    }

    enum Outcome { case healthy, unhealthy, inconclusive }
    // The README's `print` calls write here, not to standard output, and the test checks
    // what they wrote.
    var printed = ""
    func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
      printed += items.map { "\($0)" }.joined(separator: separator) + terminator
    }

    // swift-format-ignore
    let health = try Flowchart<Subject> {
      Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
        Action("Lift weights") { _ in try await Task.sleep(for: .milliseconds(20)) }
        Action("Do sit-ups", isFinal: true) { _ in try await Task.sleep(for: .milliseconds(10)) }
      } no: {
        Condition("Injured?", isFinal: true) { $0.isInjured }
      }
    }

    func outcome(of result: RunResult<Subject>) -> Outcome? {
      switch (result.finalStateName, result.decision) {
      case ("Do sit-ups", .done): .healthy
      case ("Injured?", .yes): .inconclusive
      case ("Injured?", .no): .unhealthy
      default: nil
      }
    }

    let result = try await health.run(with: Subject(isWillingToExercise: false, isInjured: true))
    print(result.finalStateName, result.decision)  // Injured? yes
    print(outcome(of: result)!)  // inconclusive
    // End of the README block.

    #expect(printed == "Injured? yes\ninconclusive\n")

    #expect(result.finalStateName == "Injured?")
    #expect(result.decision == .yes)
    #expect(outcome(of: result) == .inconclusive)
    let healthy = try await health.run(with: Subject(isWillingToExercise: true, isInjured: false))
    #expect(healthy.finalStateName == "Do sit-ups")
    #expect(outcome(of: healthy) == .healthy)
    let unhealthy = try await health.run(
      with: Subject(isWillingToExercise: false, isInjured: false))
    #expect(unhealthy.decision == .no)
    #expect(outcome(of: unhealthy) == .unhealthy)

    // README: "Runs, results, errors and cancellation", which goes on from the block above.
    do throws(DefinitionError) {
      // swift-format-ignore
      _ = try Flowchart<Subject> {
        Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
          GoTo("Lift weight")
        } no: {
          Action("Rest")
        }
      }
    } catch {
      print(error)  // 2 problems: GoTo 'Lift weight' refers to no state; 'Rest' leads nowhere
      #expect(printed.hasSuffix("inconclusive\n\(error)\n"))
      #expect(error.problems.map(\.kind) == [.unknownName, .exitLeadsNowhere])
      #expect(error.problems.map(\.name) == ["Lift weight", "Rest"])
      #expect(error.description.contains("has 2 problems"))
    }

    let willing = Subject(isWillingToExercise: true, isInjured: false)
    do {
      _ = try await health.run(with: willing, stepLimit: 2)
      Issue.record("The step limit should have stopped the run.")
    } catch {
      print(error.kind, error.stateName)  // step limit exceeded Do sit-ups
      #expect(printed.hasSuffix("\nstep limit exceeded Do sit-ups\n"))
      #expect(error.kind == .stepLimitExceeded)
      #expect(error.stateName == "Do sit-ups")
    }

    let run = Task { try await health.run(with: willing) }
    run.cancel()
    do {
      _ = try await run.value
      Issue.record("The cancelled run should have thrown.")
    } catch let error as RunError {
      print(error.kind)  // cancelled
      print(error)  // where the run stopped, and the path that led there
      #expect(printed.hasSuffix("\ncancelled\n\(error)\n"))
      #expect(error.kind == .cancelled)
      #expect(error.description.contains("Path: "))
    }

    // README: "Live runs".
    let live = health.start(with: willing, isPaused: true, isLogged: true)
    let events = live.events()
    live.resume()
    var eventCount = 0
    for await event in events {
      print(event)  // 0.000023s #0 'Willing to exercise?' entered, …
      eventCount += 1
    }
    _ = try await live.result
    print(live.log)  // one line per event, with what each state changed
    #expect(eventCount == 8)
    #expect(live.log.lines.count == 8)
    #expect(printed.hasSuffix("\(live.log)\n"))
  }
}

/// The lines of each ```` ```swift ```` block of `markdown`, trimmed of surrounding blanks.
private func swiftBlocks(in markdown: String) -> [[String]] {
  var blocks: [[String]] = []
  var current: [String]?
  for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
    let trimmed = line.trimmingCharacters(in: .whitespaces)
    if current == nil, trimmed == "```swift" {
      current = []
    } else if current != nil, trimmed == "```" {
      blocks.append(current!)
      current = nil
    } else {
      current?.append(trimmed)
    }
  }
  return blocks
}
