import Flowchart
import Testing

/// Each behaviour Task.framework's document describes for prerequisites, external
/// conditions and subworkflows, as a Flowchart dispatch does it: a task is a branch, its
/// prerequisites are the branches it names with `after:`, an external condition task is a
/// `Wait`, and a subworkflow task is a `Subflow`.
///
/// Concurrency is shown without timing: a branch that must run while another is still
/// running waits for a gate that only the other can open, so a dispatch that ran them one
/// after the other would never end, and the suite's time limit would fail the test.
@Suite(.timeLimit(.minutes(5)))
struct TaskFrameworkDocumentTests {
  /// What each task left, merged at the join: Task.framework's results.
  struct Work: Sendable, Equatable {
    var results: [String: String] = [:]
    /// Which results each task saw when it started.
    var saw: [String: [String]] = [:]
  }

  struct Failed: Error {}

  /// A dispatch's merge: each branch's results and observations join the parent's.
  @Sendable static func merge(_ work: inout Work, _ branch: Work) {
    work.results.merge(branch.results) { first, _ in first }
    work.saw.merge(branch.saw) { first, _ in first }
  }

  /// A task: records what it saw, then its result.
  static func task(
    _ name: String, gate: Gate? = nil, opens other: Gate? = nil, fails: Bool = false,
    counter: Recorder? = nil
  ) -> Action<Work> {
    Action(name, isFinal: true) { work in
      counter?.append(name)
      work.saw[name] = work.results.keys.sorted()
      other?.open()
      await gate?.wait()
      if fails { throw Failed() }
      work.results[name] = "\(name) done"
    }
  }

  // MARK: - Workflows of the document's figures

