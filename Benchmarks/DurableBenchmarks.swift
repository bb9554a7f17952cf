import Flowchart
import Foundation

// Durable runs (issue 22): snapshots and restores against the bare context, and a live run
// that saves at every wait against one that does not (`durable` group).
//
// - snapshot: `handle.snapshot()` of a run parked at a waiting state, encoded with a
//   `JSONEncoder`, against encoding the bare context with the same encoder. The context is
//   Codable, of about 1 KiB and about 100 KiB of JSON (records of an id, a name and an
//   amount). Each sample decodes its last output and checks the context came back equal;
//   the snapshot also names where the run waits.
// - restore, held: decoding the snapshot and `chart.start(resuming:isPaused: true)`, which
//   resolves it on the chart (every key checked, the path restored) and makes the handle,
//   against decoding the bare context. `resolve` itself is not public: this is the nearest
//   public equivalent of "decode + resolve". Cancelling the held run is outside the timing.
// - restore, standing: decoding and `chart.start(resuming:)` until the run waits for input
//   again (an observer reports it), against decoding the bare context: what a server pays
//   to bring a stored run back to where it stood, including the run's first task. Each
//   sample snapshots its last resumed run (outside the timing) and checks its context and
//   where it waits.
// - save at every wait: a chart that waits every 10 states (a wait, eight actions and a
//   condition, in a loop) driven through its handle: at each wait the driver sends the
//   next value. The saving side first takes `snapshot()`, encodes it and saves it in an
//   `InMemoryRunStore` (the core has no store option on a run yet: the driver saves, as an
//   app would). Both sides check the runs ended with the same context and step count; the
//   saving side checks it saved at every wait and that the last save decodes to the run's
//   context before its last value.

/// One record of the durable benchmarks' context.
struct DurableItem: Codable, Sendable, Equatable {
  var id: Int
  var name: String
  var amount: Double
}

/// The Codable context of the durable benchmarks.
struct DurableContext: Codable, Sendable, Equatable {
  /// The values the waiting state took.
  var laps = 0
  /// Advanced by every action.
  var counter = 0
  /// The payload that sets the context's size.
  var items: [DurableItem] = []

  /// A context whose bare JSON (with `encoder`) is at least `bytes` long, and how long.
  static func sized(_ bytes: Int, encoder: JSONEncoder) throws -> (DurableContext, Int) {
    var context = DurableContext(items: [item(0)])
    var size = try encoder.encode(context).count
    // Scale the count of records to the size a few times, then step to the first count that
    // reaches it.
    for _ in 0..<4 {
      let count = max(context.items.count * bytes / size, 1)
      context.items = (0..<count).map(item)
      size = try encoder.encode(context).count
    }
    while size < bytes {
      context.items.append(item(context.items.count))
      size = try encoder.encode(context).count
    }
    while context.items.count > 1 {
      let last = context.items.removeLast()
      let smaller = try encoder.encode(context).count
      guard smaller >= bytes else {
        context.items.append(last)
        break
      }
      size = smaller
    }
    return (context, size)
  }

  private static func item(_ index: Int) -> DurableItem {
    DurableItem(id: index, name: "item-\(index)-abcdefgh", amount: Double(index) * 0.25)
  }
}

