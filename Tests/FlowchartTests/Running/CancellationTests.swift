import Flowchart
import Testing

/// Lets a test wait until a state has started.
private struct Signal: Sendable {
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

@Suite(.timeLimit(.minutes(5)))
struct CancellationTests {
  @Test func cancellingDuringAnAsynchronousStateStopsTheRunThere() async throws {
    let started = Signal()
    let chart = try Flowchart<[String]> {
      Action("Begin") { $0.append("begin") }
      Action("Lift weights") { _ in
        started.send()
        try await Task.sleep(for: .seconds(30))
      }
      Action("Sit-ups", isFinal: true) { $0.append("sit-ups") }
    }
    let run = Task { try await chart.run(with: []) }
    await started.wait()
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Lift weights")
    #expect(error.underlyingError is CancellationError)
    #expect(error.path.map { chart[$0].name } == ["Begin", "Lift weights"])
    #expect(error.description.contains("cancelled while in action 'Lift weights'"))
  }

  @Test func stateThatFinishesAfterCancellationStopsTheRunBeforeTheNextState() async throws {
    let started = Signal()
    let chart = try Flowchart<[String]> {
      Action("Poll") { log in
        started.send()
        // Cooperative work that notices cancellation and finishes cleanly.
        while !Task.isCancelled { await Task.yield() }
        log.append("noticed")
      }
      Action("Next", isFinal: true) { $0.append("next") }
    }
    let run = Task { try await chart.run(with: []) }
    await started.wait()
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Next")
    #expect(error.underlyingError == nil)
    #expect(error.path.map { chart[$0].name } == ["Poll"])
    #expect(error.description.contains("before entering action 'Next'"))
  }

  @Test func cancellationStopsALongSynchronousStretchOfAnAsynchronousRun() async throws {
    let started = Signal()
    let chart = try Flowchart<Int> {
      Action("Start") { _ in
        await Task.yield()
        started.send()
      }
      Action("Spin") { $0 &+= 1 }
      Condition("Forever?") { _ in
        true
      } yes: {
        GoTo("Spin")
      } no: {
        Action("Never", isFinal: true)
      }
    }
    let run = Task { try await chart.run(with: 0) }
    await started.wait()
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(["Spin", "Forever?"].contains(error.stateName))
  }

  @Test func alreadyCancelledTaskEntersNoState() async throws {
    let chart = try Flowchart<Int> {
      Action("First", isFinal: true) { $0 += 1 }
    }
    let run = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await chart.run(with: 0)
    }
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "First")
    #expect(error.path.isEmpty)
  }

  @Test func cancellationReachesEveryDispatchBranch() async throws {
    let started = Signal()
    let chart = try Flowchart<Int> {
      Dispatch("Fan out") {
        for index in 0..<3 {
          Branch {
            Action("Wait \(index)", isFinal: true) { _ in
              started.send()
              try await Task.sleep(for: .seconds(30))
            }
          }
        }
      }
      Action("After", isFinal: true)
    }
    let run = Task { try await chart.run(with: 0) }
    await started.wait()
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName.hasPrefix("Wait"))
    #expect(error.path.first.map { chart[$0].name } == "Fan out")
  }
}
