import Dispatch
import Flowchart

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Memory of many live runs suspended at once on a waiting state, against as many plain
/// tasks suspended on the same await (issue 26's row: ≤ 1.1×, as bytes held and as resident
/// memory).
///
/// As the `memory` group's other rows, each figure comes from a fresh child process: this
/// executable started again with the hidden `--suspension-probe <count>` option, which reads
/// the bytes `malloc` holds and its resident memory, makes `count` suspended runs (or tasks,
/// with `--suspension-probe-baseline`), waits until every one of them is suspended, reads
/// both again, and prints the differences per run.
///
/// - Flowchart: `chart.start(with:)` of a one-state chart, a final `Wait` for an `Int`; each
///   run is suspended once it reports `waitingForInput` (counted by an observer every run
///   shares). The handles are kept.
/// - Baseline: `Task { await withCheckedContinuation { … } }`, the await a `Wait` suspends
///   on, each continuation kept where the task can be resumed from. The tasks are kept.
enum SuspensionBenchmarks {
  /// The two sides a probe can run.
  enum Side: String, Sendable {
    case flowchart
    case baseline
  }

  /// Adds the rows: bytes held (`malloc`'s bytes in use) per suspended run against per
  /// suspended task, the target's row; and the resident memory of the same probes.
  static func measure(_ configuration: Configuration, into report: inout Report) throws {
    let count = configuration.isQuick ? 10_000 : 100_000
    // Each probe reads both figures; the resident ones are kept aside, in probe order.
    let resident = Lock<[Side: [Double]]>([:])
    let samples = try Interleaver.run(
      repetitions: configuration.memoryRepetitions,
      [Side.flowchart, .baseline].map { side in
        {
          let figures = try probe(side, count: count)
          resident.withLock { $0[side, default: []].append(figures.resident) }
          return figures.held
        }
      })
    // The interleaver's first call of each side is its warm-up, which it drops.
    let residentSamples = resident.withLock { $0 }.mapValues { values in
      values.dropFirst().reduce(into: Samples()) { $0.append($1) }
    }
    report.rows.append(
      ReportRow(
        group: "memory",
        workload:
          "memory held by \(compactCount(count)) live runs suspended on a Wait vs as many tasks suspended on a continuation",
        unit: "bytes/run", flowchart: samples[0], baseline: samples[1], targetRatio: 1.1))
    report.rows.append(
      ReportRow(
        group: "memory",
        workload: "the same, as resident memory (with what the runs' first tasks left free)",
        unit: "bytes/run", flowchart: residentSamples[.flowchart] ?? Samples(),
        baseline: residentSamples[.baseline] ?? Samples(), targetRatio: 1.1))
    report.notes.append(
      "memory, suspended runs: a fresh child process (this executable with "
        + "`--suspension-probe <count>`) starts that many runs of a one-state chart (a final "
        + "`Wait`) and waits until every one reported `waitingForInput`; baseline: as many "
        + "tasks each suspended in `withCheckedContinuation`, the await a `Wait` suspended on "
        + "before runs parked. The target's row is the bytes `malloc` holds (glibc's "
        + "`mallinfo2`, Darwin's zone statistics) after minus before, per run: what the "
        + "suspended runs keep. A parked run holds no task, but each run's first task ran "
        + "until it parked and then ended; started in one burst, those tasks all existed at "
        + "once, and the heap keeps the room they freed, which the resident-memory row "
        + "(VmRSS after minus before) counts and a process reuses for what it allocates next.")
  }

  /// Runs a probe; returns the bytes held and the resident bytes per run.
  private static func probe(_ side: Side, count: Int) throws -> (held: Double, resident: Double) {
    var arguments = ["--suspension-probe", String(count)]
    if side == .baseline { arguments.append("--suspension-probe-baseline") }
    let output = try SelfProcess.run(arguments)
    func figure(_ name: String) throws -> Double {
      let prefix = name + " "
      guard
        let line = output.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
        let bytes = Double(line.dropFirst(prefix.count))
      else {
        throw BenchmarkError.childProcessFailed("suspension probe printed no \(name): \(output)")
      }
      return bytes
    }
    return (try figure("held-per-run"), try figure("bytes-per-run"))
  }

