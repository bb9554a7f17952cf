/// Something that happened in a live run, as its ``RunHandle/events(bufferingNewest:)``
/// stream and its ``RunObserver`` report it.
///
/// Events come in order for each flow of the run (the top level, and each dispatch branch,
/// numbered by ``flow``): a flow reports each state as it enters it, then what it decided
/// or how it failed, before it enters the next. Events of different branches of a dispatch
/// interleave as the branches run.
///
/// ```swift
/// for await event in handle.events() {
///   print(event)  // 0.000412s #2 'Lift weights' entered
/// }
/// ```
public struct RunEvent: Sendable, CustomStringConvertible {
  /// What happened.
  ///
  /// Later versions add kinds (such as waiting for input), so a `switch` over a kind needs
  /// a `default:` clause.
  public enum Kind: Sendable {
    /// The run started, at ``RunEvent/state``.
    case runStarted
    /// The flow is about to run the state's code.
    case stateEntered
    /// The state's code returned and decided: ``Decision/done`` for an action or a
    /// dispatch, ``Decision/yes`` or ``Decision/no`` for a condition, a key for a multiple
    /// condition. A final multiple condition reports the key it decided; a multiple
    /// condition that is not final reports the key of the exit it took as the printed tree
    /// shows it (a `String`, `default` for its default exit).
    case stateDecided(Decision)
    /// The flow stopped at the state: its code threw, the run was cancelled or exceeded
    /// its step limit there, or (for a dispatch) one of its branches failed.
    case stateFailed(RunError)
    /// The dispatch state starts its branches.
    case dispatchStarted
    /// A branch of the dispatch state starts, with its position among the dispatch's
    /// branches (from zero); ``RunEvent/flow`` is the branch's new flow number.
    case branchStarted(Int)
    /// The branch (its position from zero) of the dispatch state reached a final state.
    case branchEnded(Int)
    /// Every branch of the dispatch state ended, and their contexts were folded back.
    case dispatchJoined
    /// The flow waits at the state, a waiting state, for a value sent with
    /// ``RunHandle/send(_:to:)-(_,String)``.
    case waitingForInput
    /// The flow waits at the state, a ``Delay``, until this time on the run's clock (see
    /// ``RunHandle/delays``).
    case waitingUntil(WallClockTime)
    /// The flow waits, paused, before entering the state.
    case paused
    /// The flow, resumed, goes on to enter the state.
    case resumed
    /// The run ended at the state, a final state, which decided this; the whole result is
    /// the handle's ``RunHandle/result``.
    case runFinished(Decision)
    /// The run stopped with an error.
    case runFailed(RunError)
    /// An attempt (numbered from 1) of the state's code failed, for `reason`, and the
    /// state will retry it (see ``FlowComponent/retry(_:backoff:if:fileID:line:)``); the
    /// last attempt's failure is reported as the state's failure or catch instead.
    case attemptFailed(Int, reason: String)
    /// The state starts attempt `n` (from 2) of its code after waiting the backoff's delay.
    case retrying(Int, after: Duration)
    /// The state's code failed for `reason`, and a catch route took the error: the flow
    /// goes on at `target`, named `targetName` (see ``FlowComponent/catch(goTo:fileID:line:_:)``).
    case caught(reason: String, target: StateID, targetName: String)
    /// The branch (its position from zero) of the dispatch state failed with the error,
    /// and the dispatch's join policy tolerated it: its changes were dropped. Reported when
    /// the dispatch joins, just before ``dispatchJoined``, in the dispatching flow.
    case branchFailed(Int, RunError)
    /// The branch (its position from zero) of the dispatch state never started: a
    /// prerequisite failed or was skipped. Reported when the dispatch joins.
    case branchSkipped(Int)
    /// The branch (its position from zero) of the dispatch state was cancelled, or never
    /// started, because the join policy's quorum was met. Reported when the dispatch joins.
    case branchCancelled(Int)
    /// The state, a map, ended its elements' runs: `finished` of them finished, `failed`
    /// failed (those the map tolerated, and the one that stopped it), and `skipped` never
    /// started or were cancelled when the map stopped. Reported when the map's elements are
    /// done, before the state's own decision or failure; only by live runs.
    case mapEnded(finished: Int, failed: Int, skipped: Int)
  }

