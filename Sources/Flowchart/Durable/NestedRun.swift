// Positions inside subflows: the inner run of a subflow in a live run, held and captured by
// the run's snapshots.
//
// A live run's flow that enters an asynchronous subflow (see `Interpreter.runSubflowState`)
// runs the subflow's code with a `SubflowHost` in a task-local: the run (or the inner run)
// the flow belongs to, the flow, and its position (the subflow state, the context from
// before it, its path). The subflow's code (`SubflowRun.runHosted`) then runs its chart as
// a `NestedRun`: an inner run whose controls are registered with the live run (so that a
// pause or a snapshot's barrier raises their flags too) and whose monitor keeps each inner
// flow's position while it stands: at a boundary, between two attempts, at a delay in its
// task, or in a subflow of its own (a `NestedRun` again, recursively). When the inner chart
// has a dispatch, its branches are the inner run's other flows, numbered as a live run's
// (0 for the inner run's own flow, then one per branch as it starts), and the dispatch is
// registered with the inner run (`BranchEnds` owned by it) as a live run's is with the run:
// the inner run stands in its dispatch when each branch stands, finished, or has not
// started, by the same rule as the run's own flows (`StandingFlows.of`). The run's barrier
// (`LiveRun.standingFlows`) asks it, under the run's lock and then the inner run's own
// (always in that order: an inner run never takes its parent's lock while it holds its own),
// whether it stands; each inner flow is held at its boundary like any flow of the run
// (keyed by inner run and flow), and let go when the barrier completes.
//
// An inner run is captured only when its context is `Codable` (a snapshot must encode it);
// otherwise the subflow runs as before, one state of its flow that a snapshot waits for. A
// synchronous chart's subflow runs within its state, in the synchronous loop, and is never
// held either (it has no boundary that waits).
//
// The subflow state may be an action, a condition or a multiple condition (a final subflow
// is an action: the compiler refuses a final one with exits), with or without modifiers: a
// modified state hosts each attempt from `Interpreter.runModified`, which gives the host the
// attempt's `SubflowAttempt` (its number, and the absolute deadline of its timeout), kept
// with the inner run (the attempt belongs to the inner run as a whole) and written with it.
// A map in any flow of an inner run, a dispatch branch of the inner chart included, is held
// the same way (its `MapHost` adopted by the inner run for that flow, as a subflow is).
//
// The inner run reports no events (the subflow is one state of the run's events, as
// before), only a pause: an inner flow that waits while the run is paused waits as the
// flow that runs the subflow, at the subflow state (the run reports `paused` there).

/// Where a live run's flow enters an asynchronous subflow: what the subflow's code reads to
/// run its chart as a ``NestedRun`` the run's snapshots hold.
struct SubflowHost: Sendable {
  /// The run, or the inner run, that the flow belongs to.
  let parent: any SubflowParent
  /// The subflow's attachment (its ``SubflowRun``), which only that subflow's code takes.
  let attachment: AnyObject & Sendable
  /// The flow, in the parent's numbering.
  let flow: Int32
  /// The subflow state, in the parent's chart.
  let state: Int32
  /// The flow's position: at the subflow state (entered), with the context from before it,
  /// as a `CapturedFlow` of the parent's context.
  let position: any Sendable
  /// The attempt of the subflow state that runs the subflow, and its timeout's deadline.
  var entered = SubflowAttempt.first

  /// The host of the subflow whose code the current task runs, if it runs in a live run.
  @TaskLocal static var current: SubflowHost?
}

/// The modifiers' state of the subflow (or map) state whose inner run a snapshot holds: the
/// state's attempt (from 1; above 1 only when it retries), and the absolute deadline of the
/// attempt's timeout, when it has one. What a resumed run's attempt goes on with.
struct SubflowAttempt: Sendable, Equatable {
  var attempt: Int
  var timeout: WallClockTime?

  /// The first attempt, without a timeout: a state without modifiers.
  static let first = SubflowAttempt(attempt: 1, timeout: nil)
}

