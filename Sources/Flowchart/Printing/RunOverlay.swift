/// What a run did, as a diagram draws it over its chart: the states it entered (how often,
/// for how long), the exits it took, where it failed or was cancelled and why, how each
/// dispatch's branches ended, and when each state started and how long it took.
///
/// Make one from a live run's log (``init(log:)``, the handle's ``RunHandle/log`` of a run
/// started with `isLogged: true`), from its events (``record(_:)``), or step by
/// step from anything else that knows what happened (``record(_:state:flow:time:)``:
/// `FlowchartFiles` reads a run log file back this way). Then draw it:
///
/// ```swift
/// let handle = chart.start(with: context, isLogged: true)
/// _ = try? await handle.result
/// let run = RunOverlay(log: handle.log)
/// print(chart.mermaidDescription(showing: run))
/// print(chart.dotDescription(showing: run))
/// ```
///
/// An overlay stays small however long the run: counters per state and per exit, which grow
/// with the chart, and the newest ``spanLimit`` spans of the timeline.
public struct RunOverlay: Sendable {
  /// How the run ended.
  public enum Ending: Sendable, Hashable {
    /// The run reached a final state of its top level.
    case finished
    /// The run stopped with an error other than a cancellation.
    case failed
    /// The run was cancelled.
    case cancelled
    /// The overlay has not seen the run end (yet).
    case unfinished
  }

  /// Where and why a flow stopped: a state's failure, or the run's.
  public struct Failure: Sendable, Hashable {
    /// The state where it stopped; `nil` for a run that failed before it reached a state.
    public var state: StateID?
    /// The kind of error, as ``RunError/Kind`` describes it: `thrown`, `cancelled`, …
    public var kind: String
    /// Why, in words: the run error's reason, without its path.
    public var reason: String

    /// A failure at `state`, of `kind`, for `reason`.
    public init(state: StateID?, kind: String, reason: String) {
      self.state = state
      self.kind = kind
      self.reason = reason
    }

    /// The failure `error` tells: its state, its kind, and its reason without the path.
    public init(_ error: RunError) {
      self.init(state: error.state, kind: error.kind.description, reason: error.reason)
    }

    /// Whether it is a cancellation.
    public var isCancellation: Bool { kind == RunError.Kind.cancelled.description }
  }

  /// What one state did over the run.
  public struct StateMarks: Sendable, Hashable {
    /// How many times a flow entered it.
    public var visits = 0
    /// How many times its code failed: attempts retried, failures caught, and failures that
    /// stopped the flow.
    public var failures = 0
    /// How long it took in all, from each entry to its decision or failure.
    public var time = Duration.zero
    /// When a flow first entered it, since the run started.
    public var firstEntered: Duration?
    /// The last failure that stopped a flow here (not one a retry or a catch route took).
    public var stop: Failure?

    /// Marks of a state the run has not entered.
    public init() {}
  }

  /// How the branches of one dispatch ended, over every time the run entered it.
  public struct BranchTally: Sendable, Hashable {
    /// Branches that reached a final state.
    public var finished = 0
    /// Branches that stopped with an error (tolerated by the join policy or not).
    public var failed = 0
    /// Branches that never started because a prerequisite did not succeed.
    public var skipped = 0
    /// Branches cancelled (or never started) because the join policy's quorum was met, or
    /// because the run was cancelled.
    public var cancelled = 0
    /// How many times the dispatch joined its branches (and went on).
    public var joins = 0
    /// Branches that started (whatever their end).
    public var started = 0
    /// Branches cancelled before they started, among ``cancelled``.
    var cancelledBeforeStart = 0

    /// A tally of no branch.
    public init() {}
  }

  /// How the elements of one map ended, over every time the run entered it.
  public struct MapTally: Sendable, Hashable {
    /// Elements whose run reached a final state.
    public var finished = 0
    /// Elements whose run failed (tolerated by the map or not).
    public var failed = 0
    /// Elements whose run never started: the map stopped or was cancelled first.
    public var skipped = 0

    /// A tally of no element.
    public init() {}
  }

  /// One step of a flow through a state, for the timeline.
  public struct Span: Sendable, Hashable {
    /// How a span ended.
    public enum Ending: Sendable, Hashable {
      /// The state decided, and its flow went on (or ended there).
      case decided
      /// The state failed; a retry, a catch route or the join policy may have gone on.
      case failed
      /// The state was cancelled.
      case cancelled
      /// The overlay saw no end: the run stopped (or was read) while the state ran.
      case open
    }
    /// The state.
    public var state: StateID
    /// The flow: 0 for the top level, a branch's flow number otherwise.
    public var flow: Int
    /// When the flow entered the state, since the run started.
    public var start: Duration
    /// How long the state took; zero for an open span.
    public var duration: Duration
    /// How it ended.
    public var ending: Ending

