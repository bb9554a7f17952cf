import Flowchart
import Testing

/// Gates that also open when the branch parked at one is cancelled, so that a branch the
/// quorum cancels ends without the test opening its gate.
private actor CancellableGates {
  private var parked: [Int: CheckedContinuation<Void, Never>] = [:]
  private var cancelled: Set<Int> = []
  private var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

  /// Parks the branch numbered `index` until ``open(_:)`` or until its task is cancelled.
  nonisolated func park(_ index: Int) async {
    await withTaskCancellationHandler {
      await wait(index)
    } onCancel: {
      Task { await self.cancel(index) }
    }
  }

  private func wait(_ index: Int) async {
    guard !cancelled.contains(index) else { return }
    await withCheckedContinuation { continuation in
      parked[index] = continuation
      let ready = watchers.filter { parked.count >= $0.count }
      watchers.removeAll { parked.count >= $0.count }
      for watcher in ready { watcher.continuation.resume() }
    }
  }

  private func cancel(_ index: Int) {
    cancelled.insert(index)
    parked.removeValue(forKey: index)?.resume()
  }

  /// Returns once `count` branches are parked.
  func parked(count: Int) async {
    if parked.count >= count { return }
    await withCheckedContinuation { watchers.append((count, $0)) }
  }

  func open(_ index: Int) {
    parked.removeValue(forKey: index)?.resume()
  }
}

/// Counts how often a closure outside the chart ran.
private final class CallCounter: Sendable {
  private let storage = Lock(0)

  func increment() { storage.withLock { $0 += 1 } }

  var value: Int { storage.withLock { $0 } }
}

/// Join policies: how many branches of a dispatch must succeed, what happens to the
/// others, and the report that says so; synchronously and concurrently.
@Suite(.timeLimit(.minutes(5)))
struct DispatchJoinPolicyTests {
  struct Work: Sendable, Equatable {
    var done: [String] = []
    /// The report, one line per branch: index, name, status, and a failure's path.
    var report: [String] = []
  }

  struct Broken: Error {}

  /// What a branch's one state does.
  enum Step: Sendable {
    case succeed
    case fail
    /// Waits at gate `n`, then succeeds.
    case park(Int)
  }

  /// One branch: its name, what it does, and the branches it waits for.
  typealias Plan = (name: String, step: Step, after: [String])

  fileprivate static func state(
    _ name: String, _ step: Step, gates: CancellableGates?, starts: CallCounter?
  ) -> Action<Work> {
    switch step {
    case .succeed:
      Action(name, isFinal: true) {
        starts?.increment()
        $0.done.append(name)
      }
    case .fail:
      Action(name, isFinal: true) { _ in
        starts?.increment()
        throw Broken()
      }
    case .park(let gate):
      Action(name, isFinal: true) {
        starts?.increment()
        await gates?.park(gate)
        $0.done.append(name)
      }
    }
  }

  static func line(_ entry: DispatchReport.Entry) -> String {
    let failure = entry.error.map { " at " + $0.pathNames.joined(separator: " > ") } ?? ""
    return "\(entry.index) \(entry.name ?? "-") \(entry.status)\(failure)"
  }

  /// Begin → Fan out (the branches, with `join`) → End. The report writes `Work.report`
  /// and counts its calls in `reports`.
  fileprivate static func chart(
    join: JoinPolicy, _ branches: [Plan], gates: CancellableGates? = nil,
    starts: CallCounter? = nil, reports: CallCounter? = nil
  ) throws -> Flowchart<Work> {
    try Flowchart<Work> {
      Action("Begin") { $0.done.append("begin") }
      Dispatch("Fan out", join: join) { context, branch, original in
        context.done += branch.done.dropFirst(original.done.count)
      } branches: {
        for plan in branches {
          Branch(plan.name, after: plan.after) {
            Self.state(plan.name, plan.step, gates: gates, starts: starts)
          }
        }
      } report: { context, report in
        reports?.increment()
        context.report = report.branches.map(Self.line)
      }
      Action("End", isFinal: true) { $0.done.append("end") }
    }
  }

  static func run(_ chart: Flowchart<Work>, concurrently: Bool) async throws(RunError) -> Work {
    concurrently
      ? try await chart.run(with: Work()).context
      : try chart.runSynchronously(with: Work()).context
  }

  // MARK: - Tolerating failures