enum DurableBenchmarks {
  static func measure(_ configuration: Configuration, into report: inout Report) async throws {
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    let quick = configuration.isQuick
    var labels: [String] = []
    for (target, operations, restores) in [
      (1024, quick ? 50 : 2_000, quick ? 20 : 500), (100 * 1024, quick ? 3 : 50, quick ? 3 : 50),
    ] {
      let (context, size) = try DurableContext.sized(target, encoder: encoder)
      let label = target >= 1024 * 100 ? "100 KiB" : "1 KiB"
      let snapshotSize = try await measureSnapshot(
        context, label: label, operations: operations, configuration, encoder: encoder,
        decoder: decoder, into: &report)
      labels.append("\(label): \(size) bytes, its snapshot \(snapshotSize) bytes")
      try await measureRestore(
        context, label: label, heldOperations: operations, standingOperations: restores,
        configuration, encoder: encoder, decoder: decoder, into: &report)
    }
    let saved = try await measureSaving(configuration, encoder: encoder, into: &report)
    report.notes.append(
      "durable: a Codable context of records (bare JSON \(labels.joined(separator: "; "))), "
        + "JSONEncoder and JSONDecoder on both sides. Snapshot: `handle.snapshot()` of a run "
        + "parked at a waiting state + encode, vs encoding the bare context. Restore, held: "
        + "decode + `chart.start(resuming:isPaused: true)` (resolves the snapshot on the "
        + "chart and makes the handle; `resolve` is not public), vs decoding the bare context. "
        + "Restore, standing: decode + `chart.start(resuming:)` until the run waits for input "
        + "again (its first task included), vs the same decode. Save at every wait: a chart "
        + "waiting every 10 states, driven through its handle; at each wait the saving side "
        + "takes `snapshot()`, encodes it and saves it in an InMemoryRunStore before sending "
        + "the value (the driver saves: the core has no store option on a run). Its "
        + "snapshot keeps the path, the last \(RunResult<DurableContext>.pathCapacity) states "
        + "entered: the last save is \(saved.snapshot) bytes, for a context of \(saved.context) bytes. Each row "
        + "checks its sides did the same work (decoded contexts equal, same results).")
  }

  /// A chart that waits for an `Int` at once, then ends: a run of it parks at "Answer".
  private static func parkingChart() throws -> Flowchart<DurableContext> {
    try Flowchart<DurableContext> {
      Wait("Answer", for: Int.self) { $0.laps += $1 }
      Action("Done", isFinal: true) { $0.counter += 1 }
    }
  }

  /// Starts a run of `chart` with `context` and returns its handle once it waits for input.
  private static func parkedRun(
    _ chart: Flowchart<DurableContext>, with context: DurableContext
  ) async throws -> RunHandle<DurableContext> {
    let parked = Signal()
    let handle = chart.start(
      with: context,
      observer: RunObserver(didReport: { event in
        if case .waitingForInput = event.kind { parked.open() }
      }))
    await parked.wait()
    return handle
  }

