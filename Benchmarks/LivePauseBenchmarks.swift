import Flowchart

// Pause → resume latency: how long a paused live run takes, from `resume()`, to enter its
// next state, against a task parked on a `CheckedContinuation` that another task resumes.
//
// - Flowchart: the asynchronous cycle of TransitionBenchmarks.swift, endless, started with an
//   observer. Each round pauses the run and waits until the observer reports `paused` (the
//   flow waits at its boundary), then reads the clock, calls `resume()`, and waits until the
//   observer reports the next `stateEntered`, whose callback reads the clock again.
// - Baseline: a task that parks on a continuation and reports it; the driver reads the
//   clock, resumes the continuation, and waits until the task, running again, reads the clock.
//
// Both sides hand the time back to the driver through the same latch, and a round's time
// does not include the pause itself: only the wake-up and what the run does until it enters
// its next state (reporting `resumed`, the boundary, reporting `stateEntered`).
//
// A second baseline does what the run does after its wake-up: a task that runs the
// hand-written asynchronous cycle of TransitionBenchmarks.swift, endless, looks at a pause
// flag at each state (as the run's flow does at its boundaries), parks on a continuation
// when it finds it raised, and, resumed, reports and runs on. With the first baseline the
// task parks again at once, so the driver's own wake-up finds a thread free: the one the
// task leaves. A run (and this baseline) keeps its thread busy with its next states, so the
// driver's wake-up needs the other thread, asleep when the host is idle: a thread wake-up
// the first baseline does not pay. Both rows are kept: the second is the one with a target.

enum LivePauseBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let chart = try AsyncCycleCode.nonCapturing().makeChart()
    let rounds = configuration.isQuick ? 20 : 500
    let code = AsyncCycleCode.nonCapturing()
    let samples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        { try await pauseResumeRounds(chart, rounds: rounds) },
        { await continuationRounds(rounds) },
        { try await runningTaskRounds(code, rounds: rounds) },
      ])
    report.rows.append(
      ReportRow(
        group: "live",
        workload:
          "pause → resume latency: resume() to the next state entered vs a resumed continuation whose task runs on, \(rounds) rounds",
        unit: "ns/round", flowchart: samples[0], baseline: samples[2], targetRatio: 1.5))
    report.rows.append(
      ReportRow(
        group: "live",
        workload:
          "pause → resume latency: resume() to the next state entered vs a resumed continuation whose task parks again at once, \(rounds) rounds",
        unit: "ns/round", flowchart: samples[0], baseline: samples[1], targetRatio: nil))
    report.notes.append(
      "live, pause → resume: each round pauses the endless async cycle (started with an "
        + "observer) and waits until it reports `paused`, then times from `resume()` to the "
        + "observer's `stateEntered` callback. Baselines: a task parked on a "
        + "`CheckedContinuation`, timed from `resume()` to the task running again; the task "
        + "either runs the hand-written async cycle on until it finds a pause flag raised (as "
        + "the run does), or parks again at once (and leaves its thread to the driver).")
  }

  /// Mean nanoseconds from `resume()` to the next state entered, over `rounds` rounds.
  private static func pauseResumeRounds(
    _ chart: Flowchart<CycleContext>, rounds: Int
  ) async throws -> Double {
    let paused = Latch()
    let entered = Latch()
    // Set just before `resume()`: the first state entered after it ends the round.
    let isArmed = Lock(false)
    let observer = RunObserver(didReport: { event in
      switch event.kind {
      case .paused:
        paused.open()
      case .stateEntered:
        if isArmed.withLock({ armed in
          defer { armed = false }
          return armed
        }) {
          entered.open()
        }
      default:
        break
      }
    })
    let handle = chart.start(with: CycleContext(limit: .max), observer: observer)
    var total: Duration = .zero
    for _ in 0..<rounds {
      handle.pause()
      _ = await paused.wait()
      isArmed.withLock { $0 = true }
      let start = ContinuousClock.now
      handle.resume()
      total += await entered.wait() - start
    }
    try await cancelChecked(handle, "pause rounds, the endless cycle")
    return nanoseconds(total) / Double(rounds)
  }

  /// Mean nanoseconds from resuming a parked task's continuation to the task running again.
  private static func continuationRounds(_ rounds: Int) async -> Double {
    let parked = Latch()
    let woke = Latch()
    let continuation = Lock<CheckedContinuation<Void, Never>?>(nil)
    let worker = Task {
      for _ in 0..<rounds {
        await withCheckedContinuation { (parking: CheckedContinuation<Void, Never>) in
          continuation.withLock { $0 = parking }
          parked.open()
        }
        woke.open()
      }
    }
    var total: Duration = .zero
    for _ in 0..<rounds {
      _ = await parked.wait()
      let waiting = continuation.withLock { parked in
        defer { parked = nil }
        return parked
      }
      let start = ContinuousClock.now
      waiting?.resume()
      total += await woke.wait() - start
    }
    await worker.value
    return nanoseconds(total) / Double(rounds)
  }

  /// Mean nanoseconds from resuming a parked task's continuation to the task running again,
  /// when the task runs the hand-written asynchronous cycle between its pauses, looking at a
  /// pause flag at each state as a run's flow does at its boundaries.
  private static func runningTaskRounds(
    _ code: AsyncCycleCode, rounds: Int
  ) async throws -> Double {
    let parked = Latch()
    let woke = Latch()
    let gate = PauseGate()
    let worker = Task {
      var context = CycleContext(limit: .max)
      var state = CycleState.work1
      var wakes = 0
      while true {
        if gate.isPauseRequested {
          await withCheckedContinuation { (parking: CheckedContinuation<Void, Never>) in
            gate.park(parking)
            parked.open()
          }
          woke.open()
          wakes += 1
          if gate.isStopped {
            blackHole(context.counter)
            return wakes
          }
        }
        switch state {
        case .work1:
          try await code.work1(&context)
          state = .check1
        case .check1:
          _ = try await code.check1(&context)
          state = .work2
        case .work2:
          try await code.work2(&context)
          state = .check2
        case .check2:
          _ = try await code.check2(&context)
          state = .work1
        }
      }
    }
    var total: Duration = .zero
    for round in 0...rounds {
      gate.requestPause()
      _ = await parked.wait()
      let waiting = gate.unpark(stopping: round == rounds)
      let start = ContinuousClock.now
      waiting?.resume()
      let end = await woke.wait()
      if round < rounds { total += end - start }
    }
    try expect(try await worker.value, equals: rounds + 1, "the running task's wake-ups")
    return nanoseconds(total) / Double(rounds)
  }

  private static func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}

