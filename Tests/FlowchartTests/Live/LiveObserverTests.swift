import Flowchart
import Testing

/// `RunObserver.didReport`: every event a stream gets, in the same order, including those no
/// other callback names (attempts, retries, catches, branches that did not succeed).
@Suite(.timeLimit(.minutes(5)))
struct LiveObserverTests {
  struct Broken: Error {}

  /// Fails its first attempt, then succeeds.
  final class FlakyOnce: Sendable {
    private let attempts = Lock(0)
    func attempt() throws {
      let attempt = attempts.withLock { count in
        count += 1
        return count
      }
      if attempt == 1 { throw Broken() }
    }
  }

  // swift-format-ignore
  private func chart(flaky: FlakyOnce) throws -> Flowchart<[Int]> {
    try Flowchart<[Int]> {
      Action("Upload") { _ in try flaky.attempt() }
        .retry(1)
      Action("Parse") { _ in throw Broken() }
        .catch(goTo: "Work")
      Action("Unreached") { _ in }
      Dispatch("Work", isFinal: true, maxConcurrency: 1, join: .toleratingFailures(2)) {
        all, branch in all += branch
      } branches: {
        Branch("A") { Action("Do A", isFinal: true) { $0.append(1) } }
        Branch("B") { Action("Do B", isFinal: true) { _ in throw Broken() } }
        Branch("C", after: ["B"]) { Action("Do C", isFinal: true) { $0.append(3) } }
      }
    }
  }

  @Test func didReportSeesEveryEventTheStreamSeesInTheSameOrder() async throws {
    let recorder = Recorder()
    let observer = RunObserver(didReport: { recorder.append($0.line) })
    let handle = try chart(flaky: FlakyOnce()).start(
      with: [], isPaused: true, observer: observer)
    let streamed = await handle.allEventLines()
    #expect(try await handle.result.context == [1])
    #expect(recorder.all == streamed)
    let topLevel = recorder.all.filter { !$0.hasPrefix("[") }
    #expect(
      topLevel == [
        "Upload: run started", "Upload: entered",
        "Upload: attempt 1 failed: FlowchartTests.LiveObserverTests.Broken()",
        "Upload: attempt 2 after 0.000s", "Upload: finished", "Parse: entered",
        "Parse: caught FlowchartTests.LiveObserverTests.Broken(), going to 'Work'", "Work: entered",
        "Work: dispatch started",
        "Work: branch 2 failed (thrown error), tolerated", "Work: branch 3 skipped",
        "Work: dispatch joined", "Work: finished", "Work: run finished",
      ])
  }

  @Test func didReportComesBeforeTheCallbackThatNamesTheEvent() async throws {
    let recorder = Recorder()
    let observer = RunObserver(
      willEnterState: { recorder.append("will enter \($0.stateName)") },
      didFinishState: { recorder.append("did finish \($0.stateName)") },
      didFinishRun: { _ in recorder.append("did finish run") },
      didReport: { recorder.append("report \($0.line)") })
    let chart = try Flowchart<Int> { Action("Only", isFinal: true) { $0 += 1 } }
    _ = try await chart.start(with: 0, observer: observer).result
    #expect(
      recorder.all == [
        "report Only: run started", "report Only: entered", "will enter Only",
        "report Only: finished", "did finish Only", "report Only: run finished",
        "did finish run",
      ])
  }

  @Test func anEventKeepsItsKindAndNameAfterTheRunEnds() async throws {
    let chart = try Flowchart<Int> {
      MultipleCondition("Pick") { _ in
        2
      } exits: {
        Case(1) { Action("One", isFinal: true) }
        Case(2) { Action("Two", isFinal: true) }
      }
    }
    let handle = chart.start(with: 0, isPaused: true)
    let events = handle.events()
    handle.resume()
    var collected: [RunEvent] = []
    for await event in events { collected.append(event) }
    _ = try await handle.result
    // The events are read after the run and its stream ended.
    #expect(
      collected.map(\.line) == [
        "Pick: run started", "Pick: entered", "Pick: decided key(2)", "Two: entered",
        "Two: finished", "Two: run finished",
      ])
    #expect(collected.map(\.flow) == [0, 0, 0, 0, 0, 0])
    #expect(collected.map(\.state) == [0, 0, 0, 2, 2, 2].map { StateID($0) })
  }
}
