/// Where one flow of a failed live run stopped: what ``RunHandle/retry(clock:isPaused:isLogged:observer:updating:isolation:)``
/// starts from.
///
/// A flow that failed at a state is retried at that state, with the context it had before
/// the state's code ran. A flow whose dispatch failed is retried at the dispatch, with the
/// context from before it, and ``dispatch`` says how each branch goes on: the branches that
/// finished keep their results; those that failed or were cancelled go on from their own
/// resume points; the others start again. A dispatch whose branches met its join policy
/// and whose join then threw runs no branch again: it joins them as they ended.
///
/// A dispatch that joined is over, whatever its policy tolerated or cancelled: a flow that
/// fails after it is retried at the state that failed, after the dispatch, with the
/// context the join left (see the LiveRuns article, "Retry and restart").
///
/// Captured only by live runs, only when a flow fails: a run started with `run(with:)` or
/// `runSynchronously` has no monitor and never makes one.
@usableFromInline
final class FlowResumePoint<Context: Sendable>: Sendable {
  /// The state to run again: the failed state, or the dispatch whose branches failed.
  @usableFromInline let state: Int32
  /// The flow's context before ``state``.
  @usableFromInline let context: Context
  /// The states the flow entered, the failed attempt included; read only, never written.
  @usableFromInline let path: RecordedPath
  /// How the dispatch's branches go on, when ``state`` is a dispatch whose branches (or
  /// join) failed; `nil` when ``state`` itself runs again.
  @usableFromInline let dispatch: DispatchResume<Context>?
  /// The flow's step limit when it goes on from a snapshot, where ``path`` counts toward
  /// it as it did; `nil` for a retry, which may enter the run's step limit more states.
  @usableFromInline let stepLimit: Int?

  init(
    state: Int32, context: Context, path: RecordedPath, dispatch: DispatchResume<Context>?,
    stepLimit: Int? = nil
  ) {
    self.state = state
    self.context = context
    self.path = path
    self.dispatch = dispatch
    self.stepLimit = stepLimit
  }

  /// The same point with `update` applied to every context a retry resumes a flow with:
  /// this flow's, and the failed branches' (recursively). Finished branches keep theirs.
  func updating(_ update: (inout Context) -> Void) -> FlowResumePoint {
    var context = context
    update(&context)
    return FlowResumePoint(
      state: state, context: context, path: path,
      dispatch: dispatch.map { dispatch in
        DispatchResume(
          finished: dispatch.finished, points: dispatch.points.map { $0?.updating(update) },
          joined: dispatch.joined, decisions: dispatch.decisions)
      }, stepLimit: stepLimit)
  }
}

/// How the branches of a dispatch that failed go on when the run is retried.
@usableFromInline
struct DispatchResume<Context: Sendable>: Sendable {
  /// The branches that finished, by index: they do not run again.
  @usableFromInline let finished: [FinishedBranch<Context>?]
  /// Where each branch that failed or was cancelled while running stopped, by index; `nil`
  /// for a branch that starts again from its first state (it never started, was skipped,
  /// or finished).
  @usableFromInline let points: [FlowResumePoint<Context>?]
  /// How the branches ended when they met the join policy and the join (a merge, or the
  /// report) threw: the dispatch then joins them again as they ended, running none, and
  /// reports the same failures, skips and cancellations. `nil` when the branches failed the
  /// dispatch.
  @usableFromInline let joined: JoinTally?
  /// What each finished branch decided at its final state, by index, when known (a
  /// snapshot keeps it).
  @usableFromInline let decisions: [Decision?]

  init(
    finished: [FinishedBranch<Context>?], points: [FlowResumePoint<Context>?],
    joined: JoinTally? = nil, decisions: [Decision?] = []
  ) {
    self.finished = finished
    self.points = points
    self.joined = joined
    self.decisions = decisions
  }