/// The inner run a delay sleeping in the current task reports its deadline to, when the
/// task runs a subflow's chart as a ``NestedRun``.
enum InnerRun {
  @TaskLocal static var current: (any DelayReporting)?
}

/// A run that a flow standing in a subflow belongs to: a live run, or the inner run of a
/// subflow.
protocol SubflowParent: AnyObject, Sendable {
  /// The live run at the top.
  var root: any SnapshotRoot { get }
  /// The flow of the live run, and the subflow state of the run's chart it stands in, that
  /// this run's flows run inside; `nil` for the live run itself.
  var rootPlace: (flow: Int32, state: Int32)? { get }
  /// Flow `flow` runs `child`, standing at `position` (a `CapturedFlow` of this run's
  /// context) until ``release(_:flow:)``.
  func adopt(_ child: any StandingSubflow, flow: Int32, position: any Sendable)
  /// Flow `flow`'s subflow `child` ended.
  func release(_ child: any StandingSubflow, flow: Int32)
}

/// What the inner run of a subflow needs of the live run at the top.
protocol SnapshotRoot: AnyObject, Sendable {
  /// Keeps `control` paused whenever the run is, or a snapshot holds its flows.
  func register(_ control: RunControl)
  /// Stops pausing `control`.
  func unregister(_ control: RunControl)
  /// Something that may complete a barrier happened.
  func snapshotMayStand()
  /// Holds an inner flow, which left its position, until the snapshot asked for is taken.
  func holdInnerFlow(_ key: InnerFlowKey) async
  /// Waits while the run is paused, as flow `flow` at the subflow state `state`.
  func waitWhilePaused(before state: Int32, flow: Int32, tookPosition: Bool) async
  /// Waits while the run is paused, as flow `flow` at the subflow state `state`; an inner
  /// flow that left its position takes it back with `takingBack` under the run's lock, in
  /// the section that lets it go on. Reports ``RunEvent/Kind/paused`` and
  /// ``RunEvent/Kind/resumed`` there when `isReported`.
  func waitWhilePaused(
    before state: Int32, flow: Int32, takingBack: PositionTakeBack?, isReported: Bool
  ) async
  /// `true`, with `takingBack` done under the run's lock, when the run is not paused.
  func goesOnUnlessPaused(takingBack: PositionTakeBack) -> Bool
  /// The run clock's wall-clock time.
  var wallClockNow: @Sendable () -> WallClockTime { get }
}

/// An inner run that a snapshot's barrier asks whether it stands.
protocol StandingSubflow: AnyObject, Sendable {
  /// The inner run's flow captured, when it stands; `nil` while it moves. Called under the
  /// lock of the run that runs the subflow.
  func standing() -> (any CapturedSubflowRun)?
}

/// A subflow's inner run as a snapshot holds it: captured (a ``CapturedInnerRun``), or
/// resolved from a snapshot (a ``NestedResume``).
protocol CapturedSubflowRun: Sendable {
  /// The inner run in a snapshot's terms (its positions named by the inner chart's keys);
  /// `nil` for a map's runs, which ``mapSnapshot()`` gives.
  func snapshot() -> NestedSnapshot?
  /// The runs of the map the flow stands in, in a snapshot's terms; `nil` for a subflow.
  func mapSnapshot() -> MapSnapshot?
  /// The attempt of the subflow (or map) state, and its timeout's deadline.
  var entered: SubflowAttempt { get }
}

extension CapturedSubflowRun {
  func mapSnapshot() -> MapSnapshot? { nil }
}

/// What the run loop leaves with a run for its snapshots: a live run, or the inner run of a
/// subflow in one. Positions are `CapturedFlow` values of the run's context.
protocol SnapshotPositionKeeping: AnyObject, Sendable {
  /// Flow `flow` stands at `position`, at a boundary of a paused run or one held for a
  /// snapshot, or between two attempts.
  func keepBoundary(_ position: any Sendable, flow: Int32)
  /// Holds flow `flow`, which left its position, until the snapshot asked for is taken.
  func holdFlowForSnapshot(flow: Int32) async
  /// Flow `flow` went on from its position.
  func leftPosition(flow: Int32)
  /// Flow `flow`, which left its position between two attempts, goes on unless the run is
  /// paused: `true` when it does, its position taken back in the lock section that decided
  /// it; `false` when it waits, its position kept.
  func goesOn(flow: Int32) -> Bool
  /// Flow `flow` runs a waiting state or a delay it entered in its task, from `position`.
  func enteredWaitingState(_ position: any Sendable, flow: Int32)
}

