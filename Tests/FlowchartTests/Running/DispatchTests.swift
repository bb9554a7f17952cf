import Flowchart
import Testing

/// A context whose branches each record what they did.
private struct Work: Sendable {
  var log: [String] = []
  var total = 0
}

/// Appends each branch's log to the running context: the order of the merged log shows
/// the order the merge ran in.
private let appendLogs: @Sendable (inout Work, Work) -> Void = { context, branch in
  context.log += branch.log
  context.total += branch.total
}

/// Records names, in the order they come.
private actor FinishOrder {
  private(set) var names: [String] = []
  func append(_ name: String) { names.append(name) }
}

private struct BranchFailure: Error {}

/// Lets a dispatch's branches finish in an order the test chooses, not the scheduler.
///
/// Each branch waits until every branch has started (possible only if they run
/// concurrently; run one after another, the first would wait for ever), then until it is its
/// turn in `order`; a branch that finishes lets the next one go.
private actor Turnstile {
  private let order: [Int]
  private var started = 0
  private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
  /// The branches that finished, in the order they did.
  private(set) var finished: [Int] = []

  init(order: [Int]) {
    self.order = order
  }

  /// Returns once every branch has started and it is `branch`'s turn.
  func waitForTurn(_ branch: Int) async {
    started += 1
    await withCheckedContinuation { continuation in
      waiting[branch] = continuation
      releaseNext()
    }
  }

  /// Records that `branch` finished, and lets the next branch go.
  func finish(_ branch: Int) {
    finished.append(branch)
    releaseNext()
  }

  private func releaseNext() {
    guard started == order.count, finished.count < order.count,
      let next = waiting.removeValue(forKey: order[finished.count])
    else { return }
    next.resume()
  }
}

struct DispatchTests {
  /// Every order in which four branches can finish.
  static let finishOrders: [[Int]] = {
    var result: [[Int]] = []
    func permute(_ prefix: [Int], _ rest: [Int]) {
      if rest.isEmpty { result.append(prefix) }
      for (index, value) in rest.enumerated() {
        var remaining = rest
        remaining.remove(at: index)
        permute(prefix + [value], remaining)
      }
    }
    permute([], [0, 1, 2, 3])
    return result
  }()

