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

enum LivePauseBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let chart = try AsyncCycleCode.nonCapturing().makeChart()
    let rounds = configuration.isQuick ? 20 : 500
    let samples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        { try await pauseResumeRounds(chart, rounds: rounds) },
        { await continuationRounds(rounds) },
      ])
    report.rows.append(
      ReportRow(
        group: "live",
        workload:
          "pause → resume latency: resume() to the next state entered vs a resumed continuation, \(rounds) rounds",
        unit: "ns/round", flowchart: samples[0], baseline: samples[1], targetRatio: 1.5))
    report.notes.append(
      "live, pause → resume: each round pauses the endless async cycle (started with an "
        + "observer) and waits until it reports `paused`, then times from `resume()` to the "
        + "observer's `stateEntered` callback. Baseline: a task parked on a "
        + "`CheckedContinuation`, timed from `resume()` to the task running again.")
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