/// A subflow's inner run in a live run: its flows' positions while they stand, for the
/// run's snapshots (see the top of this file). Its flows are numbered as a live run's: 0
/// for the inner run's own flow, then one number per dispatch branch as it starts.
final class NestedRun<Inner: Sendable>: RunMonitor, SubflowParent, StandingSubflow,
  SnapshotPositionKeeping, DelayReporting
{
  private struct Kept {
    /// Each flow's position at a boundary (or between two attempts), by flow.
    var boundaries: [Int32: CapturedFlow<Inner>] = [:]
    /// Each flow's position while it runs a delay in its task, by flow, and the delay's
    /// deadline once it sleeps.
    var waiting: [Int32: CapturedFlow<Inner>] = [:]
    var delays: [Int32: WallClockTime] = [:]
    /// The flows whose delay's deadline passed while the run was paused: each stands at
    /// its delay until the run is resumed.
    var dueDelays: Set<Int32> = []
    /// The subflow each flow stands in, with the flow's position there, by flow.
    var children: [Int32: (run: any StandingSubflow, position: CapturedFlow<Inner>)] = [:]
    /// The running dispatches of the inner run, in the order they started.
    var dispatches: [RunningDispatch<Inner>] = []
    /// Each running branch's dispatch (its state and the flow that runs it) and index, by
    /// the branch's flow.
    var branches: [Int32: (parent: Int32, dispatch: Int32, index: Int)] = [:]
    /// The number the next branch's flow gets.
    var nextFlow: Int32 = 1
  }

  let root: any SnapshotRoot
  let place: (flow: Int32, state: Int32)
  let graph: Graph<Inner>
  /// The attempt of the subflow state that runs this inner run (`.first` for a map's
  /// element).
  let entered: SubflowAttempt
  private let kept = Lock(Kept())

  init(
    root: any SnapshotRoot, place: (flow: Int32, state: Int32), graph: Graph<Inner>,
    entered: SubflowAttempt = .first
  ) {
    self.root = root
    self.place = place
    self.graph = graph
    self.entered = entered
  }

  var rootPlace: (flow: Int32, state: Int32)? { place }

  // MARK: - Standing

  func standing() -> (any CapturedSubflowRun)? {
    kept.withLock { kept -> (any CapturedSubflowRun)? in
      let now = kept.delays.isEmpty ? nil : root.wallClockNow()
      let standing = StandingFlows.of(
        graph,
        boundary: { kept.boundaries[$0] },
        waiting: { flow in
          guard var waiting = kept.waiting[flow] else { return .none }
          // A deadline that passed does not stand: the flow goes on to its next boundary.
          guard let delay = kept.delays[flow], let now,
            now < delay || kept.dueDelays.contains(flow)
          else { return .moving }
          waiting.position = .waitingUntil(delay)
          return .stands(waiting)
        },
        nested: { kept.children[$0] },
        dispatch: { flow in kept.dispatches.last { $0.parentFlow == flow } },
        branches: { flow, dispatch in
          var running: [Int: Int32] = [:]
          for (branchFlow, entry) in kept.branches
          where entry.parent == flow && entry.dispatch == dispatch {
            running[entry.index] = branchFlow
          }
          return running
        })
      switch standing {
      case .stands(let flows): return CapturedInnerRun(graph: graph, flows: flows, entered: entered)
      case .moving: return nil
      case .refused(let error): return RefusedInnerRun(error: error)
      }
    }
  }

  func adopt(_ child: any StandingSubflow, flow: Int32, position: any Sendable) {
    guard let position = position as? CapturedFlow<Inner> else { return }
    kept.withLock { $0.children[flow] = (child, position) }
  }

  func release(_ child: any StandingSubflow, flow: Int32) {
    kept.withLock { kept in
      if kept.children[flow]?.run === child { kept.children[flow] = nil }
    }
  }

  // MARK: - SnapshotPositionKeeping

  func keepBoundary(_ position: any Sendable, flow: Int32) {
    guard let position = position as? CapturedFlow<Inner> else { return }
    kept.withLock { $0.boundaries[flow] = position }
    root.snapshotMayStand()
  }

  func holdFlowForSnapshot(flow: Int32) async {
    await root.holdInnerFlow(InnerFlowKey(run: ObjectIdentifier(self), flow: flow))
  }

  func leftPosition(flow: Int32) {
    kept.withLock { kept in
      kept.boundaries[flow] = nil
      kept.waiting[flow] = nil
      kept.delays[flow] = nil
      kept.dueDelays.remove(flow)
    }
  }

  func goesOn(flow: Int32) -> Bool {
    root.goesOnUnlessPaused { [self] (_: inout LiveRunState) in leftPosition(flow: flow) }
  }

  func enteredWaitingState(_ position: any Sendable, flow: Int32) {
    guard let position = position as? CapturedFlow<Inner> else { return }
    kept.withLock { $0.waiting[flow] = position }
  }

  // MARK: - Dispatches

  /// A dispatch of the inner run starts its branches: its record, until
  /// ``dispatchEnded(_:)``.
  func dispatchBegins(_ dispatch: RunningDispatch<Inner>) {
    kept.withLock { $0.dispatches.append(dispatch) }
  }

  /// The branches of the dispatch that `ends` records ended (it joins, or fails, next).
  func dispatchEnded(_ ends: BranchEnds<Inner>) {
    kept.withLock { kept in
      guard let index = kept.dispatches.firstIndex(where: { $0.ends === ends }) else { return }
      let dispatch = kept.dispatches.remove(at: index)
      kept.branches = kept.branches.filter {
        $0.value.parent != dispatch.parentFlow || $0.value.dispatch != dispatch.state
      }
    }
  }

  // MARK: - DelayReporting

  func delayBegins(_ slot: DelaySlot, until deadline: WallClockTime) -> Int32? {
    // The flow that runs the delay in its task: the one that left its position there.
    let flow = kept.withLock { kept -> Int32? in
      guard
        let flow = kept.waiting.first(where: {
          kept.delays[$0.key] == nil && graph.records[Int($0.value.state)].attachment === slot
        })?.key
      else { return nil }
      kept.delays[flow] = deadline
      return flow
    }
    root.snapshotMayStand()
    return flow
  }

  func delayEnds(flow: Int32) {
    kept.withLock { kept in
      kept.delays[flow] = nil
      kept.dueDelays.remove(flow)
    }
  }

  func delayPassed(flow: Int32) async {
    let endsDelay: PositionTakeBack = { [self] _ in delayEnds(flow: flow) }
    if root.goesOnUnlessPaused(takingBack: endsDelay) { return }
    // The run is paused: the flow stands at its delay, due, until the run is resumed; it
    // leaves the delay in the lock section that lets it go on.
    kept.withLock { _ = $0.dueDelays.insert(flow) }
    root.snapshotMayStand()
    await root.waitWhilePaused(
      before: place.state, flow: place.flow, takingBack: endsDelay, isReported: false)
  }

  // MARK: - RunMonitor: the inner run reports nothing but its pauses.

  func register(_ control: RunControl) { root.register(control) }
  func unregister(_ control: RunControl) { root.unregister(control) }
  func entered(_ state: Int32, flow: Int32) {}
  func decided<C>(_ state: Int32, flow: Int32, outcome: Outcome, context: borrowing C) {}
  func decided<C>(
    _ state: Int32, flow: Int32, key: any Hashable & Sendable, context: borrowing C
  ) {}
  func failed(_ state: Int32, flow: Int32, error: RunError) {}

  func waitWhilePaused(before state: Int32, flow: Int32, tookPosition: Bool) async {
    // The inner flow takes back its position under the run's lock as it is let go on (the
    // run's lock, then this one's, as the barrier takes them).
    var takingBack: PositionTakeBack? = nil
    if tookPosition { takingBack = { [self] (_: inout LiveRunState) in leftPosition(flow: flow) } }
    await root.waitWhilePaused(
      before: place.state, flow: place.flow, takingBack: takingBack, isReported: true)
  }

  func dispatchStarted(_ state: Int32, flow: Int32) {}

  func branchStarted<C>(_ index: Int, of state: Int32, from flow: Int32, context: borrowing C)
    -> Int32
  {
    kept.withLock { kept in
      let branch = kept.nextFlow
      kept.nextFlow += 1
      if kept.dispatches.contains(where: { $0.parentFlow == flow && $0.state == state }) {
        kept.branches[branch] = (flow, state, index)
      }
      return branch
    }
  }

  func branchEnded(_ index: Int, of state: Int32, flow: Int32) {
    kept.withLock { kept in
      kept.branches[flow] = nil
      kept.boundaries[flow] = nil
      kept.waiting[flow] = nil
      kept.delays[flow] = nil
      kept.dueDelays.remove(flow)
    }
    // A snapshot waiting for the branches may take the dispatch now.
    root.snapshotMayStand()
  }

  func dispatchJoined(_ state: Int32, flow: Int32) {}
  func modifierEvent(_ kind: RunEvent.Kind, at state: Int32, flow: Int32) {}
  func parks(at state: Int32, flow: Int32, until deadline: WallClockTime?) -> Bool { false }
}