  @Test(.timeLimit(.minutes(5)), arguments: finishOrders)
  func joinFoldsBranchesInDeclarationOrderWhateverOrderTheyFinish(order: [Int]) async throws {
    let turnstile = Turnstile(order: order)
    let chart = try Flowchart<Work>(
      fileID: #fileID, line: #line
    ) {
      Action("Before") { $0.log.append("before") }
      Dispatch("Fan out", merge: appendLogs) {
        for index in 0..<4 {
          Branch {
            Action("Branch \(index)", isFinal: true) { work in
              await turnstile.waitForTurn(index)
              // Each branch starts from a copy of the whole context; it reports only its
              // own part, so that the merge can append it.
              work.log = ["branch \(index)"]
              work.total = index
              await turnstile.finish(index)
            }
          }
        }
      }
      Action("After", isFinal: true) { $0.log.append("after") }
    }
    let result = try await chart.run(with: Work())
    #expect(
      result.context.log == ["before", "branch 0", "branch 1", "branch 2", "branch 3", "after"])
    #expect(result.context.total == 6)
    // The path lists the dispatch, then each branch's states in declaration order.
    #expect(
      result.path.map { chart[$0].name } == [
        "Before", "Fan out", "Branch 0", "Branch 1", "Branch 2", "Branch 3", "After",
      ])
    #expect(result.stepCount == 7)
    // The branches all started before any finished, so they ran concurrently, and they
    // finished in the order the turnstile set.
    #expect(await turnstile.finished == order)
  }

  @Test func branchesWorkOnCopiesOfTheContext() async throws {
    let chart = try Flowchart<Work> {
      Action("Seed") { $0.log = ["seed"] }
      Dispatch("Fan out", merge: appendLogs) {
        Branch {
          Action("Clear", isFinal: true) { $0.log.removeAll() }
        }
        Branch {
          Action("Read", isFinal: true) { work in
            await Task.yield()
            // Sees the context as it was before the dispatch, not a sibling's change.
            work.log = work.log == ["seed"] ? ["saw seed"] : ["saw a sibling"]
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.log == ["seed", "saw seed"])
  }

  @Test func withoutMergeTheBranchesChangesAreDropped() async throws {
    let chart = try Flowchart<Int> {
      Dispatch("Fan out") {
        Branch { Action("Add", isFinal: true) { $0 += 10 } }
      }
      Action("Done", isFinal: true) { $0 += 1 }
    }
    #expect(try await chart.run(with: 0).context == 1)
    #expect(try chart.runSynchronously(with: 0).context == 1)
  }

  @Test func branchesAreSmallFlowsWithConditionsAndLoops() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", merge: appendLogs) {
        Branch {
          Action("Count") { $0.total += 1 }
          Condition("Three?") {
            $0.total == 3
          } yes: {
            Action("Counted", isFinal: true) { $0.log.append("counted") }
          } no: {
            GoTo("Count")
          }
        }
        Branch {
          MultipleCondition("Pick") { _ in
            "b"
          } exits: {
            Case("a") { Action("A", isFinal: true) }
            Case("b") { Action("B", isFinal: true) { $0.log.append("b") } }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.total == 3)
    #expect(result.context.log == ["counted", "b"])
    #expect(result.stepCount == 1 + 7 + 2 + 1)
  }

  @Test func synchronousRunRunsBranchesInDeclarationOrder() throws {
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", merge: appendLogs) {
        Branch { Action("First", isFinal: true) { $0.log.append("first") } }
        Branch { Action("Second", isFinal: true) { $0.log.append("second") } }
      }
      Action("Done", isFinal: true)
    }
    #expect(chart.isSynchronous)
    let result = try chart.runSynchronously(with: Work())
    #expect(result.context.log == ["first", "second"])
    #expect(result.path.map { chart[$0].name } == ["Fan out", "First", "Second", "Done"])
  }

  @Test func nestedDispatchesJoinInOrder() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Outer", merge: appendLogs) {
        Branch {
          Dispatch("Inner", isFinal: true, merge: appendLogs) {
            Branch {
              Action("Inner slow", isFinal: true) { work in
                try await Task.sleep(for: .milliseconds(20))
                work.log.append("inner slow")
              }
            }
            Branch { Action("Inner fast", isFinal: true) { $0.log.append("inner fast") } }
          }
        }
        Branch { Action("Outer fast", isFinal: true) { $0.log.append("outer fast") } }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.log == ["inner slow", "inner fast", "outer fast"])
  }

  @Test func finalDispatchEndsTheRun() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Everything", isFinal: true, merge: appendLogs) {
        Branch { Action("One", isFinal: true) { $0.log.append("one") } }
      }
    }
    let result = try await chart.run(with: Work())
    #expect(result.finalStateName == "Everything")
    #expect(result.decision == .done)
    #expect(result.context.log == ["one"])
  }

  @Test(.timeLimit(.minutes(5)))
  func failingBranchCancelsItsSiblingsAndFailsTheDispatch() async throws {
    let cancelled = FinishOrder()
    // The failing branch fails only once the slow one has started, whatever the scheduler
    // does: the slow branch parks at a gate, which the failing branch opens before it throws.
    let gates = Gates()
    let chart = try Flowchart<Work> {
      Action("Before") { _ in }
      Dispatch("Fan out", merge: appendLogs) {
        Branch {
          Action("Slow", isFinal: true) { _ in
            await gates.park(0)
            do {
              try await Task.sleep(for: .seconds(30))
            } catch {
              await cancelled.append("Slow")
              throw error
            }
          }
        }
        Branch {
          Action("Prepare") { _ in }
          Action("Fail", isFinal: true) { _ in
            _ = await gates.parked(count: 1)
            await gates.open(0)
            throw BranchFailure()
          }
        }
      }
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: Work()) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Fail")
    #expect(error.underlyingError is BranchFailure)
    #expect(error.path.map { chart[$0].name } == ["Before", "Fan out", "Prepare", "Fail"])
    #expect(error.description.contains("Path: Before → Fan out → Prepare → Fail"))
    #expect(await cancelled.names == ["Slow"])
  }

  @Test func failingBranchInASynchronousRunReportsItsPath() throws {
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", merge: appendLogs) {
        Branch { Action("Fine", isFinal: true) { _ in } }
        Branch { Action("Fail", isFinal: true) { _ in throw BranchFailure() } }
      }
      Action("After", isFinal: true)
    }
    let error = try #require(throws: RunError.self) { try chart.runSynchronously(with: Work()) }
    #expect(error.stateName == "Fail")
    // As in a concurrent run, a failing branch's path holds its own states, not its
    // siblings'.
    #expect(error.path.map { chart[$0].name } == ["Fan out", "Fail"])
  }

  @Test func throwingMergeFailsTheDispatch() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", merge: { _, _ in throw BranchFailure() }) {
        Branch { Action("One", isFinal: true) }
      }
      Action("After", isFinal: true)
    }
    let error = try await #require(throws: RunError.self) { try await chart.run(with: Work()) }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Fan out")
    #expect(error.underlyingError is BranchFailure)
  }

  @Test func manyBranchesJoin() async throws {
    let chart = try Flowchart<Work> {
      Dispatch("Fan out", merge: appendLogs) {
        for _ in 0..<1_000 {
          Branch {
            Action("Add", isFinal: true) { work in
              await Task.yield()
              work.total = 1
            }
          }
        }
      }
      Action("Done", isFinal: true)
    }
    let result = try await chart.run(with: Work())
    #expect(result.context.total == 1_000)
    #expect(result.stepCount == 1_002)
  }
}
