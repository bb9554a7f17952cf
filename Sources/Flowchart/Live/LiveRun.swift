/// The shared state of a live run: its subscribers, whether it is paused, its flows'
/// positions, and the controls it pauses. The run loop reports to it through
/// ``RunMonitor`` at each boundary; the ``RunHandle`` drives it.
///
/// Everything mutable is behind one lock, held only to update the state and hand events to
/// the subscribers' streams (which never block: each has a bounded buffer). Callbacks and
/// continuations are called after the lock is released, so they may call the handle.
/// What a live run's lock protects. Not generic over the context, like everything a
/// boundary touches, so that reporting a boundary needs no generic metadata at run time
/// (the monitor is called through an existential, so it is not specialized).
private struct LiveRunState {
  /// The event streams' channels, by subscription number.
  var subscribers: [Int: EventChannel] = [:] {
    didSet { channels = Array(subscribers.values) }
  }
  /// The values of ``subscribers``, for the events to go through without hashing.
  private(set) var channels: [EventChannel] = []
  var nextSubscriber = 0
  /// Whether ``RunHandle/pause()`` was called and ``RunHandle/resume()`` not since.
  var isPaused: Bool
  /// Whether a run started paused still waits for its first ``RunHandle/resume()``: a gate
  /// that opens once, so a `pause()` right after that `resume()` pauses at the first
  /// boundary (and says so) rather than holding the run at its start.
  var isHeldAtStart = false
  /// Whether the run ended; then nothing changes any more.
  var hasEnded = false
  /// The controls of the run's flows: the top level's and those of running dispatches.
  var controls: [ObjectIdentifier: RunControl] = [:]
  /// Flows waiting at a boundary while paused, by wait number.
  var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
  /// Waits that started and have not ended; a cancelled one leaves this set at once.
  var pendingWaits: Set<Int> = []
  /// Waits that found the run paused and waited.
  var waited: Set<Int> = []
  var nextWait = 0
  /// The state each running flow is at, by flow number.
  var positions = FlowPositions()
  /// The time and flow of the last event, when it was a state's decision: the state that
  /// flow enters next, at the same boundary, reports the same time rather than read the
  /// clock again.
  var lastDecision: (flow: Int32, time: Duration)?
  var nextFlow: Int32 = 1
  /// The run log's lines, when one was asked for.
  var log: [String]?
  /// When each flow entered the state it is in, for the log.
  var enteredAt: [Int32: Duration] = [:]
  /// Values sent to waiting states the run has not reached yet (or not consumed), by
  /// state: the first value sent wins until the state takes it.
  var inputs: [Int32: any Sendable] = [:]
  /// Flows waiting at a state for a value, by state, with their wait number.
  var inputWaiters:
    [Int32: (wait: Int, continuation: CheckedContinuation<(any Sendable)?, Never>)] =
      [:]
  /// Cancels the run's task, once every handle is gone (see `RunHandle+Lifetime.swift`).
  var cancelOnceAbandoned: (@Sendable () -> Void)?
}

/// The state each running flow of a live run is at, by flow number: flows are numbered
/// densely from 0 as they start, so an array indexed by flow.
struct FlowPositions {
  /// The state of each flow, or -1 for a flow that is not running.
  private var byFlow: [Int32] = [-1]

  subscript(flow: Int32) -> Int32? {
    get { Int(flow) < byFlow.count && byFlow[Int(flow)] >= 0 ? byFlow[Int(flow)] : nil }
    set {
      while byFlow.count <= Int(flow) { byFlow.append(-1) }
      byFlow[Int(flow)] = newValue ?? -1
    }
  }

  /// The states of the running flows, by flow number.
  var states: [Int32] { byFlow.filter { $0 >= 0 } }

  /// The lowest-numbered flow at `state`.
  func firstFlow(at state: Int32) -> Int32? {
    byFlow.firstIndex(of: state).map(Int32.init)
  }
}

final class LiveRun<Context: Sendable>: RunMonitor, InputReceiving {
  private typealias State = LiveRunState