/// A flow of a subflow's inner run held for a snapshot: the inner run, and the flow in
/// its numbering.
struct InnerFlowKey: Hashable, Sendable {
  let run: ObjectIdentifier
  let flow: Int32
}

/// An inner run's flows captured: where each stands, on its chart.
struct CapturedInnerRun<Inner: Sendable>: CapturedSubflowRun {
  let graph: Graph<Inner>
  /// The inner run's flows: its own flow first, each dispatch branch after the flow that
  /// dispatched it.
  let flows: [CapturedEntry<Inner>]
  /// The attempt of the subflow state that runs the inner run, and its timeout's deadline:
  /// the inner run's as a whole, whichever of its flows stand where.
  let entered: SubflowAttempt

  /// The inner run's own flow.
  var flow: CapturedFlow<Inner> { flows[0].flow }

  init(graph: Graph<Inner>, flows: [CapturedEntry<Inner>], entered: SubflowAttempt = .first) {
    self.graph = graph
    self.flows = flows
    self.entered = entered
  }

  init(graph: Graph<Inner>, flow: CapturedFlow<Inner>, entered: SubflowAttempt = .first) {
    self.init(
      graph: graph, flows: [CapturedEntry(flow: flow, parent: nil, branch: 0)], entered: entered)
  }

  func snapshot() -> NestedSnapshot? {
    let structure = graph.structure
    let keys = structure.keys
    var shapes: [String: StateShape] = [:]
    var records: [NestedSnapshot.Record] = []
    records.reserveCapacity(flows.count)
    for (number, entry) in flows.enumerated() {
      let flow = entry.flow
      let key = keys[Int(flow.state)]
      shapes[key] = structure.shapes[Int(flow.state)]
      var attempt = 1
      var deadline: WallClockTime? = nil
      var position = SnapshotPosition.entering(key)
      var inner: NestedSnapshot? = nil
      var map: MapSnapshot? = nil
      switch flow.position {
      case .waitingUntil(let until):
        position = .waitingUntil(key)
        deadline = until
      case .retrying(let next, let until):
        attempt = next
        deadline = until
      case .inSubflow(let child):
        inner = child.snapshot()
        map = child.mapSnapshot()
        guard inner != nil || map != nil else { return nil }
      case .dispatching: position = .dispatching(key)
      case .finished(let decision): position = .finished(key, decision)
      case .entering, .waitingForInput, .notEntered: break
      }
      var branch: NestedSnapshot.Branch? = nil
      if let parent = entry.parent {
        branch = NestedSnapshot.Branch(
          parent: Int32(parent), dispatch: keys[Int(flows[parent].flow.state)],
          index: entry.branch)
      }
      records.append(
        NestedSnapshot.Record(
          flow: Int32(number), position: position, context: .live(flow.context),
          path: flow.path.map { keys[Int($0)] }, stepCount: flow.stepCount, attempt: attempt,
          deadline: deadline, branch: branch, inner: inner, map: map))
    }
    let top = records[0]
    return NestedSnapshot(
      fingerprint: structure.fingerprint, position: top.position, context: top.context,
      path: top.path, stepCount: top.stepCount, attempt: top.attempt, deadline: top.deadline,
      shapes: shapes, inner: top.inner, map: top.map, entered: entered,
      branches: Array(records.dropFirst()))
  }
}