  /// Sets a dispatch's join up as the failed run left it: the finished branches counted
  /// and never started again. The branches are then scheduled by index whether the plan
  /// has prerequisites or not, so `prerequisites` gets one (empty) list per branch. When
  /// only the join failed, every branch counts as started, so none runs, and the tally is
  /// the first run's: the dispatch joins at once.
  @usableFromInline
  func prepare(
    finished: inout [FinishedBranch<Context>?], tally: inout JoinTally,
    schedule: inout BranchSchedule, prerequisites: inout [[Int32]], ends: BranchEnds<Context>?
  ) {
    let count = finished.count
    if prerequisites.isEmpty {
      prerequisites = [[Int32]](repeating: [], count: count)
    }
    schedule = BranchSchedule(count: count, waitsForOthers: true)
    for index in 0..<min(count, self.finished.count) {
      guard let branch = self.finished[index] else { continue }
      finished[index] = branch
      tally.successes += 1
      schedule.started[index] = true
      ends?.finished(
        index, branch, decision: index < decisions.count ? decisions[index] ?? .done : .done)
    }
    if let joined {
      tally = joined
      for index in 0..<count { schedule.started[index] = true }
    }
  }
}

/// The resume points of a live run's flows, kept by the run (its ``LiveRun``) until the
/// flow that dispatched them, or the retry, takes them.
final class ResumePoints<Context: Sendable>: Sendable {
  private struct State {
    /// Each failed flow's point, by flow number, until its dispatch takes it; the
    /// top-level flow's (0) stays for a retry.
    var flows: [Int32: FlowResumePoint<Context>] = [:]
    /// A dispatch that failed in a flow, by flow number, until that flow's failure takes it.
    var dispatches: [Int32: (state: Int32, resume: DispatchResume<Context>)] = [:]
    /// The run's step limit, as the interpreter checked it.
    var stepLimit = Int.max
  }

  private let state = Lock(State())

  /// The flow `flow` failed at `state` with `context` (from before the state).
  func flowFailed(
    at state: Int32, flow: Int32, context: Context, path: RecordedPath, stepLimit: Int
  ) {
    self.state.withLock { locked in
      var dispatch: DispatchResume<Context>? = nil
      if let pending = locked.dispatches.removeValue(forKey: flow), pending.state == state {
        dispatch = pending.resume
      }
      locked.flows[flow] = FlowResumePoint(
        state: state, context: context, path: path, dispatch: dispatch)
      locked.stepLimit = stepLimit
    }
  }

  /// The dispatch `state`, in flow `flow`, failed: its branches go on as `resume` says.
  func dispatchFailed(_ state: Int32, flow: Int32, resume: DispatchResume<Context>) {
    self.state.withLock { $0.dispatches[flow] = (state, resume) }
  }

  /// Takes the failed flow's point.
  func take(flow: Int32) -> FlowResumePoint<Context>? {
    state.withLock { $0.flows.removeValue(forKey: flow) }
  }

  /// Where the run stopped, and its step limit. Whether it ended, and how, is the run's
  /// (``LiveRunStateMachine/retry()``).
  var run: (point: FlowResumePoint<Context>?, stepLimit: Int) {
    state.withLock { ($0.flows[0], $0.stepLimit) }
  }
}

/// How each branch of a live run's dispatch ended, recorded as they end: what the dispatch
/// is retried from if it fails, and what a dispatch that joined reports of the branches
/// that did not succeed.
@usableFromInline
final class BranchEnds<Context: Sendable>: Sendable {
  /// How the branches ended so far, by index.
  struct Ends {
    var finished: [FinishedBranch<Context>?]
    var points: [FlowResumePoint<Context>?]
    /// What each finished branch decided.
    var decisions: [Decision?]
    /// Whether each branch failed (or was cancelled).
    var failed: [Bool]
  }

  /// What keeps the record: the live run, or the inner run of a subflow (whose snapshots
  /// hold the dispatch, and which keeps no resume point and reports no event).
  enum Owner: Sendable {
    case live(LiveRun<Context>)
    case nested(NestedRun<Context>)
  }

  private let owner: Owner
  private let ends: Lock<Ends>

  /// The live run, when it owns the record.
  private var live: LiveRun<Context>? {
    switch owner {
    case .live(let live): live
    case .nested: nil
    }
  }