  let graph: Graph<Context>
  private let observer: RunObserver?
  /// For a logged run: the context each flow had after its last state, to show what the
  /// next one changed.
  private let loggedContexts: Lock<[Int32: Context]>
  private let isLogged: Bool
  /// Time since the run started, by the run's clock.
  private let elapsed: @Sendable () -> Duration
  private let state: Lock<State>
  /// Where the run's failed flows stopped, for a retry.
  let resumePoints = ResumePoints<Context>()

  init(
    graph: Graph<Context>, isPaused: Bool, observer: RunObserver?,
    loggedContext: Context?, elapsed: @escaping @Sendable () -> Duration
  ) {
    self.graph = graph
    self.observer = observer
    self.elapsed = elapsed
    var state = State(isPaused: isPaused)
    state.isHeldAtStart = isPaused
    if loggedContext != nil { state.log = [] }
    isLogged = loggedContext != nil
    loggedContexts = Lock(loggedContext.map { [0: $0] } ?? [:])
    self.state = Lock(state)
  }

  var log: RunLog { state.withLock { RunLog(lines: $0.log ?? []) } }

  // MARK: - Handle

  var isPaused: Bool { state.withLock { $0.isPaused && !$0.hasEnded } }
  var hasEnded: Bool { state.withLock { $0.hasEnded } }

  var positions: [StateID] {
    state.withLock { state in
      state.positions.states.map(StateID.init)
    }
  }

  func pause() {
    state.withLock { state in
      guard !state.hasEnded, !state.isPaused else { return }
      state.isPaused = true
      for control in state.controls.values { control.setPaused(true) }
    }
  }

  func resume() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      guard state.isPaused else { return [] }
      state.isPaused = false
      state.isHeldAtStart = false
      for control in state.controls.values { control.setPaused(false) }
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  func events(bufferingNewest limit: Int) -> RunEventStream {
    let channel = EventChannel(limit: limit)
    let subscriber = state.withLock { state -> Int? in
      guard !state.hasEnded else { return nil }
      state.nextSubscriber += 1
      state.subscribers[state.nextSubscriber] = channel
      return state.nextSubscriber
    }
    guard let subscriber else {
      channel.finish()
      return RunEventStream(channel: channel, subscription: EventSubscription {})
    }
    let subscription = EventSubscription { [weak self] in
      channel.finish()
      _ = self?.state.withLock { $0.subscribers.removeValue(forKey: subscriber) }
    }
    return RunEventStream(channel: channel, subscription: subscription)
  }

  // MARK: - Run

  func started(at first: Int32) {
    emit(.runStarted, at: first, flow: 0)
  }

  /// Ends the run: reports its result, then finishes every stream.
  func finish(_ result: Result<RunResult<Context>, RunError>) {
    let event: RunEvent?
    switch result {
    case .success(let result):
      let outcome = result.outcome.map { ", outcome \($0)" } ?? ""
      event = state.withLock { locked in
        locked.hasEnded = true
        return publish(
          .runFinished(result.decision), at: Int32(result.finalState.index), flow: 0,
          in: &locked, logging: "\(outcome), after \(result.stepCount) states")
      }
    case .failure(let error):
      event = emit(.runFailed(error), at: error.state.map { Int32($0.index) }, flow: 0) {
        $0.hasEnded = true
      }
    }
    let subscribers = state.withLock { state in
      defer {
        state.subscribers = [:]
        state.controls = [:]
        state.positions = FlowPositions()
        state.isPaused = false
      }
      return Array(state.subscribers.values)
    }
    for subscriber in subscribers { subscriber.finish() }
    if let event { observer?.didFinishRun(event) }
  }

  /// Waits until the run is resumed, reporting nothing: a run started paused.
  func waitForStart() async {
    await wait(before: nil, flow: 0)
  }

  // MARK: - RunMonitor

  func register(_ control: RunControl) {
    state.withLock { state in
      state.controls[ObjectIdentifier(control)] = control
      if state.isPaused { control.setPaused(true) }
    }
  }

  func unregister(_ control: RunControl) {
    _ = state.withLock { $0.controls.removeValue(forKey: ObjectIdentifier(control)) }
  }

  func entered(_ state: Int32, flow: Int32) {
    let event = emit(.stateEntered, at: state, flow: flow) { $0.positions[flow] = state }
    if let event { observer?.willEnterState(event) }
  }