  @Test(arguments: [false, true])
  func toleratedFailuresAreDroppedAndReported(concurrently: Bool) async throws {
    let chart = try Self.chart(
      join: .toleratingFailures(1),
      [("A", .succeed, []), ("B", .fail, []), ("C", .succeed, [])])
    let work = try await Self.run(chart, concurrently: concurrently)
    #expect(work.done == ["begin", "A", "C", "end"])
    #expect(
      work.report == [
        "0 A succeeded", "1 B failed at Begin > Fan out > B", "2 C succeeded",
      ])
  }

  @Test(arguments: [false, true])
  func oneFailureTooManyFailsTheDispatch(concurrently: Bool) async throws {
    let reports = CallCounter()
    let chart = try Self.chart(
      join: .toleratingFailures(1),
      [("A", .fail, []), ("B", .fail, []), ("C", .succeed, [])], reports: reports)
    let error = try await #require(throws: RunError.self) {
      try await Self.run(chart, concurrently: concurrently)
    }
    #expect(error.kind == .thrown)
    #expect(error.underlyingError is Broken)
    // Synchronously, B fails second; concurrently, either may.
    #expect(concurrently ? ["A", "B"].contains(error.stateName) : error.stateName == "B")
    #expect(error.pathNames == ["Begin", "Fan out", error.stateName])
    #expect(reports.value == 0)
  }

  @Test(arguments: [false, true])
  func everyBranchMayFailWhenAsManyAreTolerated(concurrently: Bool) async throws {
    let chart = try Self.chart(
      join: .toleratingFailures(2), [("A", .fail, []), ("B", .fail, [])])
    let work = try await Self.run(chart, concurrently: concurrently)
    #expect(work.done == ["begin", "end"])
    #expect(work.report.map { $0.prefix(8) } == ["0 A fail", "1 B fail"])
  }

  // MARK: - Skipped dependents

  @Test(arguments: [false, true])
  func aBranchWhosePrerequisiteFailedIsSkippedAndCounted(concurrently: Bool) async throws {
    let starts = CallCounter()
    let chart = try Self.chart(
      join: .toleratingFailures(3),
      [
        ("Later", .succeed, ["Skipped"]), ("Broken", .fail, []),
        ("Skipped", .succeed, ["Broken"]), ("Free", .succeed, []),
      ], starts: starts)
    let work = try await Self.run(chart, concurrently: concurrently)
    #expect(work.done == ["begin", "Free", "end"])
    #expect(
      work.report == [
        "0 Later skipped", "1 Broken failed at Begin > Fan out > Broken", "2 Skipped skipped",
        "3 Free succeeded",
      ])
    #expect(starts.value == 2)
  }

  @Test(arguments: [false, true])
  func aSkippedBranchBeyondTheToleranceFailsTheDispatch(concurrently: Bool) async throws {
    let chart = try Self.chart(
      join: .toleratingFailures(1),
      [("Broken", .fail, []), ("Skipped", .succeed, ["Broken"]), ("Free", .succeed, [])])
    let error = try await #require(throws: RunError.self) {
      try await Self.run(chart, concurrently: concurrently)
    }
    // The failure that made the skip one too many.
    #expect(error.stateName == "Broken")
    #expect(error.kind == .thrown)
  }

  // MARK: - Quorums

  @Test(arguments: [false, true])
  func aQuorumThatBecomesImpossibleFailsTheDispatch(concurrently: Bool) async throws {
    let chart = try Self.chart(
      join: .quorum(2), [("A", .fail, []), ("B", .succeed, []), ("C", .fail, [])])
    let error = try await #require(throws: RunError.self) {
      try await Self.run(chart, concurrently: concurrently)
    }
    #expect(concurrently ? ["A", "C"].contains(error.stateName) : error.stateName == "C")
  }

  @Test func aSynchronousQuorumDoesNotStartTheRest() throws {
    let starts = CallCounter()
    let chart = try Self.chart(
      join: .quorum(2),
      [("A", .fail, []), ("B", .succeed, []), ("C", .succeed, []), ("D", .succeed, [])],
      starts: starts)
    let work = try chart.runSynchronously(with: Work()).context
    #expect(work.done == ["begin", "B", "C", "end"])
    #expect(
      work.report == [
        "0 A failed at Begin > Fan out > A", "1 B succeeded", "2 C succeeded", "3 D cancelled",
      ])
    #expect(starts.value == 3)
  }

  @Test func aSynchronousFirstSuccessWins() throws {
    let starts = CallCounter()
    let chart = try Self.chart(
      join: .firstSuccess, [("A", .fail, []), ("B", .succeed, []), ("C", .succeed, [])],
      starts: starts)
    let work = try chart.runSynchronously(with: Work()).context
    #expect(work.done == ["begin", "B", "end"])
    #expect(work.report.map { $0.prefix(5) } == ["0 A f", "1 B s", "2 C c"])
    #expect(starts.value == 2)
  }

  /// The test chooses which branches finish: the others stay parked until the quorum
  /// cancels them.
  @Test(arguments: [[2, 0], [0, 2], [3, 1]])
  func aQuorumMetEarlyCancelsTheRest(finishing: [Int]) async throws {
    let gates = CancellableGates()
    let names = ["A", "B", "C", "D"]
    let chart = try Self.chart(
      join: .quorum(2), names.enumerated().map { ($1, .park($0), []) }, gates: gates)
    let run = Task { try await chart.run(with: Work()).context }
    await gates.parked(count: 4)
    for gate in finishing { await gates.open(gate) }
    let work = try await run.value
    let winners = finishing.sorted()
    #expect(work.done == ["begin"] + winners.map { names[$0] } + ["end"])
    #expect(
      work.report
        == names.indices.map {
          "\($0) \(names[$0]) \(winners.contains($0) ? "succeeded" : "cancelled")"
        })
  }

  @Test(arguments: 0..<3)
  func theFirstSuccessWinsConcurrently(winner: Int) async throws {
    let gates = CancellableGates()
    let chart = try Self.chart(
      join: .firstSuccess, (0..<3).map { ("\($0)", .park($0), []) }, gates: gates)
    let run = Task { try await chart.run(with: Work()).context }
    await gates.parked(count: 3)
    await gates.open(winner)
    let work = try await run.value
    #expect(work.done == ["begin", "\(winner)", "end"])
    #expect(
      work.report
        == (0..<3).map { "\($0) \($0) \($0 == winner ? "succeeded" : "cancelled")" })
  }

  // MARK: - All

  @Test(arguments: [false, true])
  func allReportsEveryBranchSucceeded(concurrently: Bool) async throws {
    let chart = try Self.chart(join: .all, [("A", .succeed, []), ("B", .succeed, ["A"])])
    let work = try await Self.run(chart, concurrently: concurrently)
    // B starts from A's context, so what B adds beyond the original holds A's entry too.
    #expect(work.done == ["begin", "A", "A", "B", "end"])
    #expect(work.report == ["0 A succeeded", "1 B succeeded"])
  }

  /// A failure that the policy tolerates frees its place under the concurrency limit.
  @Test func aToleratedFailureLetsTheNextBranchStart() async throws {
    // swift-format-ignore
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", maxConcurrency: 1, join: .toleratingFailures(2)) {
        context, branch, original in
        context.done += branch.done.dropFirst(original.done.count)
      } branches: {
        Branch { Action("A", isFinal: true) { _ in throw Broken() } }
        Branch { Action("B", isFinal: true) { _ in throw Broken() } }
        Branch { Action("C", isFinal: true) { $0.done.append("C") } }
      }
      Action("End", isFinal: true) { $0.done.append("end") }
    }
    #expect(try await chart.run(with: Work()).context.done == ["C", "end"])
  }

  @Test(arguments: [false, true])
  func aReportThatThrowsFailsTheRunAtTheDispatch(concurrently: Bool) async throws {
    // swift-format-ignore
    let chart = try Flowchart<Work> {
      Action("Begin") { $0.done.append("begin") }
      Dispatch("Fan out", join: .firstSuccess) {
        Branch { Action("A", isFinal: true) }
      } report: { _, _ in
        throw Broken()
      }
      Action("End", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) {
      try await Self.run(chart, concurrently: concurrently)
    }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Fan out")
    #expect(error.underlyingError is Broken)
    #expect(error.pathNames == ["Begin", "Fan out", "A"])
  }

  // MARK: - Nesting

  /// A dispatch that fails inside a branch of another is that branch's failure, which the
  /// outer dispatch may tolerate; the report's error names the path through both.
  @Test(arguments: [false, true])
  func anInnerDispatchsFailureIsTheOuterBranchs(concurrently: Bool) async throws {
    // swift-format-ignore
    let chart = try Flowchart<Work> {
      Action("Begin") { $0.done.append("begin") }
      Dispatch("Outer", join: .toleratingFailures(1)) { context, branch, original in
        context.done += branch.done.dropFirst(original.done.count)
      } branches: {
        Branch("Nested") {
          Action("Prepare") { $0.done.append("prepare") }
          Dispatch("Inner", isFinal: true, join: .toleratingFailures(0)) {
            Branch { Action("Fine", isFinal: true) }
            Branch { Action("Bad", isFinal: true) { _ in throw Broken() } }
          }
        }
        Branch("Plain") { Action("Plain", isFinal: true) { $0.done.append("plain") } }
      } report: { context, report in
        context.report = report.branches.map(Self.line)
      }
      Action("End", isFinal: true) { $0.done.append("end") }
    }
    let work = try await Self.run(chart, concurrently: concurrently)
    #expect(work.done == ["begin", "plain", "end"])
    #expect(
      work.report == [
        "0 Nested failed at Begin > Outer > Prepare > Inner > Bad", "1 Plain succeeded",
      ])
  }

  // MARK: - Cancellation

  /// A run whose task is cancelled tolerates no failure: it ends at the branch's state,
  /// and the report never runs.
  @Test func aCancelledConcurrentRunToleratesNoFailure() async throws {
    let gates = CancellableGates()
    let reports = CallCounter()
    let chart = try Self.chart(
      join: .toleratingFailures(5), (0..<3).map { ("Wait \($0)", .park($0), []) },
      gates: gates, reports: reports)
    let run = Task { try await chart.run(with: Work()) }
    await gates.parked(count: 3)
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName.hasPrefix("Wait"))
    #expect(reports.value == 0)
  }

  @Test func aCancelledSynchronousRunToleratesNoFailure() async throws {
    let reports = CallCounter()
    // swift-format-ignore
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", join: .toleratingFailures(5)) {
        Branch {
          Action("Cancel and fail", isFinal: true) { _ in
            withUnsafeCurrentTask { $0?.cancel() }
            throw Broken()
          }
        }
        Branch { Action("Next", isFinal: true) }
      } report: { _, _ in
        reports.increment()
      }
      Action("End", isFinal: true)
    }
    let run = Task { try chart.runSynchronously(with: Work()) }
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Cancel and fail")
    #expect(error.underlyingError is Broken)
    #expect(reports.value == 0)
  }

  // MARK: - Definition errors

  @Test func aNegativeToleranceIsReported() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Work> {
        Dispatch("Fan out", isFinal: true, join: .toleratingFailures(-1)) {
          Branch { Action("Work", isFinal: true) }
        }
      }
    }
    let problem = expectOnlyProblem(error, .invalidDispatchOption, name: "Fan out", line: line)
    #expect(
      problem?.message
        == "Dispatch 'Fan out' has the join policy .toleratingFailures(-1), which tolerates fewer than no failures. Give it 0 or more."
    )
  }

  @Test func aQuorumOfNoneIsReported() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Work> {
        Dispatch("Fan out", isFinal: true, join: .quorum(0)) {
          Branch { Action("Work", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .invalidDispatchOption, name: "Fan out", line: line,
      saying: [".quorum(0), which would never need a branch to succeed. Give it 1 or more."])
  }

  @Test func aQuorumLargerThanTheBranchesIsReported() {
    let line = #line + 3
    let error = definitionError {
      try Flowchart<Work> {
        Dispatch("Fan out", isFinal: true, join: .quorum(3)) {
          Branch { Action("One", isFinal: true) }
          Branch { Action("Two", isFinal: true) }
        }
      }
    }
    expectOnlyProblem(
      error, .invalidDispatchOption, name: "Fan out", line: line,
      saying: [
        ".quorum(3), but the dispatch has only 2 branches. Give it at most 2, or add branches."
      ])
  }

  // MARK: - Values

  @Test func policiesReadAsWritten() {
    #expect(
      [JoinPolicy.all, .toleratingFailures(2), .quorum(3), .firstSuccess].map(\.description)
        == [".all", ".toleratingFailures(2)", ".quorum(3)", ".quorum(1)"])
    #expect(JoinPolicy.firstSuccess == .quorum(1))
  }

  @Test func aMergeWhoseParametersNameNoTypeIsNotTakenForAReport() throws {
    // `report:` follows the branches, so a two-argument closure written first is a merge,
    // even when its parameters fix no type.
    let merges = CallCounter()
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", isFinal: true) { _, _ in
        merges.increment()
      } branches: {
        Branch { Action("A", isFinal: true) }
        Branch { Action("B", isFinal: true) }
      }
    }
    _ = try chart.runSynchronously(with: Work())
    #expect(merges.value == 2)
  }
}