    /// A span of `state` in `flow`.
    public init(state: StateID, flow: Int, start: Duration, duration: Duration, ending: Ending) {
      self.state = state
      self.flow = flow
      self.start = start
      self.duration = duration
      self.ending = ending
    }
  }

  /// One arrow a run followed: from a state, by its exit (when known), to a state.
  public struct Step: Sendable, Hashable {
    /// The state the arrow leaves.
    public var from: StateID
    /// The exit taken, when the source says which (`nil`: whichever exit leads to `to`).
    public var label: Exit.Label?
    /// The state the arrow leads to.
    public var to: StateID
    /// Whether the arrow is a catch route rather than an exit.
    public var isCatch: Bool

    /// The arrow from `from` by `label` to `to`.
    public init(from: StateID, label: Exit.Label?, to: StateID, isCatch: Bool = false) {
      self.from = from
      self.label = label
      self.to = to
      self.isCatch = isCatch
    }
  }

  /// Something that happened at a state, as ``record(_:state:flow:time:)`` takes it: the
  /// parts of a ``RunEvent`` an overlay draws, for sources that have no event values (a
  /// run log read back from a file).
  public enum Happening: Sendable, Hashable {
    /// A flow entered the state.
    case entered
    /// The state decided: the exit it takes (`.next` for `done`), or `nil` when not known.
    case decided(Exit.Label?)
    /// The state's flow stopped there with an error.
    case failed(Failure)
    /// An attempt of the state's code failed and will be retried.
    case attemptFailed
    /// The state's code failed and its catch route goes on at `target`.
    case caught(target: StateID)
    /// A branch (its position from zero) of the dispatch state started, as flow `flow`.
    case branchStarted(Int)
    /// A branch of the dispatch state reached a final state.
    case branchEnded(Int)
    /// A branch of the dispatch state failed, and the join policy tolerated it.
    case branchFailed(Int)
    /// A branch of the dispatch state never started: a prerequisite did not succeed.
    case branchSkipped(Int)
    /// A branch of the dispatch state was cancelled because the quorum was met.
    case branchCancelled(Int)
    /// Every branch of the dispatch state ended and the dispatch joined them.
    case dispatchJoined
    /// The map state's elements ended: how many finished, failed and were skipped.
    case mapEnded(finished: Int, failed: Int, skipped: Int)
    /// The run finished at the state, a final state of the top level.
    case runFinished
    /// The run stopped with an error (`failure.state` may be `nil`).
    case runFailed(Failure)
  }

  /// Whether a drawing shows the overlay as coverage (what a set of runs took, as
  /// FlowchartTesting's `Coverage` records it) rather than one run: labels then show no
  /// visits, times or counts, and each exit never taken from a state that was entered is
  /// marked as a gap (red and dashed, class `gap`) rather than faded.
  public var marksGaps = false
  /// How the run ended, as far as the overlay saw.
  public var ending = Ending.unfinished
  /// Why the run stopped, for a run that failed or was cancelled.
  public var failure: Failure?
  /// What each state the run entered did, by state.
  public var states: [StateID: StateMarks] = [:]
  /// How many times the run followed each arrow.
  public var steps: [Step: Int] = [:]
  /// The final states where flows ended (the run, or a dispatch's branch), and how often.
  public var flowEnds: [StateID: Int] = [:]
  /// How each dispatch's branches ended, by dispatch.
  public var branches: [StateID: BranchTally] = [:]
  /// How each map's elements ended, by map, for a source that says it
  /// (``Happening/mapEnded(finished:failed:skipped:)``).
  public var maps: [StateID: MapTally] = [:]
  /// The newest spans of the timeline, oldest first: at most ``spanLimit``.
  public private(set) var spans: [Span] = []
  /// How many earlier spans the overlay did not keep.
  public private(set) var droppedSpanCount = 0
  /// The most spans the overlay keeps.
  public let spanLimit: Int

  /// What each running flow is doing.
  private var flows: [Int: FlowPlace] = [:]
  /// The branches of each dispatch running now, by dispatch and position: their flow, and
  /// whether their end was counted.
  private var running: [StateID: [Int: (flow: Int, counted: Bool)]] = [:]