  func decided<C>(_ state: Int32, flow: Int32, outcome: Outcome, context: borrowing C) {
    let decision: Decision
    switch outcome {
    case .next: decision = .done
    case .yes: decision = .yes
    case .no: decision = .no
    case .selected(let target):
      let exit = graph.storedExits(of: Int(state)).first { $0.target == target }
      decision = .key(exit.map { $0.label.label(keyLabels: graph.keyLabels).description } ?? "")
    }
    let event = emit(.stateDecided(decision), at: state, flow: flow, context: context)
    if let event { observer?.didFinishState(event) }
  }

  func decided<C>(
    _ state: Int32, flow: Int32, key: any Hashable & Sendable, context: borrowing C
  ) {
    let event = emit(.stateDecided(.key(key)), at: state, flow: flow, context: context)
    if let event { observer?.didFinishState(event) }
  }

  func failed(_ state: Int32, flow: Int32, error: RunError) {
    let event = emit(.stateFailed(error), at: state, flow: flow)
    if let event { observer?.didFinishState(event) }
  }

  func waitWhilePaused(before state: Int32, flow: Int32) async {
    await wait(before: state, flow: flow)
  }

  func dispatchStarted(_ state: Int32, flow: Int32) {
    emit(.dispatchStarted, at: state, flow: flow)
  }

  func branchStarted<C>(
    _ index: Int, of dispatch: Int32, from flow: Int32, context: borrowing C
  ) -> Int32 {
    var branch: Int32 = 0
    emit(.branchStarted(index), at: dispatch) { state in
      branch = state.nextFlow
      state.nextFlow += 1
      state.positions[branch] = dispatch
      return branch
    }
    if isLogged, let context = copy context as? Context {
      loggedContexts.withLock { $0[branch] = context }
    }
    return branch
  }

  func branchEnded(_ index: Int, of dispatch: Int32, flow: Int32) {
    emit(.branchEnded(index), at: dispatch, flow: flow) { $0.positions[flow] = nil }
  }

  func dispatchJoined(_ state: Int32, flow: Int32) {
    emit(.dispatchJoined, at: state, flow: flow)
  }

  func modifierEvent(_ kind: RunEvent.Kind, at state: Int32, flow: Int32) {
    emit(kind, at: state, flow: flow)
  }

  // MARK: - Events

  /// Makes the event and hands it to every subscriber, after `update`, under the lock, so
  /// every subscriber sees the events in the same order and each time is no earlier than
  /// the one before.
  @discardableResult
  private func emit(
    _ kind: RunEvent.Kind, at state: Int32?, flow: Int32,
    update: (inout State) -> Void = { _ in }
  ) -> RunEvent? {
    emit(kind, at: state) { locked in
      update(&locked)
      return flow
    }
  }

  /// ``emit(_:at:flow:update:)`` for a state that decided, leaving `context`: a run log
  /// shows what it changed.
  ///
  /// Generic code, out of line: only a logged run goes there, so that a run nobody logs
  /// instantiates no generic metadata at each decision.
  private func emit<C>(
    _ kind: RunEvent.Kind, at state: Int32, flow: Int32, context: borrowing C
  ) -> RunEvent? {
    guard isLogged else { return emit(kind, at: state, flow: flow) }
    return emitLogged(kind, at: state, flow: flow, context: context)
  }

  @inline(never)
  private func emitLogged<C>(
    _ kind: RunEvent.Kind, at state: Int32, flow: Int32, context: borrowing C
  ) -> RunEvent? {
    guard let context = copy context as? Context else {
      return emit(kind, at: state, flow: flow)
    }
    let before = loggedContexts.withLock { contexts in
      defer { contexts[flow] = context }
      return contexts[flow]
    }
    let changes = before.map { RunLog.changes(from: $0, to: context) } ?? []
    return self.state.withLock { locked in
      let event = publish(kind, at: state, flow: flow, in: &locked)
      locked.log?.append(contentsOf: changes.map { RunLog.continuation + $0 })
      return event
    }
  }

  /// ``emit(_:at:flow:update:)`` for an event whose flow works out under the lock.
  @discardableResult
  private func emit(
    _ kind: RunEvent.Kind, at state: Int32?, flow: (inout State) -> Int32
  ) -> RunEvent? {
    self.state.withLock { locked in
      publish(kind, at: state, flow: flow(&locked), in: &locked)
    }
  }