  /// What happened.
  public var kind: Kind { details.source.kind(of: record, payload: details.payload) }
  /// The state it happened at; `nil` only for a run that failed before it reached a state
  /// (an invalid step limit).
  public var state: StateID? { record.state >= 0 ? StateID(record.state) : nil }
  /// The name of ``state``; empty when ``state`` is `nil`.
  public var stateName: String {
    record.state >= 0 ? details.source.stateName(of: record.state) : ""
  }
  /// The flow it happened in: 0 for the run's top-level flow, then one number per dispatch
  /// branch, in the order the branches start.
  public var flow: Int { Int(record.flow) }
  /// When it happened, as time since the run started, by the run's clock (monotonic: a
  /// `ContinuousClock` unless the run was started with another).
  public var time: Duration { record.time }

  /// The event as the run recorded it: plain values, copied without reference counting.
  let record: EventRecord
  /// Where the rest of the event comes from: the run, for the kind's payload and the state's
  /// name, which are made only when read.
  let details: EventDetails

  init(record: EventRecord, details: EventDetails) {
    self.record = record
    self.details = details
  }

  /// `0.000412s #2 'Lift weights' entered`: the time, the state and what happened, with
  /// the flow when it is a branch's. A branch with a name is named (`branch 'Stock'
  /// started`); one without is numbered from 1 (`branch 2 started`).
  public var description: String {
    let place = state.map { "\($0) \(DisplayText.quoted(name: stateName))" } ?? "-"
    let flowText = flow == 0 ? "" : " [flow \(flow)]"
    return "\(time) \(place)\(flowText) \(kind.description(branch: branchText))"
  }

  /// The branch (its position from zero) of the event's dispatch, as messages show it:
  /// `branch 'Stock'` when it has a name, `branch 2` otherwise.
  func branchText(_ index: Int) -> String {
    guard record.state >= 0,
      let name = details.source.checkedBranchName(ofDispatch: record.state, branch: index)
    else { return "branch \(index + 1)" }
    return "branch \(DisplayText.quoted(name: name))"
  }
}

extension RunEvent.Kind: CustomStringConvertible {
  /// `entered`, `decided yes`, `finished`, `failed: …`, `branch 1 started`, …
  ///
  /// A state that decides ``Decision/done`` (an action, a dispatch, a wait…) `finished`; a
  /// condition `decided yes` or `decided no`. A kind does not know its branch's name, so a
  /// branch is numbered from 1 here; ``RunEvent/description`` names it.
  public var description: String {
    description(branch: { "branch \($0 + 1)" })
  }

  /// The description, with `branch` wording a branch (its position from zero).
  func description(branch: (Int) -> String) -> String {
    switch self {
    case .runStarted: "run started"
    case .stateEntered: "entered"
    case .stateDecided(let decision): decision == .done ? "finished" : "decided \(decision)"
    case .stateFailed(let error): "failed (\(error.kind))"
    case .dispatchStarted: "dispatch started"
    case .branchStarted(let index): "\(branch(index)) started"
    case .branchEnded(let index): "\(branch(index)) ended"
    case .dispatchJoined: "dispatch joined"
    case .waitingForInput: "waiting for input"
    case .waitingUntil(let deadline): "waiting until \(deadline)"
    case .paused: "paused"
    case .resumed: "resumed"
    case .runFinished(let decision):
      decision == .done ? "run finished" : "run finished: \(decision)"
    case .runFailed(let error): "run failed (\(error.kind))"
    case .attemptFailed(let attempt, let reason): "attempt \(attempt) failed: \(reason)"
    case .retrying(let attempt, let delay):
      "attempt \(attempt) after \(RunLog.seconds(delay))"
    case .caught(let reason, _, let targetName):
      "caught \(reason), going to \(DisplayText.quoted(name: targetName))"
    case .branchFailed(let index, let error):
      "\(branch(index)) failed (\(error.kind)), tolerated"
    case .branchSkipped(let index): "\(branch(index)) skipped"
    case .branchCancelled(let index): "\(branch(index)) cancelled"
    case .mapEnded(let finished, let failed, let skipped):
      "elements: \(finished) finished, \(failed) failed, \(skipped) skipped"
    }
  }
}