  /// Where a flow is.
  private struct FlowPlace {
    /// The state it is in, and when it entered it; `nil` between states.
    var current: (state: StateID, start: Duration)?
    /// The arrow the flow takes next, from the state it left.
    var leaving: (from: StateID, label: Exit.Label?, isCatch: Bool)?
    /// The last state it entered.
    var last: StateID?
    /// The dispatch and position, for a branch's flow.
    var branch: (dispatch: StateID, index: Int)?
  }

  /// The standard number of spans kept: 10,000.
  public static var standardSpanLimit: Int { 10_000 }

  /// An overlay of nothing yet, keeping the newest `spanLimit` spans.
  public init(spanLimit: Int = standardSpanLimit) {
    self.spanLimit = max(spanLimit, 0)
  }

  /// What a live run's log saw: the log keeps an overlay as it goes, over every event, kept
  /// as a line or not.
  public init(log: RunLog) {
    self = log.overlay
  }

  /// The overlay of `events`, in the order a run reported them.
  public init(events: some Sequence<RunEvent>, spanLimit: Int = standardSpanLimit) {
    self.init(spanLimit: spanLimit)
    for event in events { record(event) }
  }

  /// Adds what `event` says.
  public mutating func record(_ event: RunEvent) {
    let happening: Happening
    let state = event.state
    switch event.kind {
    case .stateEntered: happening = .entered
    case .stateDecided(let decision): happening = .decided(Self.label(of: decision))
    case .stateFailed(let error): happening = .failed(Self.failure(error))
    case .attemptFailed: happening = .attemptFailed
    case .caught(_, let target, _): happening = .caught(target: target)
    case .branchStarted(let index): happening = .branchStarted(index)
    case .branchEnded(let index): happening = .branchEnded(index)
    case .branchFailed(let index, _): happening = .branchFailed(index)
    case .branchSkipped(let index): happening = .branchSkipped(index)
    case .branchCancelled(let index): happening = .branchCancelled(index)
    case .dispatchJoined: happening = .dispatchJoined
    case .mapEnded(let finished, let failed, let skipped):
      happening = .mapEnded(finished: finished, failed: failed, skipped: skipped)
    case .runFinished: happening = .runFinished
    case .runFailed(let error): happening = .runFailed(Self.failure(error))
    case .runStarted, .dispatchStarted, .waitingForInput, .waitingUntil, .paused, .resumed,
      .retrying:
      return
    }
    record(happening, state: state, flow: event.flow, time: event.time)
  }

  /// The exit a decision takes: `.next` for `done`, `.yes`, `.no`, and a multiple
  /// condition's key as the printed tree shows it (`default` for its default exit).
  public static func label(of decision: Decision) -> Exit.Label? {
    if decision == .yes { return .yes }
    if decision == .no { return .no }
    if decision == .done { return .next }
    guard let key = decision.key else { return nil }
    if let text = key as? String { return text == "default" ? .default : .key(text) }
    return .key(DisplayText.key(key))
  }

  /// The failure of `error`.
  static func failure(_ error: RunError) -> Failure { Failure(error) }

