import Flowchart

// The cycle workloads (issue items 1 and 2).
//
// The chart is a 4-state cycle:
//
//     Work 1 (A) → More 1? (S) → Work 2 (A) → More 2? (S) → Work 1 …
//
// Each action adds 1 to `counter`; each condition answers `counter < limit`, and its `no`
// exit leads to the final action `Done`. A *transition* is one action followed by one
// condition, so a lap of the cycle is two transitions, and a run of `limit` transitions
// ends with `counter == limit` after calling `limit` action closures and `limit`
// condition closures. The chart also enters `Done`, one state more, which has no code.
//
// The baseline is the same cycle written by hand: a `switch` over an enum of the four
// states in one loop, calling the very same closure values. Both sides receive the
// closures through `opaque(_:)`, so neither can inline their bodies.

/// The context of the cycle workloads.
struct CycleContext: Sendable {
  /// Advanced by 1 by every action: the number of transitions so far.
  var counter = 0
  /// The number of transitions the run makes.
  let limit: Int
}

/// Adds a captured amount; gives the cycle's closures a reference-counted context, as
/// closures that capture a service or a configuration object have.
final class Increment: Sendable {
  /// The amount added per action.
  let amount: Int

  init(amount: Int) {
    self.amount = amount
  }
}

/// The states of the hand-written cycle.
enum CycleState {
  case work1
  case check1
  case work2
  case check2
}

// MARK: - Synchronous cycle

/// The four closures of the synchronous cycle, shared by the chart and the baseline.
struct SyncCycleCode: Sendable {
  /// What the closures capture, as shown in the workload's name.
  let variant: String
  // The states' code: `work1` and `work2` add 1 to the counter, `check1` and `check2`
  // answer whether the counter is below the limit.
  let work1: @Sendable (inout CycleContext) throws -> Void
  let check1: @Sendable (inout CycleContext) throws -> Bool
  let work2: @Sendable (inout CycleContext) throws -> Void
  let check2: @Sendable (inout CycleContext) throws -> Bool

  /// Closures that capture nothing, the common case for code working on the context, each
  /// with a body of its own, as the states of a real chart have.
  static func nonCapturing() -> SyncCycleCode {
    opaque(
      SyncCycleCode(
        variant: "plain closures",
        work1: { $0.counter &+= 1 },
        check1: { $0.counter < $0.limit },
        work2: { $0.counter = max($0.counter &+ 1, 1) },
        check2: { $0.limit > $0.counter && $0.limit != .min }))
  }

  /// Closures that capture nothing, the two actions with one body and the two conditions
  /// with another. LLVM merges each pair into one function behind two thunks a few bytes
  /// apart, so the chart's one call site for actions (and the one for conditions)
  /// alternates between two look-alike targets, which some hosts' indirect-branch
  /// predictors miss (see BENCHMARKS.md, "The core loops, counted"); the hand-written loop
  /// has one call site per state.
  static func nonCapturingMerged() -> SyncCycleCode {
    opaque(
      SyncCycleCode(
        variant: "plain closures, two identical bodies each (merged)",
        work1: { $0.counter &+= 1 },
        check1: { $0.counter < $0.limit },
        work2: { $0.counter &+= 1 },
        check2: { $0.counter < $0.limit }))
  }

  /// Closures that each capture an object, so calling them through a stored closure value
  /// may cost reference counting that the non-capturing closures hide.
  static func capturing() -> SyncCycleCode {
    let increment = opaque(Increment(amount: 1))
    return opaque(
      SyncCycleCode(
        variant: "capturing closures",
        work1: { $0.counter &+= increment.amount },
        check1: { $0.counter < $0.limit && increment.amount > 0 },
        work2: { $0.counter &+= increment.amount },
        check2: { $0.counter < $0.limit && increment.amount > 0 }))
  }

  /// The cycle as a chart.
  func makeChart() throws -> Flowchart<CycleContext> {
    try Flowchart<CycleContext> {
      Action("Work 1", work1)
      Condition("More 1?", check1, yes: {}, no: { GoTo("Done") })
      Action("Work 2", work2)
      Condition(
        "More 2?", check2, yes: { GoTo("Work 1") }, no: { Action("Done", isFinal: true) })
    }
  }
}