/// What a ``RunEvent`` holds besides its record: what names its state and makes its kind
/// (the run's graph, never the run, so that a kept event does not keep its run alive), and
/// the kind itself when a record cannot hold it.
///
/// One instance serves every event without a payload that a subscriber's stream makes, so
/// an event costs its reader one retain, not a copy of its kind and name.
final class EventDetails: Sendable {
  let source: any EventNaming
  let payload: RunEvent.Kind?

  init(source: any EventNaming, payload: RunEvent.Kind? = nil) {
    self.source = source
    self.payload = payload
  }
}

/// Plain callbacks a live run calls as it goes, for code that is not `async`: Flow's
/// will-start and did-finish blocks, and one callback that sees every event.
///
/// The run calls them on the flow that reports the event, synchronously, before it goes
/// on: keep them short. They may call the run's handle (to pause it, say). Each flow's
/// events come in order; events of different flows (dispatch branches) may come from
/// different threads at once.
///
/// ```swift
/// let handle = chart.start(
///   with: context,
///   observer: RunObserver(willEnterState: { print("→", $0.stateName) }))
/// ```
///
/// ``didReport`` gets every event a subscriber's stream gets, in the same order, including
/// those no other callback names: attempts, retries and catches of a modified state,
/// branches that failed, were skipped or were cancelled, waiting for input, pausing and
/// resuming. For an event that another callback names too, ``didReport`` is called first.
///
/// An observer is not generic: one type serves every chart, whatever its context, so write
/// `RunObserver(…)`, not `RunObserver<Order>(…)` ("cannot specialize non-generic type").
/// Its callbacks see ``RunEvent``s, which name the state and what it decided, not the
/// context. To read the context, await the handle's ``RunHandle/result`` (its
/// ``RunResult/context``), start the run with `isLogged: true` (the ``RunHandle/log`` shows
/// the properties each state changed), or have the states' code record what you watch.
public struct RunObserver: Sendable {
  /// Called with each ``RunEvent/Kind/stateEntered`` event, before the state's code runs.
  public var willEnterState: @Sendable (RunEvent) -> Void
  /// Called with each ``RunEvent/Kind/stateDecided(_:)`` and
  /// ``RunEvent/Kind/stateFailed(_:)`` event.
  public var didFinishState: @Sendable (RunEvent) -> Void
  /// Called once, with the ``RunEvent/Kind/runFinished(_:)`` or
  /// ``RunEvent/Kind/runFailed(_:)`` event.
  public var didFinishRun: @Sendable (RunEvent) -> Void
  /// Called with every event of the run, whatever its kind, before the callback that names
  /// its kind (if any).
  public var didReport: @Sendable (RunEvent) -> Void

  /// An observer with the given callbacks; leave out those you do not need.
  ///
  /// - Parameters:
  ///   - willEnterState: Called as a flow enters a state, before the state's code runs.
  ///   - didFinishState: Called as a state decides or fails.
  ///   - didFinishRun: Called once, as the run ends.
  ///   - didReport: Called with every event, whatever its kind.
  public init(
    willEnterState: @escaping @Sendable (RunEvent) -> Void = { _ in },
    didFinishState: @escaping @Sendable (RunEvent) -> Void = { _ in },
    didFinishRun: @escaping @Sendable (RunEvent) -> Void = { _ in },
    didReport: @escaping @Sendable (RunEvent) -> Void = { _ in }
  ) {
    self.willEnterState = willEnterState
    self.didFinishState = didFinishState
    self.didFinishRun = didFinishRun
    self.didReport = didReport
  }

  /// Calls ``didReport``, then the callback that names the event's kind.
  func report(_ event: RunEvent) {
    didReport(event)
    switch event.kind {
    case .stateEntered: willEnterState(event)
    case .stateDecided, .stateFailed: didFinishState(event)
    case .runFinished, .runFailed: didFinishRun(event)
    case .runStarted, .dispatchStarted, .branchStarted, .branchEnded, .dispatchJoined,
      .waitingForInput, .waitingUntil, .paused, .resumed, .attemptFailed, .retrying, .caught,
      .branchFailed, .branchSkipped, .branchCancelled, .mapEnded:
      break
    }
  }
}
