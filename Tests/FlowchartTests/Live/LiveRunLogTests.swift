import Flowchart
import Testing

/// What the failing workout throws.
struct Cramp: Error {}

private struct Workout: Sendable {
  var isWillingToExercise = true
  var log: [String] = []
  var sets = 0
}

@Suite(.timeLimit(.minutes(5)))
struct LiveRunLogTests {
  // swift-format-ignore
  private func workout(_ clock: ManualClock, failing: Bool = false) throws -> Flowchart<Workout> {
    return try Flowchart<Workout> {
      Condition("Willing to exercise?") { $0.isWillingToExercise } yes: {
        Action("Lift weights") { workout in
          clock.advance(by: .milliseconds(300))
          workout.log.append("lifted weights")
          workout.sets += 3
        }
        Dispatch("Stretch") { workout, branch in workout.log.append(branch.log.last ?? "") } branches: {
          Branch {
            Action("Stretch arms", isFinal: true) { workout in
              clock.advance(by: .milliseconds(50))
              workout.log.append("arms")
            }
          }
        }
        Action("Do sit-ups", isFinal: true) { workout in
          clock.advance(by: .milliseconds(1_250))
          if failing { throw Cramp() }
          workout.sets += 1
        }
      } no: {
        Action("Rest", isFinal: true)
      }
    }
  }

  @Test func logsEveryEventWithTimesDurationsDecisionsAndChanges() async throws {
    let clock = ManualClock()
    let chart = try workout(clock)
    let handle = chart.start(with: Workout(), clock: clock, isLogged: true)
    _ = try await handle.result
    #expect(
      handle.log.lines == [
        "  0.000s  run started at 'Willing to exercise?'",
        "  0.000s  entered 'Willing to exercise?'",
        "  0.000s  'Willing to exercise?' decided yes in 0.000s",
        "  0.000s  entered 'Lift weights'",
        "  0.300s  'Lift weights' finished in 0.300s",
        #"            log: [] → ["lifted weights"]"#,
        "            sets: 0 → 3",
        "  0.300s  entered 'Stretch'",
        "  0.300s  'Stretch' started its branches",
        "  0.300s  [1] branch 1 of 'Stretch' started",
        "  0.300s  [1] entered 'Stretch arms'",
        "  0.350s  [1] 'Stretch arms' finished in 0.050s",
        #"            log: ["lifted weights"] → ["lifted weights", "arms"]"#,
        "  0.350s  [1] branch 1 of 'Stretch' ended",
        "  0.350s  'Stretch' joined its branches",
        "  0.350s  'Stretch' finished in 0.050s",
        #"            log: ["lifted weights"] → ["lifted weights", "arms"]"#,
        "  0.350s  entered 'Do sit-ups'",
        "  1.600s  'Do sit-ups' finished in 1.250s",
        "            sets: 3 → 4",
        "  1.600s  run finished at 'Do sit-ups', after 5 states",
      ])
  }

  @Test func logsWhereARunFailedAndWhy() async throws {
    let clock = ManualClock()
    let chart = try workout(clock, failing: true)
    let handle = chart.start(with: Workout(), clock: clock, isLogged: true)
    _ = await #expect(throws: RunError.self) { try await handle.result }
    let tail = handle.log.lines.suffix(3)
    #expect(
      Array(tail) == [
        "  0.350s  entered 'Do sit-ups'",
        "  1.600s  'Do sit-ups' failed in 1.250s (thrown error): The run stopped at action 'Do sit-ups' (FlowchartTests/LiveRunLogTests.swift:32): it threw FlowchartTests.Cramp().",
        "  1.600s  run failed at 'Do sit-ups' (thrown error)",
      ])
  }

  @Test func aRunNotLoggedKeepsNoLog() async throws {
    let chart = try workout(ManualClock())
    let handle = chart.start(with: Workout())
    _ = try await handle.result
    #expect(handle.log.lines.isEmpty)
  }

  @Test func eventsCarryTheTimesOfTheRunsClock() async throws {
    let clock = ManualClock()
    let chart = try workout(clock)
    let handle = chart.start(with: Workout(), clock: clock, isPaused: true)
    let events = handle.events()
    handle.resume()
    var times: [Duration] = []
    for await event in events where event.stateName == "Do sit-ups" { times.append(event.time) }
    #expect(times == [.milliseconds(350), .milliseconds(1_600), .milliseconds(1_600)])
  }
}