/// Runs `transitions` transitions of the cycle chart through the public API.
@inline(never)
func runSyncChart(
  _ chart: Flowchart<CycleContext>, transitions: Int
) throws -> RunResult<CycleContext> {
  try chart.runSynchronously(with: CycleContext(limit: transitions), stepLimit: nil)
}

/// Runs `transitions` transitions of the hand-written cycle: the floor.
@inline(never)
func runSyncBaseline(_ code: SyncCycleCode, transitions: Int) throws -> CycleContext {
  var context = CycleContext(limit: transitions)
  var state = CycleState.work1
  while true {
    switch state {
    case .work1:
      try code.work1(&context)
      state = .check1
    case .check1:
      guard try code.check1(&context) else { return context }
      state = .work2
    case .work2:
      try code.work2(&context)
      state = .check2
    case .check2:
      guard try code.check2(&context) else { return context }
      state = .work1
    }
  }
}

// MARK: - Asynchronous cycle

/// The four closures of the asynchronous cycle, shared by the chart and the baseline. They
/// are `async` but never suspend: the figure is the cost of the transitions, not of
/// waiting.
struct AsyncCycleCode: Sendable {
  let work1: @Sendable (inout CycleContext) async throws -> Void
  let check1: @Sendable (inout CycleContext) async throws -> Bool
  let work2: @Sendable (inout CycleContext) async throws -> Void
  let check2: @Sendable (inout CycleContext) async throws -> Bool

  /// Closures that capture nothing.
  static func nonCapturing() -> AsyncCycleCode {
    opaque(
      AsyncCycleCode(
        work1: { $0.counter &+= 1 },
        check1: { $0.counter < $0.limit },
        work2: { $0.counter &+= 1 },
        check2: { $0.counter < $0.limit }))
  }

  /// The cycle as a chart whose four states are asynchronous.
  func makeChart() throws -> Flowchart<CycleContext> {
    try Flowchart<CycleContext> {
      Action("Work 1", work1)
      Condition("More 1?", check1, yes: {}, no: { GoTo("Done") })
      Action("Work 2", work2)
      Condition(
        "More 2?", check2, yes: { GoTo("Work 1") }, no: { Action("Done", isFinal: true) })
    }
  }
}

/// Runs `transitions` transitions of the asynchronous cycle chart through the public API.
@inline(never)
func runAsyncChart(
  _ chart: Flowchart<CycleContext>, transitions: Int
) async throws -> RunResult<CycleContext> {
  try await chart.run(with: CycleContext(limit: transitions), stepLimit: nil)
}

/// Runs `transitions` transitions of the hand-written asynchronous cycle.
@inline(never)
func runAsyncBaseline(_ code: AsyncCycleCode, transitions: Int) async throws -> CycleContext {
  var context = CycleContext(limit: transitions)
  var state = CycleState.work1
  while true {
    switch state {
    case .work1:
      try await code.work1(&context)
      state = .check1
    case .check1:
      guard try await code.check1(&context) else { return context }
      state = .work2
    case .work2:
      try await code.work2(&context)
      state = .check2
    case .check2:
      guard try await code.check2(&context) else { return context }
      state = .work1
    }
  }
}

// MARK: - Measuring

/// Measures the cycle workloads against their hand-written baselines.
enum TransitionBenchmarks {
  /// Issue item 1: synchronous transitions, with closures that capture nothing
  /// (`capturing == false`) or closures that capture an object.
  static func measureSync(
    _ configuration: Configuration, capturing: Bool, into report: inout Report
  ) throws {
    if capturing {
      try measureSync(configuration, code: .capturing(), targetRatio: 1.5, into: &report)
    } else {
      try measureSync(configuration, code: .nonCapturing(), targetRatio: 1.4, into: &report)
      try measureSync(configuration, code: .nonCapturingMerged(), targetRatio: 1.4, into: &report)
    }
  }