extension LiveRun: SubflowParent, SnapshotRoot, SnapshotPositionKeeping {
  var root: any SnapshotRoot { self }
  var rootPlace: (flow: Int32, state: Int32)? { nil }

  func adopt(_ child: any StandingSubflow, flow: Int32, position: any Sendable) {
    state.withLock { $0.snapshots.nested[flow] = (child, position) }
  }

  func release(_ child: any StandingSubflow, flow: Int32) {
    state.withLock { locked in
      if locked.snapshots.nested[flow]?.run === child {
        locked.snapshots.nested[flow] = nil
      }
    }
  }

  func holdInnerFlow(_ key: InnerFlowKey) async {
    await holdForSnapshot(in: \.innerHolders, key: key)
  }

  func keepBoundary(_ position: any Sendable, flow: Int32) {
    guard let position = position as? CapturedFlow<Context> else { return }
    reachedBoundary(position, flow: flow)
  }

  func holdFlowForSnapshot(flow: Int32) async {
    await holdForSnapshot(flow: flow)
  }

  func enteredWaitingState(_ position: any Sendable, flow: Int32) {
    guard let position = position as? CapturedFlow<Context> else { return }
    enteredWaitingState(position, flow: flow)
  }
}

extension Interpreter {
  /// Runs the asynchronous subflow `state`, which a flow of a live run entered, with a
  /// ``SubflowHost`` that lets its code run the subflow's chart as a ``NestedRun``, whose
  /// positions the run's snapshots hold. Only on an observed flow's path.
  @usableFromInline @inline(never)
  func runSubflowState(
    _ node: Node, at state: Int32, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) async throws(RunError) -> Outcome {
    guard let host = subflowHost(at: state, cursor: cursor, context: context, control: control)
    else {
      return try await runAsynchronous(
        node, at: state, cursor: &cursor, context: &context, control: control)
    }
    let outcome = await SubflowHost.$current.withValue(host) {
      () async -> Result<Outcome, RunError> in
      do throws(RunError) {
        return .success(
          try await runAsynchronous(
            node, at: state, cursor: &cursor, context: &context, control: control))
      } catch {
        return .failure(error)
      }
    }
    return try outcome.get()
  }

  /// The host of the subflow (or map) `state`, which flow `cursor` of a live run entered
  /// with `context`, at attempt `entered`; `nil` when the state is no subflow whose inner
  /// run a snapshot can hold, or the flow's run is not one a subflow can be hosted in.
  func subflowHost(
    at state: Int32, cursor: borrowing Cursor<Context>, context: Context, control: RunControl,
    entered: SubflowAttempt = .first
  ) -> SubflowHost? {
    guard let parent = control.monitor as? any SubflowParent,
      let attachment = graph.records[Int(state)].attachment,
      attachment is any ResumableSubflow || attachment is any ResumableMap
    else { return nil }
    var host = SubflowHost(
      parent: parent, attachment: attachment, flow: cursor.flow, state: state,
      position: CapturedFlow(.entering, at: state, path: cursor.path, context: context))
    host.entered = entered
    return host
  }

  /// Whether `state` is a subflow: its flow runs it with ``runSubflowState(_:at:cursor:context:control:)``
  /// in a live run.
  @usableFromInline
  func isSubflow(_ state: Int32) -> Bool {
    let kind = graph.records[Int(state)].kind
    return kind == .subflow || kind == .map
  }
}
