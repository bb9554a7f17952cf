import Flowchart
import Testing

@Suite(.timeLimit(.minutes(5)))
struct RunHandleIdentityTests {
  struct Broken: Error {}

  @Test func copiesOfAHandleAreEqualAndHashAlike() async throws {
    let chart = try Flowchart<Int> { Action("Add", isFinal: true) { $0 += 1 } }
    let handle = chart.start(with: 0, isPaused: true)
    let copy = handle
    #expect(copy == handle)
    #expect(Set([handle, copy]).count == 1)
    handle.resume()
    #expect(try await copy.result.context == 1)
    #expect(copy == handle)
  }

  @Test func twoStartsOfOneChartAreTwoRuns() async throws {
    let chart = try Flowchart<Int> { Action("Add", isFinal: true) { $0 += 1 } }
    let first = chart.start(with: 0)
    let second = chart.start(with: 0)
    #expect(first != second)
    #expect(Set([first, second, first]).count == 2)
    _ = try await (first.result, second.result)
  }

  @Test func aRetryAndARestartAreNewRuns() async throws {
    let chart = try Flowchart<Int> {
      Action("Maybe", isFinal: true) { value in
        if value == 0 { throw Broken() }
      }
    }
    let failed = chart.start(with: 0)
    await #expect(throws: RunError.self) { try await failed.result }
    let retried = try failed.retry { $0 = 1 }
    let restarted = try failed.restart(with: 2)
    #expect(retried != failed)
    #expect(restarted != failed)
    #expect(retried != restarted)
    #expect(try await retried.result.context == 1)
    #expect(try await restarted.result.context == 2)
  }
}