  /// Measures the synchronous cycle with `code` against the hand-written loop.
  private static func measureSync(
    _ configuration: Configuration, code: SyncCycleCode, targetRatio: Double,
    into report: inout Report
  ) throws {
    let transitions = configuration.syncTransitions
    let chart = try code.makeChart()
    let check = try runSyncChart(chart, transitions: 10)
    guard check.context.counter == 10, check.stepCount == 21, check.finalStateName == "Done"
    else {
      throw BenchmarkError.mismatch("the sync cycle chart ran \(check.stepCount) steps")
    }
    let samples = try Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var result: RunResult<CycleContext>?
          let elapsed = try Stopwatch.nanoseconds {
            result = try runSyncChart(chart, transitions: transitions)
          }
          try expect(result?.context.counter, equals: transitions, "sync chart")
          return elapsed / Double(transitions)
        },
        {
          var context: CycleContext?
          let elapsed = try Stopwatch.nanoseconds {
            context = try runSyncBaseline(code, transitions: transitions)
          }
          try expect(context?.counter, equals: transitions, "sync baseline")
          return elapsed / Double(transitions)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "sync",
        workload: "sync cycle, \(compactCount(transitions)) transitions, \(code.variant)",
        unit: "ns/transition", flowchart: samples[0], baseline: samples[1],
        targetRatio: targetRatio))
    guard code.variant == "plain closures" else { return }
    report.notes.append(
      "sync / async: a 4-state cycle Work 1 (A) → More 1? (S) → Work 2 (A) → More 2? (S) → "
        + "Work 1; a transition is one action closure plus one condition closure. Baseline: "
        + "a hand-written `switch` over an enum in one loop calling the same closure values "
        + "(both sides get them through an `@inline(never) @_optimize(none)` identity "
        + "function, so neither inlines them). The chart runs through the public API "
        + "(`runSynchronously(with:stepLimit: nil)` / `run(with:stepLimit: nil)`) from this "
        + "module, as a user's module would call it. The capturing variant's closures each "
        + "capture one object, as closures holding a service or a setting do. The plain "
        + "variant's two actions (and two conditions) have bodies of their own; the merged "
        + "variant's are identical, which LLVM merges into one function behind two thunks, "
        + "so the chart's one call site per kind alternates between two look-alike targets "
        + "(an indirect-branch predictor's worst case on some hosts).")
  }

  /// Issue item 2: asynchronous transitions.
  static func measureAsync(_ configuration: Configuration, into report: inout Report) async throws {
    let transitions = configuration.asyncTransitions
    let code = AsyncCycleCode.nonCapturing()
    let chart = try code.makeChart()
    let check = try await runAsyncChart(chart, transitions: 10)
    guard check.context.counter == 10, check.stepCount == 21, check.finalStateName == "Done" else {
      throw BenchmarkError.mismatch("the async cycle chart ran \(check.stepCount) steps")
    }
    let samples = try await Interleaver.run(
      repetitions: configuration.repetitions,
      [
        {
          var result: RunResult<CycleContext>?
          let elapsed = try await Stopwatch.nanoseconds {
            result = try await runAsyncChart(chart, transitions: transitions)
          }
          try expect(result?.context.counter, equals: transitions, "async chart")
          return elapsed / Double(transitions)
        },
        {
          var context: CycleContext?
          let elapsed = try await Stopwatch.nanoseconds {
            context = try await runAsyncBaseline(code, transitions: transitions)
          }
          try expect(context?.counter, equals: transitions, "async baseline")
          return elapsed / Double(transitions)
        },
      ])
    report.rows.append(
      ReportRow(
        group: "async",
        workload: "async cycle, \(compactCount(transitions)) transitions",
        unit: "ns/transition", flowchart: samples[0], baseline: samples[1], targetRatio: 1.25))
  }
}

/// Throws ``BenchmarkError/mismatch(_:)`` unless `value` is `expected`, and keeps `value`
/// observable so the work producing it is not optimized away.
func expect(_ value: Int?, equals expected: Int, _ what: String) throws {
  blackHole(value)
  guard value == expected else {
    throw BenchmarkError.mismatch(
      "\(what): got \(value.map(String.init) ?? "nil"), expected \(expected)")
  }
}
