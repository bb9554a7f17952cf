import Flowchart
import Testing

/// Fails its first `failures` calls, then succeeds; counts every call.
private final class Flaky: Sendable {
  private let state: Lock<(failuresLeft: Int, calls: Int)>

  init(failures: Int = 1) { state = Lock((failures, 0)) }

  struct Failure: Error {}

  /// Counts a call, and throws while failures are left.
  func call() throws {
    let fails = state.withLock { state in
      state.calls += 1
      defer { state.failuresLeft = max(state.failuresLeft - 1, 0) }
      return state.failuresLeft > 0
    }
    if fails { throw Failure() }
  }

  var calls: Int { state.withLock { $0.calls } }
}

/// Retry of a failed or cancelled live run: Task.framework's retry.
@Suite(.timeLimit(.minutes(5)))
struct RetryTests {
  struct Order: Sendable, Equatable {
    var log: [String] = []
    var server = "main"
  }

  // MARK: - A failed state

  @Test func retriesTheFailedStateWithTheContextFromBeforeIt() async throws {
    let prepare = Flaky(failures: 0)
    let upload = Flaky()
    let chart = try Flowchart<Order> {
      Action("Prepare") { order in
        try prepare.call()
        order.log.append("prepared")
      }
      Action("Upload") { order in
        order.log.append("upload attempt")  // kept only when the state succeeds
        try upload.call()
      }
      Action("Done", isFinal: true) { $0.log.append("done") }
    }
    let first = chart.start(with: Order())
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Upload")

    let second = try first.retry()
    let result = try await second.result
    #expect(result.context.log == ["prepared", "upload attempt", "done"])
    #expect(prepare.calls == 1)
    #expect(upload.calls == 2)
    // The path continues the first run's, the failed attempt included.
    #expect(result.path.map { chart[$0].name } == ["Prepare", "Upload", "Upload", "Done"])
    #expect(result.stepCount == 4)
  }

  @Test func aStateWhoseOwnRetriesRanOutIsRetriedWithTheContextFromBeforeIt() async throws {
    // Two attempts of the state's own retry rule fail; the run's retry is the third.
    let upload = Flaky(failures: 2)
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Action("Upload") { order in
        order.log.append("upload attempt")  // kept only when the state succeeds
        try upload.call()
      }
      .retry(1)
      Action("Done", isFinal: true) { $0.log.append("done") }
    }
    let first = chart.start(with: Order())
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Upload")
    #expect(upload.calls == 2)