  convenience init(live: LiveRun<Context>, count: Int) {
    self.init(owner: .live(live), count: count)
  }

  init(owner: Owner, count: Int) {
    self.owner = owner
    ends = Lock(
      Ends(
        finished: Array(repeating: nil, count: count), points: Array(repeating: nil, count: count),
        decisions: Array(repeating: nil, count: count),
        failed: Array(repeating: false, count: count)
      ))
  }

  /// How the branches ended so far.
  var current: Ends { ends.withLock { $0 } }

  /// The dispatch `state` of flow `parentFlow` starts its branches from `original`, the
  /// flow's path being `path`: a snapshot sees it from now on, until ``dispatchEnded()``.
  func begin(
    dispatch state: Int32, parentFlow: Int32, original: Context, path: RecordedPath,
    stepLimit: Int
  ) {
    let dispatch = RunningDispatch(
      state: state, parentFlow: parentFlow, original: original, path: path,
      stepLimit: stepLimit, ends: self)
    switch owner {
    case .live(let live): live.dispatchBegins(dispatch)
    case .nested(let nested): nested.dispatchBegins(dispatch)
    }
  }

  /// The dispatch's branches ended: it joins, or fails, next.
  @usableFromInline
  func dispatchEnded() {
    switch owner {
    case .live(let live): live.dispatchEnded(self)
    case .nested(let nested): nested.dispatchEnded(self)
    }
  }

  /// Branch `index` finished, deciding `decision` at its final state.
  @usableFromInline
  func finished(_ index: Int, _ branch: FinishedBranch<Context>, decision: Decision) {
    ends.withLock {
      $0.finished[index] = branch
      $0.decisions[index] = decision
    }
  }

  /// Branch `index`, flow `flow`, failed or was cancelled: it is retried from where it
  /// stopped.
  @usableFromInline
  func failed(_ index: Int, flow: Int32) {
    let point = live?.resumePoints.take(flow: flow)
    ends.withLock {
      $0.points[index] = point
      $0.failed[index] = true
    }
    // A snapshot waiting for the branches may take the dispatch now (and refuse it).
    switch owner {
    case .live(let live): live.snapshotMayStand()
    case .nested(let nested): nested.root.snapshotMayStand()
    }
  }

  /// The dispatch `state`, in flow `flow`, failed: keeps how its branches go on, for the
  /// flow's resume point.
  @usableFromInline
  func keep(dispatch state: Int32, flow: Int32) {
    guard let live else { return }
    let resume = ends.withLock { ends in
      DispatchResume(finished: ends.finished, points: ends.points)
    }
    live.resumePoints.dispatchFailed(state, flow: flow, resume: resume)
  }

  /// The join of dispatch `state`, in flow `flow`, threw (a merge, or the report) after its
  /// branches met the join policy: a retry joins `branches` (those the join took, in
  /// declaration order, not a branch that finished after the quorum was met) again, with
  /// `tally`, and runs no branch.
  @usableFromInline
  func keepJoin(
    of state: Int32, flow: Int32, branches: [FinishedBranch<Context>?], tally: JoinTally
  ) {
    guard let live else { return }
    let resume = DispatchResume(
      finished: branches, points: Array(repeating: nil, count: branches.count), joined: tally)
    live.resumePoints.dispatchFailed(state, flow: flow, resume: resume)
  }

  /// The dispatch `state` joined with branches that did not succeed: reports each, in
  /// declaration order (``RunEvent/Kind/branchFailed(_:_:)`` for a failure the policy
  /// tolerated, ``RunEvent/Kind/branchSkipped(_:)``,
  /// ``RunEvent/Kind/branchCancelled(_:)``).
  @usableFromInline
  func reportOutcomes(
    of state: Int32, flow: Int32, branches: [FinishedBranch<Context>?], tally: JoinTally
  ) {
    guard let live else { return }
    var kinds: [RunEvent.Kind] = []
    for index in branches.indices where branches[index] == nil {
      if let failed = tally.failed.first(where: { $0.index == index }) {
        kinds.append(.branchFailed(index, failed.error))
      } else if tally.skipped.contains(index) {
        kinds.append(.branchSkipped(index))
      } else {
        kinds.append(.branchCancelled(index))
      }
    }
    live.report(kinds, at: state, flow: flow)
  }
}

