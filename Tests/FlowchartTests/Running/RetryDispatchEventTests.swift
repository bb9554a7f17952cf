import Flowchart
import Testing

/// The events and log lines of a dispatch's branches that did not succeed: tolerated
/// failures, skipped branches, and branches cancelled once the quorum was met.
@Suite(.timeLimit(.minutes(5)))
struct RetryDispatchEventTests {
  struct Broken: Error {}

  /// The dispatching flow's events, as lines.
  static func topLevelLines(of handle: RunHandle<[Int]>) async -> [String] {
    let events = handle.events()
    handle.resume()
    var lines: [String] = []
    for await event in events where event.flow == 0 { lines.append(event.line) }
    return lines
  }

  @Test func reportsAToleratedFailureAndASkippedBranchBeforeTheJoin() async throws {
    // swift-format-ignore
    let chart = try Flowchart<[Int]> {
      Dispatch("Work", isFinal: true, maxConcurrency: 1, join: .toleratingFailures(2)) {
        all, branch in all += branch
      } branches: {
        Branch("A") { Action("Do A", isFinal: true) { $0.append(1) } }
        Branch("B") { Action("Do B", isFinal: true) { _ in throw Broken() } }
        Branch("C", after: ["B"]) { Action("Do C", isFinal: true) { $0.append(3) } }
      }
    }
    let handle = chart.start(with: [], isPaused: true, isLogged: true)
    let lines = await Self.topLevelLines(of: handle)
    #expect(
      lines == [
        "Work: run started", "Work: entered", "Work: dispatch started",
        "Work: branch 2 failed (thrown error), tolerated", "Work: branch 3 skipped",
        "Work: dispatch joined", "Work: finished", "Work: run finished",
      ])
    #expect(try await handle.result.context == [1])
    let log = handle.log.lines.map {
      $0.drop { $0 == " " || $0.isNumber || $0 == "." || $0 == "s" }
    }
    #expect(
      log.contains { $0.hasPrefix("branch 'B' of 'Work' failed (thrown error), tolerated: ") })
    #expect(log.contains("branch 'C' of 'Work' skipped: a prerequisite did not succeed"))
  }

  @Test func reportsTheBranchesCancelledOnceTheQuorumIsMet() async throws {
    // swift-format-ignore
    let chart = try Flowchart<[Int]> {
      Dispatch("Mirrors", isFinal: true, maxConcurrency: 1, join: .firstSuccess) {
        all, branch in all += branch
      } branches: {
        Branch("First") { Action("Fetch 1", isFinal: true) { $0.append(1) } }
        Branch("Second") { Action("Fetch 2", isFinal: true) { $0.append(2) } }
        Branch("Third") { Action("Fetch 3", isFinal: true) { $0.append(3) } }
      }
    }
    let handle = chart.start(with: [], isPaused: true, isLogged: true)
    let lines = await Self.topLevelLines(of: handle)
    #expect(
      lines == [
        "Mirrors: run started", "Mirrors: entered", "Mirrors: dispatch started",
        "Mirrors: branch 2 cancelled", "Mirrors: branch 3 cancelled",
        "Mirrors: dispatch joined", "Mirrors: finished", "Mirrors: run finished",
      ])
    #expect(try await handle.result.context == [1])
    #expect(
      handle.log.lines.contains {
        $0.hasSuffix("branch 'Third' of 'Mirrors' cancelled: the quorum was met")
      })
  }

  @Test func aDispatchWhoseBranchesAllSucceededReportsNoOutcome() async throws {
    // swift-format-ignore
    let chart = try Flowchart<[Int]> {
      Dispatch("All", isFinal: true, join: .toleratingFailures(1)) { all, branch in all += branch } branches: {
        Branch { Action("One", isFinal: true) { $0.append(1) } }
        Branch { Action("Two", isFinal: true) { $0.append(2) } }
      }
    }
    let handle = chart.start(with: [], isPaused: true)
    let lines = await Self.topLevelLines(of: handle)
    #expect(
      lines == [
        "All: run started", "All: entered", "All: dispatch started", "All: dispatch joined",
        "All: finished", "All: run finished",
      ])
  }
}