    let result = try await first.retry().result
    #expect(result.context.log == ["upload attempt", "done"])
    #expect(upload.calls == 3)
  }

  @Test func retriesAFailedAsynchronousStateAndReportsItsEvents() async throws {
    let upload = Flaky()
    let chart = try Flowchart<Order> {
      Action("Prepare") { $0.log.append("prepared") }
      Action("Upload") { order async throws in
        order.log.append("uploaded")
        try upload.call()
      }
      Action("Done", isFinal: true)
    }
    let first = chart.start(with: Order())
    _ = try await #require(throws: RunError.self) { try await first.result }
    let second = try first.retry(isPaused: true)
    let lines = await second.allEventLines()
    #expect(
      lines == [
        "Upload: run started", "Upload: entered", "Upload: finished", "Done: entered",
        "Done: finished", "Done: run finished",
      ])
    #expect(try await second.result.context.log == ["prepared", "uploaded"])
  }

  @Test func retryCanFixTheContextFirst() async throws {
    struct WrongServer: Error {}
    let chart = try Flowchart<Order> {
      Action("Prepare") { $0.log.append("prepared") }
      Action("Upload", isFinal: true) { order in
        guard order.server == "backup" else { throw WrongServer() }
        order.log.append("uploaded to \(order.server)")
      }
    }
    let first = chart.start(with: Order())
    _ = try await #require(throws: RunError.self) { try await first.result }
    let second = try first.retry { $0.server = "backup" }
    #expect(try await second.result.context.log == ["prepared", "uploaded to backup"])
    // Each retry starts from the same point.
    let third = try first.retry()
    let error = try await #require(throws: RunError.self) { try await third.result }
    #expect(error.stateName == "Upload")
  }

  @Test func retriesACancelledRunAtTheStateItWasCancelledIn() async throws {
    let prepare = Flaky(failures: 0)
    let chart = try Flowchart<Order> {
      Action("Prepare") { order in
        try prepare.call()
        order.log.append("prepared")
      }
      Wait("Approval", for: String.self) { order, name in order.log.append("approved by \(name)") }
      Action("Ship", isFinal: true) { $0.log.append("shipped") }
    }
    let first = chart.start(with: Order(), isPaused: true)
    var events = first.events().makeAsyncIterator()
    first.resume()
    _ = await events.next { if case .waitingForInput = $0.kind { true } else { false } }
    first.cancel()
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Approval")

    let second = try first.retry(isPaused: true)
    // Sent before the retried run reaches the state: kept until it does.
    #expect(try second.send("Ada", to: "Approval"))
    second.resume()
    let result = try await second.result
    #expect(result.context.log == ["prepared", "approved by Ada", "shipped"])
    #expect(prepare.calls == 1)
    #expect(result.path.map { chart[$0].name } == ["Prepare", "Approval", "Approval", "Ship"])
  }

  // MARK: - Dispatches

  @Test func retriesOnlyTheBranchesOfADispatchThatDidNotFinish() async throws {
    let counts = [Flaky(failures: 0), Flaky(), Flaky(failures: 0)]
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Action("Prepare") { $0.log.append("prepared") }
      Dispatch("Uploads", maxConcurrency: 1) { order, branch, original in
        order.log += branch.log.dropFirst(original.log.count)
      } branches: {
        for index in 0..<3 {
          Branch("Upload \(index)") {
            Action("Send \(index)", isFinal: true) { order in
              order.log.append("sent \(index)")
              try counts[index].call()
            }
          }
        }
      }
      Action("Done", isFinal: true) { $0.log.append("done") }
    }
    let first = chart.start(with: Order())
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Send 1")
    // Branch 0 finished; branch 1 failed; branch 2 never started.
    #expect(counts.map(\.calls) == [1, 1, 0])

    let second = try first.retry()
    let result = try await second.result
    #expect(counts.map(\.calls) == [1, 2, 1])
    // Merged in declaration order, as in a run that never failed.
    #expect(result.context.log == ["prepared", "sent 0", "sent 1", "sent 2", "done"])
  }

  @Test func aBranchCancelledWithItsDispatchRunsAgainFromWhereItStopped() async throws {
    let started = [Flaky(failures: 0), Flaky(failures: 0)]
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Both", isFinal: true) { order, branch in order.log += branch.log } branches: {
        Branch("Fast") {
          Action("Quick", isFinal: true) { order in
            try started[0].call()
            order.log.append("quick")
          }
        }
        Branch("Slow") {
          Action("Start slow") { order in
            try started[1].call()
            order.log.append("slow started")
          }
          Wait("Slow done", for: Int.self, isFinal: true) { order, value in
            order.log.append("slow \(value)")
          }
        }
      }
    }
    let first = chart.start(with: Order(), isPaused: true)
    var events = first.events().makeAsyncIterator()
    first.resume()
    // Cancelled once "Fast" has finished and "Slow" waits.
    var (fastEnded, slowWaits) = (false, false)
    while !(fastEnded && slowWaits), let event = await events.next() {
      if case .branchEnded(0) = event.kind { fastEnded = true }
      if case .waitingForInput = event.kind { slowWaits = true }
    }
    first.cancel()
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.kind == .cancelled)

    let second = try first.retry()
    try second.send(7, to: "Slow done")
    let result = try await second.result
    #expect(started.map(\.calls) == [1, 1])
    #expect(result.context.log == ["quick", "slow started", "slow 7"])
  }

  @Test func retriesANestedDispatchDownToTheFailedBranch() async throws {
    let counts = [Flaky(failures: 0), Flaky(failures: 0), Flaky()]
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Outer", maxConcurrency: 1) { order, branch in order.log += branch.log } branches: {
        Branch("X") {
          Action("Do X", isFinal: true) { order in
            try counts[0].call()
            order.log.append("x")
          }
        }
        Branch("Y") {
          Dispatch("Inner", isFinal: true, maxConcurrency: 1) { order, branch in
            order.log += branch.log
          } branches: {
            Branch("Y1") {
              Action("Do Y1", isFinal: true) { order in
                try counts[1].call()
                order.log.append("y1")
              }
            }
            Branch("Y2") {
              Action("Do Y2", isFinal: true) { order in
                try counts[2].call()
                order.log.append("y2")
              }
            }
          }
        }
      }
      Action("Done", isFinal: true) { $0.log.append("done") }
    }
    let first = chart.start(with: Order())
    let error = try await #require(throws: RunError.self) { try await first.result }
    #expect(error.stateName == "Do Y2")
    #expect(counts.map(\.calls) == [1, 1, 1])

    let second = try first.retry()
    let result = try await second.result
    #expect(counts.map(\.calls) == [1, 1, 2])
    #expect(result.context.log == ["x", "y1", "y2", "done"])
  }

  @Test func aDispatchWhoseMergeThrewIsRetriedWithoutRunningItsBranchesAgain() async throws {
    let branchCalls = Flaky(failures: 0)
    let merges = Flaky()
    // swift-format-ignore
    let chart = try Flowchart<Order> {
      Dispatch("Join", isFinal: true) { order, branch in
        try merges.call()
        order.log += branch.log
      } branches: {
        Branch { Action("Work", isFinal: true) { order in
          try branchCalls.call()
          order.log.append("worked")
        } }
      }
    }
    let first = chart.start(with: Order())
    _ = try await #require(throws: RunError.self) { try await first.result }
    let result = try await first.retry().result
    #expect(result.context.log == ["worked"])
    #expect(branchCalls.calls == 1)
    #expect(merges.calls == 2)
  }

  // MARK: - Errors

  @Test func retryingARunThatHasNotEndedOrSucceededIsAnError() async throws {
    let chart = try Flowchart<Order> {
      Wait("Approval", for: String.self, isFinal: true) { order, name in order.log.append(name) }
    }
    let handle = chart.start(with: Order())
    let notEnded = #expect(throws: RetryError.self) { try handle.retry() }
    #expect(notEnded?.kind == .runNotEnded)
    #expect(notEnded?.reason.contains("has not ended") == true)
    try handle.send("Ada", to: "Approval")
    _ = try await handle.result
    let succeeded = #expect(throws: RetryError.self) { try handle.retry() }
    #expect(succeeded?.kind == .runSucceeded)
    #expect(succeeded?.description.contains("restart(with:)") == true)
  }

  @Test func retryingARunThatFailedBeforeItsFirstStateIsAnError() async throws {
    let chart = try Flowchart<Order> { Action("Only", isFinal: true) }
    let handle = chart.start(with: Order(), stepLimit: -1)
    _ = try await #require(throws: RunError.self) { try await handle.result }
    let error = #expect(throws: RetryError.self) { try handle.retry() }
    #expect(error?.kind == .noStateToRetry)
  }

  // MARK: - Ended handles

  @Test func anEndedHandleRefusesInputAndIgnoresPauseAndResume() async throws {
    let chart = try Flowchart<Order> {
      Wait("Approval", for: String.self, isFinal: true) { order, name in order.log.append(name) }
    }
    let handle = chart.start(with: Order())
    try handle.send("Ada", to: "Approval")
    _ = try await handle.result
    #expect(handle.hasEnded)
    let error = #expect(throws: InputError.self) { try handle.send("Bob", to: "Approval") }
    #expect(error?.kind == .runEnded)
    #expect(error?.stateName == "Approval")
    let byID = #expect(throws: InputError.self) {
      try handle.send("Bob", to: chart.state(named: "Approval")!)
    }
    #expect(byID?.kind == .runEnded)
    handle.pause()
    #expect(!handle.isPaused)
    handle.resume()
    #expect(try await handle.result.context.log == ["Ada"])
  }

  @Test func restartRunsTheChartAgainOnlyOnceTheRunHasEnded() async throws {
    let chart = try Flowchart<Order> {
      Wait("Approval", for: String.self, isFinal: true) { order, name in order.log.append(name) }
    }
    let handle = chart.start(with: Order())
    let refused = #expect(throws: RetryError.self) { try handle.restart(with: Order()) }
    #expect(refused?.kind == .runNotEnded)
    try handle.send("Ada", to: "Approval")
    _ = try await handle.result
    let again = try handle.restart(with: Order(log: ["fresh"]))
    try again.send("Bob", to: "Approval")
    #expect(try await again.result.context.log == ["fresh", "Bob"])
    #expect(try await handle.result.context.log == ["Ada"])
  }
}
