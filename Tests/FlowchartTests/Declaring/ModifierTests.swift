import Flowchart
import FlowchartTesting
import Testing

/// What the modified states throw.
enum Glitch: Error, Equatable {
  case transient
  case permanent
}

/// The context of the modifier tests.
struct Job: Sendable {
  var log: [String] = []
  var failure: String?
  var lastError: (any Error)?
  var isReady = true
}

/// Counts the attempts of a state's code, across the context copies retries start from.
final class AttemptCounter: Sendable {
  private let count = Lock(0)
  /// Counts one attempt; returns its number, from 1.
  func next() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }
  var value: Int { count.withLock { $0 } }
}

@Suite(.timeLimit(.minutes(5)))
struct ModifierTests {
  // MARK: - Catch routes

  // swift-format-ignore
  @Test func aCatchRouteGoesToItsTargetWithTheErrorInTheContext() async throws {
    let chart = try Flowchart<Job> {
      Action("Upload") { job in
        job.log.append("upload")
        throw Glitch.permanent
      }
      .catch(goTo: "Report failure") { job, error in job.failure = "\(error)" }
      Action("Done", isFinal: true)
      Action("Report failure", isFinal: true) { job in job.log.append("report \(job.failure ?? "-")") }
    }
    let result = try await chart.run(with: Job())
    #expect(result.finalStateName == "Report failure")
    // The failed attempt's change is dropped; the handler's is kept.
    #expect(result.context.log == ["report permanent"])
    #expect(result.pathNames == ["Upload", "Report failure"])
  }

  // swift-format-ignore
  @Test func aTypedCatchRouteTakesOnlyItsErrorType() async throws {
    struct Other: Error {}
    let chart = try Flowchart<Job> {
      Condition("Ready?") { job in
        if job.isReady { throw Other() }
        throw Glitch.transient
      } yes: {
        Action("Go", isFinal: true)
      } no: {
        Action("Stop", isFinal: true)
      }
      .catch(Glitch.self, goTo: "Glitched") { job, glitch in job.failure = "glitch \(glitch)" }
      .catch(goTo: "Failed", storingErrorIn: \.lastError)
      Action("Glitched", isFinal: true)
      Action("Failed", isFinal: true)
    }
    let other = try await chart.run(with: Job(isReady: true))
    #expect(other.finalStateName == "Failed")
    #expect(other.context.lastError is Other)
    #expect(other.context.failure == nil)
    let glitch = try await chart.run(with: Job(isReady: false))
    #expect(glitch.finalStateName == "Glitched")
    #expect(glitch.context.failure == "glitch transient")
    #expect(glitch.context.lastError == nil)
  }