  /// Adds that `happening` happened at `state` (the dispatch, for a branch's happening), in
  /// flow `flow` (for ``Happening/branchStarted(_:)``, the branch's new flow), `time` after
  /// the run started.
  public mutating func record(_ happening: Happening, state: StateID?, flow: Int, time: Duration) {
    switch happening {
    case .runFailed(let failure):
      ending = failure.isCancellation ? .cancelled : .failed
      self.failure = failure
      closeOpenSpans(at: time, cancelled: failure.isCancellation)
      flows = [:]
      return
    case .runFinished:
      ending = .finished
      if let state { flowEnds[state, default: 0] += 1 }
      flows[flow] = nil
      return
    case .entered, .decided, .failed, .attemptFailed, .caught, .branchStarted, .branchEnded,
      .branchFailed, .branchSkipped, .branchCancelled, .dispatchJoined, .mapEnded:
      break
    }
    guard let state else { return }
    switch happening {
    case .entered:
      var marks = states[state] ?? StateMarks()
      marks.visits += 1
      marks.firstEntered = min(marks.firstEntered ?? time, time)
      states[state] = marks
      var place = flows[flow] ?? FlowPlace()
      if let leaving = place.leaving {
        steps[
          Step(from: leaving.from, label: leaving.label, to: state, isCatch: leaving.isCatch),
          default: 0] += 1
      }
      place.leaving = nil
      place.current = (state, time)
      place.last = state
      flows[flow] = place
    case .decided(let label):
      let took = close(flow: flow, state: state, at: time, ending: .decided)
      states[state, default: StateMarks()].time += took
      flows[flow, default: FlowPlace()].leaving = (state, label, false)
    case .failed(let failure):
      let took = close(
        flow: flow, state: state, at: time,
        ending: failure.isCancellation ? .cancelled : .failed)
      var marks = states[state] ?? StateMarks()
      marks.failures += 1
      marks.time += took
      marks.stop = failure
      states[state] = marks
      if let branch = flows[flow]?.branch {
        count(branch, failure.isCancellation ? \.cancelled : \.failed)
      }
      if flow != 0 { flows[flow] = nil }
      if running[state] != nil { running[state] = nil }
    case .attemptFailed:
      states[state, default: StateMarks()].failures += 1
    case .caught(let target):
      let took = close(flow: flow, state: state, at: time, ending: .failed)
      states[state, default: StateMarks()].failures += 1
      states[state, default: StateMarks()].time += took
      _ = target
      flows[flow, default: FlowPlace()].leaving = (state, nil, true)
    case .branchStarted(let index):
      branches[state, default: BranchTally()].started += 1
      running[state, default: [:]][index] = (flow, false)
      var place = FlowPlace()
      place.leaving = (state, .branch(index), false)
      place.branch = (state, index)
      flows[flow] = place
    case .branchEnded(let index):
      // Reported in the branch's flow when it carries the branch's number; look it up by
      // position otherwise.
      let branchFlow = running[state]?[index]?.flow ?? flow
      if let last = flows[branchFlow]?.last { flowEnds[last, default: 0] += 1 }
      count((state, index), \.finished)
      flows[branchFlow] = nil
    case .branchFailed(let index):
      count((state, index), \.failed)
    case .branchSkipped:
      branches[state, default: BranchTally()].skipped += 1
    case .branchCancelled(let index):
      if running[state]?[index] == nil {
        branches[state, default: BranchTally()].cancelled += 1
        branches[state, default: BranchTally()].cancelledBeforeStart += 1
      } else {
        count((state, index), \.cancelled)
      }
    case .dispatchJoined:
      branches[state, default: BranchTally()].joins += 1
      if let ended = running[state] {
        for (_, branch) in ended where !branch.counted { flows[branch.flow] = nil }
      }
      running[state] = nil
    case .mapEnded(let finished, let failed, let skipped):
      var tally = maps[state] ?? MapTally()
      tally.finished += finished
      tally.failed += failed
      tally.skipped += skipped
      maps[state] = tally
    case .runFailed, .runFinished:
      break
    }
  }

  /// Counts the end of the branch at `index` of `dispatch` under `tally`, once per start.
  private mutating func count(
    _ branch: (dispatch: StateID, index: Int), _ tally: WritableKeyPath<BranchTally, Int>
  ) {
    if let entry = running[branch.dispatch]?[branch.index] {
      guard !entry.counted else { return }
      running[branch.dispatch]?[branch.index]?.counted = true
    }
    branches[branch.dispatch, default: BranchTally()][keyPath: tally] += 1
  }

  /// Ends the span `flow` has open at `state`, and returns how long it took.
  private mutating func close(
    flow: Int, state: StateID, at time: Duration, ending: Span.Ending
  ) -> Duration {
    guard let current = flows[flow]?.current, current.state == state else { return .zero }
    flows[flow]?.current = nil
    let took = time - current.start
    keep(Span(state: state, flow: flow, start: current.start, duration: took, ending: ending))
    return took
  }

  /// Ends every open span as the run stops at `time`.
  private mutating func closeOpenSpans(at time: Duration, cancelled: Bool) {
    for (flow, place) in flows.sorted(by: { $0.key < $1.key }) {
      guard let current = place.current else { continue }
      keep(
        Span(
          state: current.state, flow: flow, start: current.start,
          duration: time - current.start, ending: cancelled ? .cancelled : .open))
    }
  }

  /// Keeps `span` among the newest.
  private mutating func keep(_ span: Span) {
    guard spanLimit > 0 else {
      droppedSpanCount += 1
      return
    }
    if spans.count == spanLimit {
      // Drops the oldest half at once, so that keeping a span costs O(1) amortized.
      let drop = max(spanLimit / 2, 1)
      spans.removeFirst(drop)
      droppedSpanCount += drop
    }
    spans.append(span)
  }
}
