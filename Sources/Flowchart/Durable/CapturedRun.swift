// What a live run's snapshot is made from, under the run's lock, before it becomes a
// `RunSnapshot`: each flow's position with state numbers (`CapturedFlow`), the flows of a run
// in the order a snapshot writes them (`CapturedEntry`, `CapturedRun`), and the dispatches
// whose branches run (`RunningDispatch`). See `LiveRun+Snapshot.swift` for how a run is
// captured, and `StandingFlows.swift` for when.

/// Where one flow stands, with state numbers: what a snapshot is made from.
struct CapturedFlow<Context: Sendable>: Sendable {
  enum Position: Sendable {
    case entering, waitingForInput
    /// Entered a delay, and waits until the wall-clock instant.
    case waitingUntil(WallClockTime)
    /// Between two attempts of a retried state it entered: attempt `attempt` runs next,
    /// once the backoff's wall-clock deadline has passed.
    case retrying(attempt: Int, until: WallClockTime)
    /// Entered the dispatch at `state`, whose branches run; the context is the one from
    /// before the dispatch.
    case dispatching
    case finished(Decision)
    case notEntered
    /// Entered the subflow at `state`, whose inner run stands where the capture says; the
    /// context is the one from before the subflow.
    case inSubflow(any CapturedSubflowRun)
  }

  var position: Position
  var state: Int32
  var context: Context
  var path: [Int32]
  var stepCount: Int
  var stepLimit: Int

  /// The flow at a boundary or parked: at `state` (to enter, or entered when parked).
  init(_ position: Position, at state: Int32, path: borrowing PathRecorder, context: Context) {
    self.position = position
    self.state = state
    self.context = context
    self.path = path.states
    stepCount = path.count
    stepLimit = path.limit
  }

  init(
    _ position: Position, at state: Int32, context: Context, path: [Int32], stepCount: Int,
    stepLimit: Int
  ) {
    self.position = position
    self.state = state
    self.context = context
    self.path = path
    self.stepCount = stepCount
    self.stepLimit = stepLimit
  }
}

/// One flow of a captured run: where it stands, and the dispatch branch it runs.
struct CapturedEntry<Context: Sendable>: Sendable {
  var flow: CapturedFlow<Context>
  /// The index, among the captured entries, of the flow whose dispatch this flow is a
  /// branch of; `nil` for the top-level flow.
  var parent: Int?
  /// The branch's index in its dispatch, in declaration order; 0 for the top-level flow.
  var branch: Int
}

/// A live run captured under its lock: its flows (the top-level flow first, each branch
/// after the flow that dispatched it), its mailbox and its status.
struct CapturedRun<Context: Sendable>: Sendable {
  var flows: [CapturedEntry<Context>]
  var mailbox: [(state: Int32, value: any Sendable)]
  var status: RunStatus
  var id: RunID
  var chart: String

  /// The top-level flow.
  var flow: CapturedFlow<Context> { flows[0].flow }

  init(
    flows: [CapturedEntry<Context>], mailbox: [(state: Int32, value: any Sendable)],
    status: RunStatus, id: RunID, chart: String
  ) {
    self.flows = flows
    self.mailbox = mailbox
    self.status = status
    self.id = id
    self.chart = chart
  }

  /// A run of one flow, the top-level flow.
  init(
    flow: CapturedFlow<Context>, mailbox: [(state: Int32, value: any Sendable)],
    status: RunStatus, id: RunID, chart: String
  ) {
    self.init(
      flows: [CapturedEntry(flow: flow, parent: nil, branch: 0)], mailbox: mailbox,
      status: status, id: id, chart: chart)
  }
}

/// A dispatch of a live run while its branches run: what a snapshot of its flow holds.
final class RunningDispatch<Context: Sendable>: Sendable {
  /// The dispatch state.
  let state: Int32
  /// The flow that runs it.
  let parentFlow: Int32
  /// The context from before the dispatch.
  let original: Context
  /// The dispatching flow's path, the dispatch included; read only while the dispatch has
  /// not joined (the flow writes it again after the join).
  let path: RecordedPath
  /// The dispatching flow's step limit.
  let stepLimit: Int
  /// How the branches ended so far.
  let ends: BranchEnds<Context>

  init(
    state: Int32, parentFlow: Int32, original: Context, path: RecordedPath, stepLimit: Int,
    ends: BranchEnds<Context>
  ) {
    self.state = state
    self.parentFlow = parentFlow
    self.original = original
    self.path = path
    self.stepLimit = stepLimit
    self.ends = ends
  }
}