  @Test func aWorkflowWithASingleTaskFinishesWhenItsTaskDoes() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Workflow A", merge: Self.merge) {
        Branch("A") { Self.task("A") }
      }
      Action("Finished", isFinal: true)
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.results == ["A": "A done"])
    #expect(result.pathNames == ["Workflow A", "A", "Finished"])
  }

  @Test func aTaskInSeriesStartsWithItsPrerequisitesResult() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Workflow A+B", isFinal: true, merge: Self.merge) {
        Branch("B", after: ["A"]) { Self.task("B") }
        Branch("A") { Self.task("A") }
      }
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.saw == ["A": [], "B": ["A"]])
  }

  @Test func tasksWithoutCrossDependenciesRunConcurrently() async throws {
    // A waits until B has started and B until A has: only a concurrent run ends.
    let aStarted = Gate()
    let bStarted = Gate()
    let chart = try Flowchart<Work> {
      Dispatch("Workflow AB", isFinal: true, merge: Self.merge) {
        Branch("A") { Self.task("A", gate: bStarted, opens: aStarted) }
        Branch("B") { Self.task("B", gate: aStarted, opens: bStarted) }
      }
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.results.keys.sorted() == ["A", "B"])
    #expect(result.context.saw == ["A": [], "B": []])
  }

  @Test func aTaskWithTwoPrerequisitesStartsAfterBothWithBothResults() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Workflow AB+C", isFinal: true, merge: Self.merge) {
        Branch("C", after: ["A", "B"]) { Self.task("C") }
        Branch("A") { Self.task("A") }
        Branch("B") { Self.task("B") }
      }
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.saw["C"] == ["A", "B"])
    #expect(result.context.results.count == 3)
  }

  @Test(arguments: ["A", "B"])
  func whenAPrerequisiteFailsItsDependentNeverRuns(failing: String) async throws {
    let ran = Recorder()
    let chart = try Flowchart<Work> {
      Dispatch("Workflow AB+C", isFinal: true, merge: Self.merge) {
        Branch("A") { Self.task("A", fails: failing == "A", counter: ran) }
        Branch("B") { Self.task("B", fails: failing == "B", counter: ran) }
        Branch("C", after: ["A", "B"]) { Self.task("C", counter: ran) }
      }
    }
    let error = await #expect(throws: RunError.self) { try await chart.run(with: Work()) }
    #expect(error?.kind == .thrown)
    #expect(error?.stateName == failing)
    #expect(!ran.all.contains("C"))
  }

  @Test func aTaskStartsAsSoonAsItsOwnPrerequisiteEndsWhileOthersStillRun() async throws {
    // A(B+C): C depends on B only, so C runs while A is still running. A ends only once C
    // has started, which a dispatch that waited for A before C could never do.
    let cStarted = Gate()
    let chart = try Flowchart<Work> {
      Dispatch("Workflow A(B+C)", isFinal: true, merge: Self.merge) {
        Branch("A") { Self.task("A", gate: cStarted) }
        Branch("B") { Self.task("B") }
        Branch("C", after: ["B"]) { Self.task("C", opens: cStarted) }
      }
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.saw["C"] == ["B"])
    #expect(result.context.results.count == 3)
  }

  // MARK: - Results of prerequisites

  struct Account: Sendable, Equatable {
    var user = ""
    var address = ""
    var userWithAddress = ""
  }

  @Test func aTaskReadsEachPrerequisitesResultByName() async throws {
    // Task.framework's keyed prerequisites: `userTask` and `addressTask` results, read by
    // key. A branch starts from its prerequisites' contexts merged, so each result is a
    // field of the context.
    let chart = try Flowchart<Account> {
      Dispatch("Account", isFinal: true) { account, branch in
        if !branch.user.isEmpty { account.user = branch.user }
        if !branch.address.isEmpty { account.address = branch.address }
        if !branch.userWithAddress.isEmpty { account.userWithAddress = branch.userWithAddress }
      } branches: {
        Branch("userTask") { Action("Fetch user", isFinal: true) { $0.user = "Ada" } }
        Branch("addressTask") {
          Action("Fetch address", isFinal: true) { $0.address = "12 Analytical Row" }
        }
        Branch("Attach address", after: ["userTask", "addressTask"]) {
          Action("Attach", isFinal: true) { $0.userWithAddress = "\($0.user), \($0.address)" }
        }
      }
    }
    let result = try await chart.run(with: Account())
    #expect(result.context.userWithAddress == "Ada, 12 Analytical Row")
  }

  // MARK: - External conditions

  struct Request: Sendable, Equatable {
    var input = ""
    var response = ""
  }

  @Test func aTaskWaitingOnAnExternalConditionStartsWhenItIsFulfilled() async throws {
    let chart = try Flowchart<Request> {
      Dispatch("Request", isFinal: true) { request, branch in
        if !branch.input.isEmpty { request.input = branch.input }
        if !branch.response.isEmpty { request.response = branch.response }
      } branches: {
        Branch("Get input") {
          Wait("User data", for: String.self, isFinal: true) { $0.input = $1 }
        }
        Branch("API request", after: ["Get input"]) {
          Action("Send request", isFinal: true) { $0.response = "sent \($0.input)" }
        }
      }
    }
    // Started paused, so that the subscription is made before the run can wait.
    let handle = chart.start(with: Request(), isPaused: true)
    var events = handle.events().makeAsyncIterator()
    handle.resume()
    let waiting = await events.next {
      if case .waitingForInput = $0.kind { true } else { false }
    }
    #expect(waiting?.stateName == "User data")
    // The request has not started: the dispatch's flow stands at the dispatch, and the
    // only branch running waits for input.
    #expect(handle.positions == [chart.state(named: "Request"), chart.state(named: "User data")])
    #expect(try handle.send("ada@example.com", to: "User data"))
    let result = try await handle.result
    #expect(result.context.response == "sent ada@example.com")
  }

  // MARK: - Subworkflows

  struct Image: Sendable, Equatable {
    var data = ""
    var uploaded: [String] = []
  }

  @Test func aSubworkflowRunsAsOneStepBetweenAnExternalConditionAndAnUpload() async throws {
    // The document's image workflow: image available → filter (a whole workflow) → upload.
    let filter = try Flowchart<String> {
      Action("Desaturate") { $0 += " (mono)" }
      Action("Sharpen", isFinal: true) { $0 += " (sharp)" }
    }
    let chart = try Flowchart<Image> {
      Wait("Image available", for: String.self) { $0.data = $1 }
      Subflow("Filter", running: filter, context: .keyPath(\.data))
      Action("Upload image", isFinal: true) { $0.uploaded.append($0.data) }
    }
    let handle = chart.start(with: Image())
    #expect(try handle.send("beach.jpg", to: "Image available"))
    let result = try await handle.result
    #expect(result.context.uploaded == ["beach.jpg (mono) (sharp)"])
    #expect(result.pathNames == ["Image available", "Filter", "Upload image"])
  }

  @Test func cancellingTheWorkflowCancelsTheSubworkflowInProgress() async throws {
    let started = Gate()
    let inner = try Flowchart<Image> {
      Action("Long filter", isFinal: true) { _ in
        started.open()
        // Sleeps until cancelled: only the outer run's cancellation wakes it.
        try? await Task.sleep(for: .seconds(3600))
      }
    }
    let chart = try Flowchart<Image> {
      Subflow("Filter", running: inner, context: .whole)
      Action("Upload image", isFinal: true) { $0.uploaded.append($0.data) }
    }
    let handle = chart.start(with: Image())
    await started.wait()
    handle.cancel()
    let error = await #expect(throws: RunError.self) { try await handle.result }
    #expect(error?.kind == .cancelled)
    #expect(error?.stateName == "Filter")
  }

  // MARK: - Notifications, reset

  @Test func theRunReportsEachTasksSuccessAndTheFailure() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Workflow AB+C", isFinal: true, merge: Self.merge) {
        Branch("A") { Self.task("A") }
        Branch("B", after: ["A"]) { Self.task("B", fails: true) }
      }
    }
    // Started paused and subscribed before it goes on, so the stream sees every event
    // however fast the run would otherwise end.
    let handle = chart.start(with: Work(), isPaused: true)
    let events = handle.events()
    handle.resume()
    var lines: [String] = []
    for await event in events {
      switch event.kind {
      case .stateDecided, .stateFailed, .runFailed: lines.append(event.line)
      default: break
      }
    }
    // Each event up to its cause: the run's failure names the state where it stopped.
    #expect(
      lines.map { $0.prefix(while: { $0 != "(" }) } == [
        "[1] A: finished", "[2] B: failed ", "Workflow AB+C: failed ", "B: run failed ",
      ])
  }

  @Test func runningAFinishedWorkflowAgainKeepsItsOrder() async throws {
    // Task 1.0's reset bug: a reset dependent ran before its reset prerequisite. A run is a
    // value: each run of the chart starts every task afresh, in prerequisite order.
    let ran = Recorder()
    let chart = try Flowchart<Work> {
      Dispatch("Workflow A+B", isFinal: true, merge: Self.merge) {
        Branch("B", after: ["A"]) { Self.task("B", counter: ran) }
        Branch("A") { Self.task("A", counter: ran) }
      }
    }
    let first = try await chart.run(with: Work())
    let second = try await chart.run(with: Work())
    #expect(first.context == second.context)
    #expect(ran.all == ["A", "B", "A", "B"])
  }
}