  /// Adds the snapshot row of `context`; returns the size of its encoded snapshot.
  private static func measureSnapshot(
    _ context: DurableContext, label: String, operations: Int, _ configuration: Configuration,
    encoder: JSONEncoder, decoder: JSONDecoder, into report: inout Report
  ) async throws -> Int {
    let chart = try parkingChart()
    let handle = try await parkedRun(chart, with: context)
    let size = try encoder.encode(try await handle.snapshot()).count
    let samples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var data = Data()
          let elapsed = try await Stopwatch.nanoseconds {
            for _ in 0..<operations {
              data = try encoder.encode(try await handle.snapshot())
            }
          }
          let decoded = try decoder.decode(RunSnapshot<DurableContext>.self, from: data)
          guard decoded.context == context, decoded.status == .waitingForInput(state: "Answer")
          else {
            throw BenchmarkError.mismatch(
              "snapshot, \(label): the snapshot decoded to another context or position")
          }
          return elapsed / Double(operations) / 1_000
        },
        {
          var data = Data()
          let elapsed = try Stopwatch.nanoseconds {
            for _ in 0..<operations {
              data = try encoder.encode(context)
            }
          }
          guard try decoder.decode(DurableContext.self, from: data) == context else {
            throw BenchmarkError.mismatch(
              "snapshot, \(label): the bare context decoded to another context")
          }
          return elapsed / Double(operations) / 1_000
        },
      ])
    try await cancelChecked(handle, "snapshot, \(label)")
    report.rows.append(
      ReportRow(
        group: "durable",
        workload:
          "snapshot of a parked run + JSON encode vs encoding the bare context, \(label) context",
        unit: "µs/snapshot", flowchart: samples[0], baseline: samples[1], targetRatio: 1.5))
    return size
  }

  private static func measureRestore(
    _ context: DurableContext, label: String, heldOperations: Int, standingOperations: Int,
    _ configuration: Configuration, encoder: JSONEncoder, decoder: JSONDecoder,
    into report: inout Report
  ) async throws {
    let chart = try parkingChart()
    let original = try await parkedRun(chart, with: context)
    let stored = try encoder.encode(try await original.snapshot())
    try await cancelChecked(original, "restore, \(label)")
    let bare = try encoder.encode(context)
    let decodeBare: () throws -> Double = {
      var decoded: DurableContext?
      let elapsed = try Stopwatch.nanoseconds {
        for _ in 0..<heldOperations {
          decoded = try decoder.decode(DurableContext.self, from: bare)
        }
      }
      guard decoded == context else {
        throw BenchmarkError.mismatch("restore, \(label): the bare context decoded to another")
      }
      return elapsed / Double(heldOperations) / 1_000
    }
    // Decode + start(resuming:) held at its start: the snapshot resolved, the handle made.
    let held = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var handles: [RunHandle<DurableContext>] = []
          handles.reserveCapacity(heldOperations)
          let elapsed = try Stopwatch.nanoseconds {
            for _ in 0..<heldOperations {
              let snapshot = try decoder.decode(RunSnapshot<DurableContext>.self, from: stored)
              handles.append(try chart.start(resuming: snapshot, isPaused: true))
            }
          }
          let last = try await handles[handles.count - 1].snapshot()
          guard last.context == context, last.position == "Answer" else {
            throw BenchmarkError.mismatch(
              "restore, \(label): the resumed run holds another context or position")
          }
          for handle in handles { try await cancelChecked(handle, "restore, \(label)") }
          return elapsed / Double(heldOperations) / 1_000
        },
        { try decodeBare() },
      ])
    report.rows.append(
      ReportRow(
        group: "durable",
        workload:
          "restore: decode + start(resuming:) held (resolved, handle made) vs decoding the bare context, \(label) context",
        unit: "µs/restore", flowchart: held[0], baseline: held[1], targetRatio: 1.5))
    // Decode + start(resuming:) until the run waits for input again.
    let standing = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var total = 0.0
          var last: RunHandle<DurableContext>?
          for index in 0..<standingOperations {
            let parked = Signal()
            let observer = RunObserver(didReport: { event in
              if case .waitingForInput = event.kind { parked.open() }
            })
            var handle: RunHandle<DurableContext>?
            total += try await Stopwatch.nanoseconds {
              let snapshot = try decoder.decode(RunSnapshot<DurableContext>.self, from: stored)
              handle = try chart.start(resuming: snapshot, observer: observer)
              await parked.wait()
            }
            guard let handle else { continue }
            if index == standingOperations - 1 {
              last = handle
            } else {
              try await cancelChecked(handle, "restore, \(label)")
            }
          }
          guard let last else { return total }
          let snapshot = try await last.snapshot()
          guard snapshot.context == context,
            snapshot.status == .waitingForInput(state: "Answer")
          else {
            throw BenchmarkError.mismatch(
              "restore, \(label): the resumed run stands elsewhere or holds another context")
          }
          try await cancelChecked(last, "restore, \(label)")
          return total / Double(standingOperations) / 1_000
        },
        {
          var decoded: DurableContext?
          let elapsed = try Stopwatch.nanoseconds {
            for _ in 0..<standingOperations {
              decoded = try decoder.decode(DurableContext.self, from: bare)
            }
          }
          guard decoded == context else {
            throw BenchmarkError.mismatch("restore, \(label): the bare context decoded to another")
          }
          return elapsed / Double(standingOperations) / 1_000
        },
      ])
    report.rows.append(
      ReportRow(
        group: "durable",
        workload:
          "restore: decode + start(resuming:) until it waits for input again vs decoding the bare context, \(label) context",
        unit: "µs/restore", flowchart: standing[0], baseline: standing[1]))
  }

  /// A chart that waits every 10 states: "Input", eight actions and "More?", in a loop of
  /// `waits` laps.
  private static func loopChart(waits: Int) throws -> Flowchart<DurableContext> {
    try Flowchart<DurableContext> {
      Wait("Input", for: Int.self) { $0.laps += $1 }
      Action("Step 1") { $0.counter += 1 }
      Action("Step 2") { $0.counter += 1 }
      Action("Step 3") { $0.counter += 1 }
      Action("Step 4") { $0.counter += 1 }
      Action("Step 5") { $0.counter += 1 }
      Action("Step 6") { $0.counter += 1 }
      Action("Step 7") { $0.counter += 1 }
      Action("Step 8") { $0.counter += 1 }
      Condition("More?") {
        $0.laps < waits
      } yes: {
        GoTo("Input")
      } no: {
        Action("Done", isFinal: true) { $0.counter += 1 }
      }
    }
  }

  /// Runs `chart` on `context` to its end, sending 1 at each of its `waits` waits; when
  /// `store` is given, saves a snapshot there first. Returns µs per wait and the result.
  private static func drive(
    _ chart: Flowchart<DurableContext>, context: DurableContext, waits: Int,
    store: InMemoryRunStore?, encoder: JSONEncoder
  ) async throws -> (Double, RunResult<DurableContext>) {
    let parked = Signal()
    let observer = RunObserver(didReport: { event in
      if case .waitingForInput = event.kind { parked.open() }
    })
    var result: RunResult<DurableContext>?
    let elapsed = try await Stopwatch.nanoseconds {
      let handle = chart.start(with: context, observer: observer)
      for _ in 0..<waits {
        await parked.wait()
        if let store {
          let snapshot = try await handle.snapshot()
          try await store.save(snapshot.storedRun { Array(try encoder.encode($0)) })
        }
        _ = try handle.send(1, to: "Input")
      }
      result = try await handle.result
    }
    guard let result else { throw BenchmarkError.mismatch("save at every wait: no result") }
    return (elapsed / Double(waits) / 1_000, result)
  }

  /// Adds the row of a run saving at every wait; returns the size of its last save.
  private static func measureSaving(
    _ configuration: Configuration, encoder: JSONEncoder, into report: inout Report
  ) async throws -> (snapshot: Int, context: Int) {
    let waits = configuration.isQuick ? 20 : 1_000
    let (context, _) = try DurableContext.sized(1024, encoder: encoder)
    let chart = try loopChart(waits: waits)
    let decoder = JSONDecoder()
    let results = Lock<[RunResult<DurableContext>]>([])
    let lastSave = Lock(0)
    let samples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          let store = InMemoryRunStore()
          let (time, result) = try await drive(
            chart, context: context, waits: waits, store: store, encoder: encoder)
          let saved = try await store.list()
          guard saved.count == 1, let run = try await store.load(saved[0].id) else {
            throw BenchmarkError.mismatch("save at every wait: the store holds \(saved.count) runs")
          }
          let last = try decoder.decode(RunSnapshot<DurableContext>.self, from: Data(run.snapshot))
          var expected = result.context
          expected.laps -= 1
          expected.counter -= 9
          guard last.context == expected, last.stepCount == waits * 10 - 9 else {
            throw BenchmarkError.mismatch(
              "save at every wait: the last save is not the run at its last wait")
          }
          results.withLock { $0.append(result) }
          lastSave.withLock { $0 = run.snapshot.count }
          return time
        },
        {
          let (time, result) = try await drive(
            chart, context: context, waits: waits, store: nil, encoder: encoder)
          results.withLock { $0.append(result) }
          return time
        },
      ])
    let ended = results.withLock { $0 }
    guard
      let first = ended.first,
      first.context.laps == waits, first.context.counter == waits * 8 + 1,
      ended.allSatisfy({ $0.context == first.context && $0.stepCount == first.stepCount })
    else {
      throw BenchmarkError.mismatch(
        "save at every wait: the runs with and without saving ended differently")
    }
    report.rows.append(
      ReportRow(
        group: "durable",
        workload:
          "live run waiting every 10 states, snapshot + encode + InMemoryRunStore save at every wait vs no save, \(compactCount(waits)) waits, 1 KiB context",
        unit: "µs/wait", flowchart: samples[0], baseline: samples[1]))
    return (lastSave.withLock { $0 }, try encoder.encode(context).count)
  }
}

/// Opened by an observer's callback, waited for by the driver: one opening per wait.
private final class Signal: Sendable {
  private let state = Lock<(opened: Int, waiter: CheckedContinuation<Void, Never>?)>((0, nil))

  func open() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      guard let waiter = state.waiter else {
        state.opened += 1
        return nil
      }
      state.waiter = nil
      return waiter
    }
    waiter?.resume()
  }

  func wait() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        guard state.opened > 0 else {
          state.waiter = continuation
          return false
        }
        state.opened -= 1
        return true
      }
      if ready { continuation.resume() }
    }
  }
}