  /// Makes an event and yields it to every subscriber; called under the lock.
  @discardableResult
  private func publish(
    _ kind: RunEvent.Kind, at state: Int32?, flow: Int32, in locked: inout State,
    logging suffix: String = ""
  ) -> RunEvent? {
    // Nobody listens: only the positions (updated by the caller) matter.
    guard observer != nil || locked.log != nil || !locked.channels.isEmpty else { return nil }
    let time: Duration
    if case .stateEntered = kind, let last = locked.lastDecision, last.flow == flow {
      time = last.time
    } else {
      time = elapsed()
    }
    if case .stateDecided = kind {
      locked.lastDecision = (flow, time)
    } else {
      locked.lastDecision = nil
    }
    let event = RunEvent(
      kind: kind, state: state.map(StateID.init),
      stateName: state.map { graph.records[Int($0)].name } ?? "", flow: Int(flow),
      time: time)
    for channel in locked.channels { channel.append(event) }
    if locked.log != nil {
      let started = locked.enteredAt[flow]
      if case .stateEntered = kind { locked.enteredAt[flow] = event.time }
      locked.log?.append(RunLog.line(for: event, enteredAt: started) + suffix)
    }
    // Only the observer's callbacks need the event back.
    return observer == nil ? nil : event
  }

  // MARK: - Input

  /// The state each waiting state's slot belongs to; found on first use.
  private let slotStates = Lock<[ObjectIdentifier: Int32]?>(nil)

  func receive(for slot: InputSlot) async -> (any Sendable)? {
    let state = slotStates.withLock { map -> Int32? in
      if map == nil {
        var found: [ObjectIdentifier: Int32] = [:]
        for (index, record) in graph.records.enumerated() {
          if let slot = record.attachment as? InputSlot {
            found[ObjectIdentifier(slot)] = Int32(index)
          }
        }
        map = found
      }
      return map?[ObjectIdentifier(slot)]
    }
    guard let state else { return nil }
    let flow = self.state.withLock { locked in
      locked.positions.firstFlow(at: state) ?? 0
    }
    return await receiveInput(at: state, flow: flow)
  }

  /// Checks that `value` may go to the state `states` names, then sends it.
  func send(_ value: any Sendable, toStateIn states: [Int32], named name: String) throws(InputError)
    -> Bool
  {
    guard states.count == 1, let state = states.first else {
      throw InputError(
        kind: states.isEmpty ? .unknownState : .ambiguousState, stateName: name,
        reason: states.isEmpty
          ? "No state of the chart is named \(DisplayText.quoted(name: name)): send the value to a waiting state (a Wait) by its name or ID."
          : "\(states.count) states are named \(DisplayText.quoted(name: name)): send the value by the state's ID, or rename them."
      )
    }
    let record = graph.records[Int(state)]
    guard let slot = record.attachment as? InputSlot else {
      throw InputError(
        kind: .notWaiting, stateName: name,
        reason:
          "\(record.kind.description.capitalizedFirst) \(DisplayText.quoted(name: record.name)) does not wait for input: send the value to a waiting state (a Wait)."
      )
    }
    guard slot.accepts(value) else {
      throw InputError(
        kind: .wrongType, stateName: name,
        reason:
          "Waiting state \(DisplayText.quoted(name: record.name)) waits for a \(slot.inputType), not a \(type(of: value)): send a \(slot.inputType)."
      )
    }
    return send(value, to: state)
  }

  /// Delivers `value` to the waiting state `state`: to the flow waiting there, or kept until
  /// a flow reaches it.
  ///
  /// - Returns: `false` when a value sent earlier is still waiting to be taken (the first
  ///   one wins) or the run has ended; `true` when `value` was delivered or kept.
  func send(_ value: any Sendable, to state: Int32) -> Bool {
    let delivered = self.state.withLock {
      locked -> (Bool, CheckedContinuation<(any Sendable)?, Never>?) in
      guard !locked.hasEnded else { return (false, nil) }
      if let waiter = locked.inputWaiters.removeValue(forKey: state) {
        return (true, waiter.continuation)
      }
      guard locked.inputs[state] == nil else { return (false, nil) }
      locked.inputs[state] = value
      return (true, nil)
    }
    delivered.1?.resume(returning: value)
    return delivered.0
  }