extension Interpreter {
  /// A live run's flow failed at the cursor, with `context` from before the failed state:
  /// keeps where it stopped, for a retry. Only on the failure path of an observed run.
  @usableFromInline @inline(never)
  func keepResumePoint(
    of cursor: borrowing Cursor<Context>, context: Context, control: RunControl
  ) {
    guard let live = control.monitor as? LiveRun<Context> else { return }
    live.resumePoints.flowFailed(
      at: cursor.state, flow: cursor.flow, context: context, path: cursor.path.snapshot,
      stepLimit: stepLimit)
  }

  /// The record of how a live run's dispatch's branches end; `nil` outside a live run.
  /// A snapshot sees the dispatch through it, from the context from before the dispatch
  /// (`original`) and the dispatching flow's cursor, until its branches end.
  @usableFromInline @inline(never)
  func branchEnds(
    of control: RunControl, count: Int, dispatch state: Int32, cursor: borrowing Cursor<Context>,
    original: Context
  ) -> BranchEnds<Context>? {
    let ends: BranchEnds<Context>
    if let live = control.monitor as? LiveRun<Context> {
      ends = BranchEnds(live: live, count: count)
    } else if let nested = control.monitor as? NestedRun<Context> {
      // A dispatch in a subflow's inner run, which the run's snapshots hold.
      ends = BranchEnds(owner: .nested(nested), count: count)
    } else {
      return nil
    }
    ends.begin(
      dispatch: state, parentFlow: cursor.flow, original: original, path: cursor.path.snapshot,
      stepLimit: cursor.path.limit)
    return ends
  }

  /// Runs the top-level flow from where a failed run stopped, under a live run's control.
  @usableFromInline
  func resume(
    _ point: FlowResumePoint<Context>, cursor: inout Cursor<Context>, context: inout Context,
    topLevel control: RunControl, isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    try await raisingOnCancellation(control) { () async throws(RunError) in
      try await resume(
        point, cursor: &cursor, context: &context, control: control, isolation: isolation)
    }
  }

  /// Runs a flow from where a failed run's flow stopped: its failed state again, or its
  /// dispatch with the branches that finished kept, then on to its end.
  ///
  /// - Precondition: `cursor` was made from `point`.
  @usableFromInline
  func resume(
    _ point: FlowResumePoint<Context>, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl, isolation: (any Actor)? = nil
  ) async throws(RunError) -> Decision {
    cursor.state = point.state
    guard let dispatch = point.dispatch else {
      return try await run(
        cursor: &cursor, context: &context, control: control, isolation: isolation)
    }
    let state = point.state
    let node = graph.nodeBase[Int(state)]
    do throws(RunError) {
      while !(try enter(state, path: &cursor.path, flow: cursor.flow, control: control)) {
        try await waitWhilePaused(
          before: state, path: cursor.path, context: context, flow: cursor.flow, control: control)
      }
      try await runDispatch(
        graph.dispatches[Int(node.alternative)], at: state, cursor: &cursor,
        context: &context, control: control, resuming: dispatch)
      if control.isObserved {
        control.monitor.unsafelyUnwrapped.decided(
          state, flow: cursor.flow, outcome: .next, context: context)
      }
      if cursor.follow(.next, from: node) {
        try endFlow(at: state, path: cursor.path, control: control)
        return Outcome.next.decision
      }
    } catch {
      if control.isObserved {
        control.monitor.unsafelyUnwrapped.failed(cursor.state, flow: cursor.flow, error: error)
        keepResumePoint(of: cursor, context: context, control: control)
      }
      throw error
    }
    return try await run(cursor: &cursor, context: &context, control: control, isolation: isolation)
  }
}

extension PathRecorder {
  /// The path so far, sharing the recorder's ring: only for a flow that has stopped, whose
  /// recorder never writes again.
  var snapshot: RecordedPath {
    RecordedPath(storage: storage, mask: mask, first: first, count: count)
  }
}
