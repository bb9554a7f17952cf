import Flowchart
import Testing

/// An error a state throws on purpose.
private struct Refusal: Error, Equatable {}

/// Lets a test wait until a state has started.
private struct Started: Sendable {
  let stream: AsyncStream<Void>
  let continuation: AsyncStream<Void>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream()
  }

  func send() { continuation.yield() }

  func wait() async {
    for await _ in stream { return }
  }
}

/// Cancels the task that runs the calling code: a deterministic way for a state to be
/// cancelled while it runs.
private func cancelTheCurrentTask() {
  withUnsafeCurrentTask { $0?.cancel() }
}

/// A chart whose one state waits, in an asynchronous sleep that cancellation ends, and
/// then returns: the inner run of the tests whose state awaits another chart.
private func innerChart() throws -> Flowchart<Int> {
  try Flowchart<Int> {
    Action("Inner wait", isFinal: true) { _ in try await Task.sleep(for: .seconds(600)) }
  }
}

/// The rule: a run whose task was cancelled before the run ended ends `.cancelled`.
@Suite(.timeLimit(.minutes(5)))
struct CancellationRuleTests {
  // MARK: - Asynchronous runs

  @Test func lastStateThatIgnoresCancellationStillEndsTheRunCancelled() async throws {
    let chart = try Flowchart<Int> {
      Action("Begin") { $0 += 1 }
      Action("Last", isFinal: true) { value in
        cancelTheCurrentTask()
        await Task.yield()
        value += 1
      }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try await chart.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Last")
    #expect(error.pathNames == ["Begin", "Last"])
    #expect(error.underlyingError == nil)
    #expect(error.description.contains("cancelled while in action 'Last'"))
  }

  @Test func lastSynchronousStateOfAnAsynchronousRunAlsoCounts() async throws {
    let chart = try Flowchart<Int> {
      Action("Begin") { _ in await Task.yield() }
      Action("Last", isFinal: true) { _ in cancelTheCurrentTask() }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try await chart.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Last")
  }

  @Test func errorThrownAfterCancellationEndsTheRunCancelledAndIsKept() async throws {
    let chart = try Flowchart<Int> {
      Action("Upload") { _ in
        cancelTheCurrentTask()
        try? await Task.sleep(for: .seconds(600))
        throw Refusal()
      }
      Action("Done", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try await chart.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Upload")
    #expect(error.underlyingError as? Refusal == Refusal())
    #expect(error.description.contains("which then threw"))
  }

  @Test func cancelledInnerRunEndsTheOuterRunCancelledAtItsOwnState() async throws {
    let inner = try innerChart()
    let outer = try Flowchart<Int> {
      Action("Call inner") { value in
        cancelTheCurrentTask()
        value = try await inner.run(with: value).context
      }
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try await outer.run(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Call inner")
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.kind == .cancelled)
    #expect(innerError.stateName == "Inner wait")
  }

  @Test func cancellationErrorThrownInATaskNobodyCancelledIsAThrownError() async throws {
    let chart = try Flowchart<Int> {
      Action("Gives up", isFinal: true) { _ in
        await Task.yield()
        throw CancellationError()
      }
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.underlyingError is CancellationError)
    #expect(error.description.contains("The run stopped at action 'Gives up'"))
  }

  // MARK: - Inside a dispatch branch

  /// Runs `chart`, waits for one state to send `started`, cancels the run and returns its
  /// error.
  private func cancelledRun(
    _ chart: Flowchart<Int>, once started: Started
  ) async throws -> RunError {
    let run = Task { try await chart.run(with: 0) }
    await started.wait()
    run.cancel()
    return try await #require(throws: RunError.self) { try await run.value }
  }

  @Test func branchThatIgnoresCancellationEndsTheRunCancelled() async throws {
    let started = Started()
    let chart = try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true) {
        Branch {
          Action("Wait", isFinal: true) { _ in
            started.send()
            try? await Task.sleep(for: .seconds(600))
          }
        }
      }
    }
    let error = try await cancelledRun(chart, once: started)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Wait")
    #expect(error.pathNames == ["Fan out", "Wait"])
  }

  @Test func branchThatThrowsAfterCancellationEndsTheRunCancelled() async throws {
    let started = Started()
    let chart = try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true) {
        Branch {
          Action("Wait", isFinal: true) { _ in
            started.send()
            try? await Task.sleep(for: .seconds(600))
            throw Refusal()
          }
        }
      }
    }
    let error = try await cancelledRun(chart, once: started)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Wait")
    #expect(error.underlyingError as? Refusal == Refusal())
  }

  @Test func branchAwaitingACancelledInnerRunEndsTheRunCancelled() async throws {
    let started = Started()
    let inner = try innerChart()
    let chart = try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true) {
        Branch {
          Action("Call inner", isFinal: true) { value in
            started.send()
            value = try await inner.run(with: value).context
          }
        }
      }
    }
    let error = try await cancelledRun(chart, once: started)
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Call inner")
    #expect((error.underlyingError as? RunError)?.kind == .cancelled)
  }

  @Test func cancellationErrorThrownInABranchNobodyCancelledIsAThrownError() async throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fan out", isFinal: true) {
        Branch {
          Action("Gives up", isFinal: true) { _ in
            await Task.yield()
            throw CancellationError()
          }
        }
      }
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Gives up")
  }

  // MARK: - Synchronous runs inside a task

  @Test func synchronousRunInACancelledTaskEntersNoState() async throws {
    let chart = try Flowchart<Int> {
      Action("First", isFinal: true) { _ in throw Refusal() }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task {
        cancelTheCurrentTask()
        return try chart.runSynchronously(with: 0)
      }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "First")
    #expect(error.path.isEmpty)
  }

  @Test func synchronousLastStateThatIgnoresCancellationEndsTheRunCancelled() async throws {
    let chart = try Flowchart<Int> {
      Action("Begin") { $0 += 1 }
      Action("Last", isFinal: true) { _ in cancelTheCurrentTask() }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try chart.runSynchronously(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Last")
    #expect(error.pathNames == ["Begin", "Last"])
  }

  @Test func synchronousStateThatThrowsAfterCancellationEndsTheRunCancelled() async throws {
    let chart = try Flowchart<Int> {
      Action("Upload") { _ in
        cancelTheCurrentTask()
        throw Refusal()
      }
      Action("Done", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try chart.runSynchronously(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Upload")
    #expect(error.underlyingError as? Refusal == Refusal())
  }

  @Test func synchronousStateWhoseInnerRunWasCancelledEndsTheRunCancelled() async throws {
    let inner = try Flowchart<Int> {
      Action("Inner last", isFinal: true) { _ in cancelTheCurrentTask() }
    }
    let outer = try Flowchart<Int> {
      Action("Call inner") { $0 = try inner.runSynchronously(with: $0).context }
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try outer.runSynchronously(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Call inner")
    let innerError = try #require(error.underlyingError as? RunError)
    #expect(innerError.kind == .cancelled)
    #expect(innerError.stateName == "Inner last")
  }

  @Test func synchronousBranchThatIgnoresCancellationEndsTheRunCancelled() async throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fan out") {
        Branch { Action("Last in branch", isFinal: true) { _ in cancelTheCurrentTask() } }
        Branch { Action("Never", isFinal: true) { _ in throw Refusal() } }
      }
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try chart.runSynchronously(with: 0) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Last in branch")
    #expect(error.pathNames == ["Fan out", "Last in branch"])
  }

  @Test func cancelledSynchronousLoopStopsWithinTheCheckInterval() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Int> {
      Action("Spin") { count in
        count += 1
        if count == 10 { cancelTheCurrentTask() }
      }
      Condition("Again?") { _ in true } yes: { GoTo("Spin") } no: { Action("Never", isFinal: true) }
    }
    let error = try await #require(throws: RunError.self) {
      try await Task { try chart.runSynchronously(with: 0, stepLimit: 100_000) }.value
    }
    #expect(error.kind == .cancelled)
    #expect(error.description.contains("cancelled before entering"))
  }

  @Test func synchronousCancellationErrorWithoutCancellationIsAThrownError() throws {
    let chart = try Flowchart<Int> {
      Action("Gives up", isFinal: true) { _ in throw CancellationError() }
    }
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: 0) }
    #expect(error.kind == .thrown)
    #expect(error.underlyingError is CancellationError)
  }
}
