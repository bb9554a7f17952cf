/// Where one flow of a run stands, as a value: the state it is at, the states it entered,
/// and the dispatches waiting for its branches to join.
///
/// Every flow has one cursor: a run's top-level flow, and each dispatch branch run as a
/// child task. The interpreter's loops only move cursors; they keep no position of their
/// own in locals or in the call stack, so a run's whole position is the cursors of its
/// flows (with their contexts). That is what later capabilities build on: pausing at a
/// boundary keeps the cursor, an event reports it, a snapshot stores it.
///
/// At a boundary (after a state's code has returned and ``follow(_:from:)`` has moved the
/// cursor, before the next state is entered), ``state`` is the state about to be entered
/// and ``path`` holds every state entered so far.
///
/// Noncopyable, like the path recorder it owns: exactly one loop moves a cursor.
@usableFromInline
struct Cursor<Context: Sendable>: ~Copyable {
  /// The state the flow is at: the one about to be entered at a boundary, the one running
  /// while its code runs, the final state once the flow has ended.
  @usableFromInline var state: Int32
  /// The states the flow entered, which also enforces its step limit.
  @usableFromInline var path: PathRecorder
  /// The dispatches whose branches a synchronous run is running inside this flow,
  /// innermost last: a dispatch pushes one, and its last branch's end pops it. Empty in an
  /// asynchronous run, whose branches are child tasks with cursors of their own. Keeping
  /// them here rather than in the call stack lets dispatches nest without limit.
  @usableFromInline var joins: [PendingJoin<Context>]
  /// Which flow of the run this is, for a live run's events: 0 for the top level, then one
  /// number per dispatch branch as it starts. Always 0 in a run nobody observes.
  @usableFromInline var flow: Int32

  /// A cursor at `state`, with nothing entered yet.
  @inlinable
  init(at state: Int32, stepLimit: Int, flow: Int32 = 0) {
    self.state = state
    path = PathRecorder(limit: stepLimit)
    joins = []
    self.flow = flow
  }

  /// The transition rule, written once for every kind of state and every loop: a final
  /// state ends the flow with its decision; otherwise an action or a dispatch goes to its
  /// next state, a condition to its `yes` or `no` exit, a multiple condition to the state
  /// it selected.
  ///
  /// A final multiple condition decides a key, which ends its flow without coming here:
  /// such a state is final by construction and has no exits to follow.
  ///
  /// - Returns: `true` when the flow ended at ``state``, having decided
  ///   `outcome.decision`; `false` when the cursor moved on to the next state.
  @inlinable @inline(__always)
  mutating func follow(_ outcome: Outcome, from node: Node) -> Bool {
    outcome.follow(from: node, state: &state)
  }

  /// Starts recording a new flow, and hands over the path recorded so far.
  @usableFromInline
  mutating func restartPath(_ recorder: consuming PathRecorder) -> RecordedPath {
    swap(&path, &recorder)
    return recorder.finish()
  }
}

/// What a state's code decided, short of a key: which exit ``Cursor/follow(_:from:)``
/// takes. (`Sendable`: a modified state's attempt with a timeout returns it from a child
/// task, inside a ``CodeResult``.)
@usableFromInline
enum Outcome: Sendable {
  /// An action or a dispatch finished.
  case next
  /// A condition decided `true`.
  case yes
  /// A condition decided `false`.
  case no
  /// A non-final multiple condition's key leads to this state.
  case selected(Int32)

  /// The transition rule itself, for ``Cursor/follow(_:from:)`` and for a subflow's chart
  /// run in place, which has no cursor: moves `state` on from `node` and returns `false`,
  /// or returns `true` when the flow ends at `node`.
  @inlinable @inline(__always)
  func follow(from node: Node, state: inout Int32) -> Bool {
    switch self {
    case .next, .yes:
      if node.isFinal { return true }
      state = node.next
    case .no:
      if node.isFinal { return true }
      state = node.alternative
    case .selected(let target):
      state = target
    }
    return false
  }

  /// What a final state that decided this outcome decided. A multiple condition that
  /// selects a state is never final.
  @inlinable
  var decision: Decision {
    switch self {
    case .next, .selected: .done
    case .yes: .yes
    case .no: .no
    }
  }
}

/// A dispatch whose branches a synchronous run is running: what it needs to join them.
@usableFromInline
struct PendingJoin<Context: Sendable> {
  /// The dispatch state.
  @usableFromInline let dispatch: Int32
  /// The context as it was before the dispatch: each branch starts from a copy, and the
  /// merge receives it.
  @usableFromInline let original: Context
  /// The branches that succeeded, at their index in declaration order; `nil` for those
  /// that have not run yet or did not succeed.
  @usableFromInline var finished: [FinishedBranch<Context>?]
  /// How many branches have ended or been skipped: the one running is the one at that
  /// position of the plan's order (or of the declaration, when the plan has no order).
  @usableFromInline var ranCount = 0
  /// How the branches that did not succeed ended, for the join policy and the report.
  @usableFromInline var tally = JoinTally()
  /// The path of the flow that dispatched, set aside while its branches record their own.
  @usableFromInline let parentPath: RecordedPath

  @usableFromInline
  init(dispatch: Int32, original: Context, branchCount: Int, parentPath: RecordedPath) {
    self.dispatch = dispatch
    self.original = original
    finished = [FinishedBranch<Context>?](repeating: nil, count: branchCount)
    self.parentPath = parentPath
  }
}

extension Cursor {
  /// A cursor where a failed live run's flow stopped, for a retry: at the state it failed
  /// at (or the dispatch whose branches failed), with the path it had entered, the failed
  /// attempt included, so the retried run's path continues the old one. The flow may
  /// enter `stepLimit` more states (a flow resumed from a snapshot keeps its own limit, the
  /// point's, which its path counts toward).
  @usableFromInline
  init(resuming point: FlowResumePoint<Context>, stepLimit: Int) {
    let old = point.path
    let (limit, overflow) = old.count.addingReportingOverflow(stepLimit)
    self.init(at: point.state, stepLimit: point.stepLimit ?? (overflow ? .max : limit))
    path.append(old)
  }
}