  // swift-format-ignore
  @Test func anErrorNoCatchRouteTakesFailsTheRun() async throws {
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in throw Glitch.permanent }
        .catch(Glitch.self, goTo: "Report") { _, glitch in #expect(glitch == .permanent) }
        .retry(1, on: Glitch.self, if: { $0 == .transient })
      Action("Report", isFinal: true)
    }
    #expect(try await chart.run(with: Job()).finalStateName == "Report")
    let uncaught = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in throw Glitch.permanent }
        .catch(Glitch.self, goTo: "Report") { _, _ in }
        .catch(CancellationError.self, goTo: "Report") { _, _ in }
      Action("Report", isFinal: true)
    }
    #expect(try await uncaught.run(with: Job()).finalStateName == "Report")
  }

  // swift-format-ignore
  @Test func catchRoutesWorkOnMultipleConditionsAndFinalStates() async throws {
    let chart = try Flowchart<Job> {
      MultipleCondition("Route") { (job: inout Job) -> Int in
        if job.isReady { return 1 }
        throw Glitch.permanent
      } exits: {
        Case(1) { Action("One", isFinal: true) }
      }
      .catch(goTo: "Fallback")
      MultipleCondition("Fallback", isFinal: true) { (_: inout Job) -> String in
        throw Glitch.transient
      }
      .catch(goTo: "Last resort") { job, _ in job.log.append("caught") }
      Action("Last resort", isFinal: true)
    }
    #expect(try await chart.run(with: Job()).finalStateName == "One")
    let caught = try await chart.run(with: Job(isReady: false))
    #expect(caught.finalStateName == "Last resort")
    #expect(caught.pathNames == ["Route", "Fallback", "Last resort"])
    #expect(caught.context.log == ["caught"])
  }

  // swift-format-ignore
  @Test func aCatchRouteInsideABranchStaysInItsBranch() async throws {
    let chart = try Flowchart<Job> {
      Dispatch("Work", merge: { job, branch in job.log += branch.log }) {
        Branch("Upload") {
          Action("Send") { _ in throw Glitch.permanent }
            .catch(goTo: "Send failed") { job, _ in job.log.append("send failed") }
          Action("Sent", isFinal: true)
          Action("Send failed", isFinal: true)
        }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Job())
    #expect(result.finalStateName == "Done")
    #expect(result.context.log == ["send failed"])
    #expect(try chart.runSynchronously(with: Job()).context.log == ["send failed"])
  }

  // swift-format-ignore
  @Test func aSubflowTakesModifiersLikeAnyState() async throws {
    let attempts = AttemptCounter()
    let inner = try Flowchart<Int> {
      Action("Count", isFinal: true) { value in
        if attempts.next() < 3 { throw Glitch.transient }
        value += 1
      }
    }
    let chart = try Flowchart<Job> {
      Subflow("Inner", running: inner, context: ContextMapping(enter: { _ in 41 }, leave: { job, value in job.log.append("\(value)") }))
        .retry(2)
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Job())
    #expect(attempts.value == 3)
    #expect(result.context.log == ["42"])
  }

  // MARK: - Retries without waiting

  // swift-format-ignore
  @Test func eachRetryStartsFromTheContextBeforeTheFirstAttempt() async throws {
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { job in
        let attempt = attempts.next()
        job.log.append("attempt \(attempt)")
        if attempt < 3 { throw Glitch.transient }
      }
      .retry(3)
    }
    let result = try await chart.run(with: Job(log: ["start"]))
    #expect(attempts.value == 3)
    #expect(result.context.log == ["start", "attempt 3"])
    // A state is entered once, whatever its number of attempts.
    #expect(result.stepCount == 1)
  }

  // swift-format-ignore
  @Test func theRetryFilterDecidesWhichErrorsAreRetried() async throws {
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in
        throw attempts.next() < 2 ? Glitch.transient : Glitch.permanent
      }
      .retry(5, on: Glitch.self, if: { $0 == .transient })
    }
    let error = await #expect(throws: RunError.self) { try await chart.run(with: Job()) }
    #expect(attempts.value == 2)
    #expect(error?.kind == .thrown)
    #expect(error?.underlyingError as? Glitch == .permanent)
    #expect(error?.description.contains("(It failed all 2 attempts.)") == true)

    let closureAttempts = AttemptCounter()
    let byClosure = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in
        _ = closureAttempts.next()
        throw Glitch.permanent
      }
      .retry(5, if: { ($0 as? Glitch) == .transient })
    }
    await #expect(throws: RunError.self) { try await byClosure.run(with: Job()) }
    #expect(closureAttempts.value == 1)
  }

  // swift-format-ignore
  @Test func theLastFailedAttemptGoesToTheCatchRoute() async throws {
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Upload") { _ in
        _ = attempts.next()
        throw Glitch.transient
      }
      .retry(2)
      .catch(goTo: "Report") { job, error in job.failure = "\(error)" }
      Action("Done", isFinal: true)
      Action("Report", isFinal: true)
    }
    let result = try await chart.run(with: Job())
    #expect(attempts.value == 3)
    #expect(result.finalStateName == "Report")
    #expect(result.context.failure == "transient")
  }

  // MARK: - Synchronous runs

  // swift-format-ignore
  @Test func retriesWithoutDelayAndCatchRoutesRunSynchronously() throws {
    let attempts = AttemptCounter()
    let chart = try Flowchart<Job> {
      Action("Parse") { job in
        if attempts.next() < 2 { throw Glitch.transient }
        job.log.append("parsed")
      }
      .retry(1)
      Action("Validate", isFinal: true) { _ in throw Glitch.permanent }
        .catch(goTo: "Invalid", storingErrorIn: \.lastError)
      Action("Invalid", isFinal: true)
    }
    #expect(chart.isSynchronous)
    let result = try chart.runSynchronously(with: Job())
    #expect(result.finalStateName == "Invalid")
    #expect(result.context.log == ["parsed"])
    #expect(result.context.lastError as? Glitch == .permanent)
    #expect(attempts.value == 2)
  }

  // swift-format-ignore
  @Test func aTimeoutOrARetryDelayMakesAChartAsynchronous() throws {
    let timed = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { _ in }.timeout(.seconds(5))
    }
    #expect(!timed.isSynchronous)
    let error = #expect(throws: RunError.self) { try timed.runSynchronously(with: Job()) }
    #expect(error?.kind == .asynchronousState)
    #expect(error?.stateName == "Fetch")
    #expect(error?.description.contains("has a timeout, which needs a clock") == true)

    let waiting = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { _ in }.retry(2, backoff: .fixed(.seconds(1)))
    }
    #expect(!waiting.isSynchronous)
    let immediate = try Flowchart<Job> {
      Action("Fetch", isFinal: true) { _ in }.retry(2, backoff: .fixed(.zero))
    }
    #expect(immediate.isSynchronous)
  }

  // MARK: - Definition errors

  // swift-format-ignore
  @Test func anUnknownCatchTargetIsADefinitionErrorWithItsLineAndASuggestion() {
    let line = #line + 4
    let error = expectDefinitionError([ExpectedProblem(.unknownName, "Reprot failure", line: line)]) {
      try Flowchart<Job> {
        Action("Upload") { _ in }
          .catch(goTo: "Reprot failure")
        Action("Done", isFinal: true)
        Action("Report failure", isFinal: true)
      }
    }
    #expect(
      error?.problems.first?.message
        == "Catch route 'Reprot failure' refers to no state. Declare a state named 'Reprot failure', or use one of the declared names (did you mean 'Report failure'?)."
    )
  }

  // swift-format-ignore
  @Test func anAmbiguousCatchTargetIsADefinitionError() {
    expectDefinitionError([ExpectedProblem(.ambiguousName, "Report", line: #line + 3)]) {
      try Flowchart<Job> {
        Action("Upload") { _ in }
          .catch(goTo: "Report")
        Condition("Ready?") { $0.isReady } yes: {
          Action("Report", isFinal: true)
        } no: {
          Action("Report", isFinal: true)
        }
      }
    }
  }

  // swift-format-ignore
  @Test func aCatchRouteCannotCrossABranchBoundary() {
    let error = expectDefinitionError([ExpectedProblem(.crossesBranchBoundary, "Report", line: #line + 5)]) {
      try Flowchart<Job> {
        Dispatch("Work") {
          Branch("Upload") {
            Action("Send", isFinal: true) { _ in }
              .catch(goTo: "Report")
          }
        }
        Action("Done", isFinal: true)
        Action("Report", isFinal: true)
      }
    }
    #expect(
      error?.problems.first?.message
        == "The catch route of Action 'Send' in branch 1 ('Upload') of dispatch 'Work' leads to 'Report', a state in the top level. Arrows cannot cross a dispatch branch's boundary: catch into a state of the same flow, or end the branch with a final state and handle the failure after the dispatch (with a join policy that tolerates it)."
    )
  }

  // swift-format-ignore
  @Test func aCatchTargetCountsAsReachable() throws {
    let chart = try Flowchart<Job> {
      Action("Upload", isFinal: true) { _ in }
        .catch(goTo: "Report")
      Action("Report") { _ in }
      Action("Notify", isFinal: true)
    }
    #expect(chart.states.count == 3)
  }

  // swift-format-ignore
  @Test func invalidModifiersAreDefinitionErrors() {
    let line = #line + 10
    let error = expectDefinitionError(
      [
        ExpectedProblem(.invalidModifier, "Work", line: line),
        ExpectedProblem(.invalidModifier, "Fetch", line: line + 4),
        ExpectedProblem(.invalidModifier, "Fetch", line: line + 4),
        ExpectedProblem(.invalidModifier, "Fetch", line: line + 4),
      ]
    ) {
      try Flowchart<Job> {
        Dispatch("Work") {
          Branch { Action("Send", isFinal: true) }
        }
        .timeout(.seconds(1))
        Action("Fetch", isFinal: true) { _ in }
          .timeout(.zero)
          .retry(-1)
          .retry(2)
      }
    }
    let messages = error?.problems.map(\.message) ?? []
    #expect(
      messages == [
        "Dispatch 'Work' has modifiers, which a dispatch does not take: its branches run the code. Put the timeout, retries or catch routes on the states of its branches, and tolerate a branch's failure with a join policy.",
        "Action 'Fetch' has a timeout of 0s (line \(line + 5)). Give a limit greater than zero.",
        "Action 'Fetch' retries -1 times (line \(line + 6)). Give a count of 0 or more.",
        "Action 'Fetch' declares a second retry (line \(line + 7)). Keep one .retry(…), with a filter that accepts every error to retry.",
      ])
  }

  // MARK: - Printing

  // swift-format-ignore
  @Test func theTreeShowsModifiersAndCatchRoutes() throws {
    let chart = try Flowchart<Job> {
      Condition("Ready?") { $0.isReady } yes: {
        Action("Upload") { _ in }
          .timeout(.seconds(30))
          .retry(3, backoff: .exponential(initial: .milliseconds(250), maximum: .seconds(10)).jittered(seed: 7))
          .catch(Glitch.self, goTo: "Report failure")
        Action("Done", isFinal: true)
      } no: {
        Action("Wait") { _ in }
          .retry(2, on: Glitch.self, backoff: .fixed(.seconds(1)))
        GoTo("Ready?")
      }
      .catch(goTo: "Report failure")
      Action("Report failure", isFinal: true)
    }
    expectTree(
      chart,
      matches: """
        Ready? (S)
        Y- Upload (A) [timeout 30s, retry ×3 (exponential 0.25s×2…10s, full jitter)]
        |  x- catch Glitch: Report failure (A) !
        |  Done (A) !
        N- Wait (A) [retry ×2 (on Glitch, fixed 1s)]
        |  Ready? (S) *
        x- catch: Report failure (A) !
        """)
  }
}