  /// The child side: suspends `count` runs or tasks, prints `held-per-run <n>` (bytes held
  /// by `malloc`) and `bytes-per-run <n>` (resident bytes).
  static func runProbe(count: Int, side: Side) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = Lock<Result<(held: Double, resident: Double), any Error>?>(nil)
    Task.detached {
      let result: Result<(held: Double, resident: Double), any Error>
      do {
        result = .success(try await suspend(count, side: side))
      } catch {
        result = .failure(error)
      }
      outcome.withLock { $0 = result }
      done.signal()
    }
    done.wait()
    let figures = try outcome.withLock { $0 }?.get() ?? (held: 0, resident: 0)
    print("held-per-run \(figures.held)")
    print("bytes-per-run \(figures.resident)")
  }

  private static func suspend(_ count: Int, side: Side) async throws -> (
    held: Double, resident: Double
  ) {
    let chart = try Flowchart<Int> { Wait("Input", for: Int.self, isFinal: true) { $0 += $1 } }
    let allSuspended = Countdown(count)
    // Warm up what every run or task shares (metadata, the executor's threads), so that the
    // figure is what each one adds.
    try await warmUp(chart, side: side)
    guard let before = residentBytes(), let heldBefore = MemoryStatistics.allocatedBytes() else {
      throw BenchmarkError.childProcessFailed("memory figures are unreadable here")
    }
    var kept: [Any] = []
    kept.reserveCapacity(count)
    switch side {
    case .flowchart:
      let observer = RunObserver(didReport: { event in
        if case .waitingForInput = event.kind { allSuspended.countDown() }
      })
      for _ in 0..<count { kept.append(chart.start(with: 0, observer: observer)) }
    case .baseline:
      let parked = Parked(capacity: count)
      for _ in 0..<count {
        kept.append(
          Task {
            await withCheckedContinuation { continuation in
              parked.keep(continuation)
              allSuspended.countDown()
            }
          })
      }
      kept.append(parked)
    }
    await allSuspended.wait()
    guard let after = residentBytes(), let heldAfter = MemoryStatistics.allocatedBytes() else {
      throw BenchmarkError.childProcessFailed("memory figures are unreadable here")
    }
    blackHole(kept)
    return (
      Double(heldAfter - heldBefore) / Double(count), Double(after - before) / Double(count)
    )
  }

  /// Runs and ends a few runs or tasks of the probe's kind.
  private static func warmUp(_ chart: Flowchart<Int>, side: Side) async throws {
    for value in 0..<100 {
      switch side {
      case .flowchart:
        let handle = chart.start(with: 0)
        while (try? handle.send(value, to: "Input")) != true { await Task.yield() }
        _ = try await handle.result
      case .baseline:
        let continuation = Lock<CheckedContinuation<Int, Never>?>(nil)
        let task = Task { await withCheckedContinuation { c in continuation.withLock { $0 = c } } }
        while true {
          if let parked = continuation.withLock({ $0 }) {
            parked.resume(returning: value)
            break
          }
          await Task.yield()
        }
        _ = await task.value
      }
    }
  }

  /// The process's resident memory now (VmRSS), in bytes.
  private static func residentBytes() -> Int? {
    #if os(Linux)
      guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      else { return nil }
      for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 2, let kibibytes = Int(fields[1]) else { return nil }
        return kibibytes * 1024
      }
      return nil
    #else
      return MemoryStatistics.allocatedBytes()
    #endif
  }
}

/// The continuations of the baseline's suspended tasks.
private final class Parked: Sendable {
  private let continuations = Lock<[CheckedContinuation<Int, Never>]>([])

  init(capacity: Int) {
    continuations.withLock { $0.reserveCapacity(capacity) }
  }

  func keep(_ continuation: CheckedContinuation<Int, Never>) {
    continuations.withLock { $0.append(continuation) }
  }
}

/// Counts down from a number; `wait()` returns once it reaches zero.
private final class Countdown: Sendable {
  private let state: Lock<(remaining: Int, waiter: CheckedContinuation<Void, Never>?)>

  init(_ count: Int) {
    state = Lock((count, nil))
  }

  func countDown() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.remaining -= 1
      guard state.remaining == 0 else { return nil }
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume()
  }

  func wait() async {
    await withCheckedContinuation { continuation in
      let isDone = state.withLock { state -> Bool in
        if state.remaining <= 0 { return true }
        state.waiter = continuation
        return false
      }
      if isDone { continuation.resume() }
    }
  }
}