/// A one-place mailbox of times: `open()` leaves the time it was called, `wait()` takes it,
/// waiting for it if it is not there yet.
private final class Latch: Sendable {
  private let state = Lock<
    (time: ContinuousClock.Instant?, waiter: CheckedContinuation<ContinuousClock.Instant, Never>?)
  >((nil, nil))

  func open() {
    let now = ContinuousClock.now
    let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant, Never>? in
      guard let waiter = state.waiter else {
        state.time = now
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume(returning: now)
  }

  func wait() async -> ContinuousClock.Instant {
    await withCheckedContinuation { continuation in
      let time = state.withLock { state -> ContinuousClock.Instant? in
        guard let time = state.time else {
          state.waiter = continuation
          return nil
        }
        state.time = nil
        return time
      }
      if let time { continuation.resume(returning: time) }
    }
  }
}

/// The running baseline's pause flag and parked continuation.
private final class PauseGate: Sendable {
  private let state = Lock<
    (isPauseRequested: Bool, isStopped: Bool, parked: CheckedContinuation<Void, Never>?)
  >((false, false, nil))

  /// Whether the driver asked the task to park at its next state.
  var isPauseRequested: Bool { state.withLock { $0.isPauseRequested } }
  /// Whether the task ends once it is woken.
  var isStopped: Bool { state.withLock { $0.isStopped } }

  func requestPause() { state.withLock { $0.isPauseRequested = true } }

  func park(_ continuation: CheckedContinuation<Void, Never>) {
    state.withLock { $0.parked = continuation }
  }

  /// Lowers the flag and takes the parked continuation, for the driver to resume.
  func unpark(stopping: Bool) -> CheckedContinuation<Void, Never>? {
    state.withLock { state in
      state.isPauseRequested = false
      state.isStopped = stopping
      defer { state.parked = nil }
      return state.parked
    }
  }
}