  func receiveInput(at state: Int32, flow: Int32) async -> (any Sendable)? {
    let wait = self.state.withLock { locked in
      locked.nextWait += 1
      locked.pendingWaits.insert(locked.nextWait)
      return locked.nextWait
    }
    let value = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<(any Sendable)?, Never>) in
        let immediate = self.state.withLock { locked -> (any Sendable)?? in
          if let value = locked.inputs.removeValue(forKey: state) { return .some(value) }
          guard locked.pendingWaits.contains(wait) else { return .some(nil) }
          locked.inputWaiters[state] = (wait, continuation)
          publish(.waitingForInput, at: state, flow: flow, in: &locked)
          return .none
        }
        if let immediate {
          continuation.resume(returning: immediate)
        } else {
          cancelIfAbandoned()
        }
      }
    } onCancel: {
      let waiter = self.state.withLock { locked -> CheckedContinuation<(any Sendable)?, Never>? in
        locked.pendingWaits.remove(wait)
        guard let waiter = locked.inputWaiters[state], waiter.wait == wait else { return nil }
        locked.inputWaiters[state] = nil
        return waiter.continuation
      }
      waiter?.resume(returning: nil)
    }
    _ = self.state.withLock { $0.pendingWaits.remove(wait) }
    return value
  }

  // MARK: - Pausing

  /// Waits while the run is paused, reporting ``RunEvent/Kind/paused`` and
  /// ``RunEvent/Kind/resumed`` before `boundary`; a `nil` boundary reports nothing (a run
  /// started paused). A cancelled task stops waiting at once, and reports no resumption.
  private func wait(before boundary: Int32?, flow: Int32) async {
    let wait = state.withLock { state in
      state.nextWait += 1
      state.pendingWaits.insert(state.nextWait)
      return state.nextWait
    }
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let isWaiting = state.withLock { locked -> Bool in
          let isHeld = boundary == nil ? locked.isHeldAtStart : locked.isPaused
          guard isHeld, locked.pendingWaits.contains(wait) else { return false }
          locked.waiters[wait] = continuation
          locked.waited.insert(wait)
          if let boundary {
            locked.positions[flow] = boundary
            publish(.paused, at: boundary, flow: flow, in: &locked)
          }
          return true
        }
        if !isWaiting { continuation.resume() } else { cancelIfAbandoned() }
      }
    } onCancel: {
      let waiter = state.withLock { state in
        state.pendingWaits.remove(wait)
        return state.waiters.removeValue(forKey: wait)
      }
      waiter?.resume()
    }
    state.withLock { locked in
      let didWait = locked.waited.remove(wait) != nil
      let wasResumed = locked.pendingWaits.remove(wait) != nil
      if didWait, wasResumed, let boundary {
        publish(.resumed, at: boundary, flow: flow, in: &locked)
      }
    }
  }
}

// MARK: - Dispatch outcomes

extension LiveRun {
  /// Reports events of kinds no ``RunMonitor`` call names, in order: the outcomes of a
  /// dispatch's branches that did not succeed.
  func report(_ kinds: [RunEvent.Kind], at state: Int32, flow: Int32) {
    for kind in kinds { emit(kind, at: state, flow: flow) }
  }
}

// MARK: - Abandonment

extension LiveRun {
  /// Every handle of the run is gone (see `RunHandle+Lifetime.swift`): cancels the run with
  /// `cancel` now if a flow waits, paused or for input, and keeps `cancel` for a flow that
  /// comes to wait.
  func abandon(cancellingWith cancel: @escaping @Sendable () -> Void) {
    let isWaiting = state.withLock { locked in
      guard !locked.hasEnded else { return false }
      locked.cancelOnceAbandoned = cancel
      return !locked.waiters.isEmpty || !locked.inputWaiters.isEmpty
    }
    if isWaiting { cancel() }
  }

  /// A flow has just registered as waiting, paused or for input: cancels the run if every
  /// handle is gone. Called without the lock held: the cancellation ends the wait under it.
  private func cancelIfAbandoned() {
    if let cancel = state.withLock({ $0.cancelOnceAbandoned }) { cancel() }
  }
}
