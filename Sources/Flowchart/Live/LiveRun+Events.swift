// A live run's event reporting: each event recorded under the run's lock for the
// subscribers' streams, made into a `RunEvent` for the observer and the log only when the
// run has one, and delivered (readers woken, the observer called, the log's lines written to
// its sink) once the lock is released. The run's state and its control are in
// `LiveRun.swift`; the records and the subscribers' ring in `EventChannel.swift`.

extension LiveRun {
  /// Wakes the subscribers `reported` says wait, and calls the observer with the event
  /// (`payload` is its kind, for a record tagged ``EventTag/payload``): after the lock is
  /// released, since both may call the handle.
  func deliver(_ reported: ReportedEvent, payload: RunEvent.Kind? = nil) {
    if reported.logs { writeLog() }
    if reported.wakes {
      let readers = state.withLock { locked in
        defer { setWakeAt(in: &locked) }
        return locked.events.wakeReaders()
      }
      for reader in readers { reader.resume() }
    }
    if let record = reported.observed, let observer {
      observer.report(event(from: record, payload: payload))
    }
  }

  /// Reports an event of `kind`, after `update`, under the lock, so every subscriber sees
  /// the events in the same order and each time is no earlier than the one before.
  func emit(
    _ kind: RunEvent.Kind, at state: Int32?, flow: Int32,
    update: (inout LiveRunState) -> Void = { _ in }
  ) {
    let (tag, value, payload) = Self.record(of: kind)
    let reported = self.state.withLock { locked in
      update(&locked)
      if let payload { return publish(payload: payload, at: state, flow: flow, in: &locked) }
      return publish(tag, value: value, at: state, flow: flow, in: &locked)
    }
    if reported.needsDelivery { deliver(reported, payload: payload) }
  }

  /// Reports a state's decision in a logged run, which shows what the state changed in
  /// `context`.
  ///
  /// Generic code, out of line: only a logged run goes there, so that a run nobody logs
  /// instantiates no generic metadata at each decision.
  @inline(never)
  func emitLogged<C>(
    _ tag: EventTag, value: Int32 = 0, payload: RunEvent.Kind? = nil, at state: Int32,
    flow: Int32, context: borrowing C
  ) {
    guard let logging else { return }
    var changes: [String] = []
    if let context = copy context as? Context {
      let before = logging.contexts.withLock { contexts in
        defer { contexts[flow] = context }
        return contexts[flow]
      }
      changes = before.map { RunLog.changes(from: $0, to: context) } ?? []
    }
    let reported = self.state.withLock { locked in
      let reported =
        if let payload {
          publish(payload: payload, at: state, flow: flow, in: &locked)
        } else {
          publish(tag, value: value, at: state, flow: flow, in: &locked)
        }
      logging.recorder(in: &locked) {
        $0.append(contentsOf: changes.map { RunLog.continuation + $0 })
      }
      return reported
    }
    if reported.needsDelivery { deliver(reported, payload: payload) }
  }

  /// Records an event for the subscribers, and makes it for the log and the observer; called
  /// under the lock.
  ///
  /// A subscriber's stream builds its events from the records; only a run with an observer
  /// or a log makes each event here. For an event whose kind carries more than a number, see
  /// ``publish(payload:at:flow:in:logging:)``.
  func publish(
    _ tag: EventTag, value: Int32 = 0, at state: Int32?, flow: Int32, in locked: inout LiveRunState
  ) -> ReportedEvent {
    var reported = ReportedEvent()
    reported.wakes = takeTopFlowEvents(in: &locked)
    // Nobody listens: only the positions (updated by the caller) matter.
    guard isExpected || locked.events.hasReaders else { return reported }
    let record = stamp(
      tag, value: value, at: state, flow: flow, decides: tag.isDecision, in: &locked)
    if locked.events.hasReaders { reported.wakes = locked.events.append(record) || reported.wakes }
    if _slowPath(isExpected) { expect(record, payload: nil, in: &locked, reported: &reported) }
    return reported
  }

  /// ``publish(_:value:at:flow:in:)`` for an event whose kind the log keeps whole, beside a
  /// record tagged ``EventTag/payload``.
  @inline(never)
  func publish(
    payload: RunEvent.Kind, at state: Int32?, flow: Int32, in locked: inout LiveRunState,
    logging suffix: String = ""
  ) -> ReportedEvent {
    var reported = ReportedEvent()
    reported.wakes = takeTopFlowEvents(in: &locked)
    guard isExpected || locked.events.hasReaders else { return reported }
    var decides = false
    if case .stateDecided = payload { decides = true }
    let record = stamp(.payload, value: 0, at: state, flow: flow, decides: decides, in: &locked)
    if locked.events.hasReaders {
      reported.wakes = locked.events.append(record, payload: payload) || reported.wakes
    }
    if isExpected {
      expect(record, payload: payload, logging: suffix, in: &locked, reported: &reported)
    }
    return reported
  }

  /// Moves the records the top-level flow published in its ring (see ``TopFlowEvents``)
  /// into the log; called under the lock, first in every section that appends to the log or
  /// reads it, so the log keeps the order in which the flows reported. Returns whether a
  /// reader waits for as many records as there now are.
  func takeTopFlowEvents(in locked: inout LiveRunState) -> Bool {
    withTopFlowEvents { events in
      // Sequentially consistent: a reader that stored `wakeAt` before sees what the flow
      // published before it read `wakeAt` (see `TopFlowEvents`).
      let end = events.published.load(ordering: .sequentiallyConsistent)
      var next = events.taken.load(ordering: .relaxed)
      guard next != end else { return false }
      var wakes = false
      // At most two blocks: up to the ring's end, then from its start.
      while next != end {
        let slot = next & (TopFlowEvents.capacity &- 1)
        let count = min(end &- next, TopFlowEvents.capacity &- slot)
        let block = UnsafeBufferPointer(start: events.slots + slot, count: count)
        wakes = locked.events.append(contentsOf: block) || wakes
        next &+= count
      }
      events.taken.store(next, ordering: .releasing)
      // The newest record is the top-level flow's: a state another flow enters next takes
      // its own time.
      locked.lastDecision = nil
      return wakes
    } ?? false
  }

  /// Tells the top-level flow how many records it must have published for a waiting reader
  /// to have what it waits for (see ``TopFlowEvents/wakeAt``); called under the lock after
  /// the readers' waits changed.
  func setWakeAt(in locked: inout LiveRunState) {
    withTopFlowEvents { events in
      let next = locked.events.nextWake
      let total = locked.events.total
      let wakeAt =
        next == .max
        ? Int.max
        : events.taken.load(ordering: .relaxed) &+ Int(clamping: next > total ? next - total : 0)
      events.wakeAt.store(wakeAt, ordering: .sequentiallyConsistent)
    }
  }

  /// Whether a subscriber has subscribed: the run has its ``TopFlowEvents``.
  var hasTopFlowEvents: Bool { interest.load(ordering: .relaxed) & ~Interest.mask != 0 }

  /// Runs `body` with the run's ``TopFlowEvents``, without retaining it (``interest``
  /// holds it for the run's life); `nil` when no subscriber has subscribed yet.
  @inline(__always)
  func withTopFlowEvents<Result>(_ body: (TopFlowEvents) -> Result) -> Result? {
    let address = interest.load(ordering: .acquiring) & ~Interest.mask
    guard address != 0 else { return nil }
    return Unmanaged<TopFlowEvents>.fromOpaque(
      UnsafeRawPointer(bitPattern: address).unsafelyUnwrapped
    )._withUnsafeGuaranteedRef(body)
  }

  /// ``withTopFlowEvents(_:)`` while only subscribers read the run's events (no observer,
  /// no log); `nil` otherwise.
  @inline(__always)
  func withTopFlowEventsIfOnlySubscribed<Result>(_ body: (TopFlowEvents) -> Result) -> Result? {
    let word = interest.load(ordering: .acquiring)
    // The subscribed bit is stored with the address: set, the address is there.
    guard word & Interest.mask == Interest.subscribed else { return nil }
    return Unmanaged<TopFlowEvents>.fromOpaque(
      UnsafeRawPointer(bitPattern: word & ~Interest.mask).unsafelyUnwrapped
    )._withUnsafeGuaranteedRef(body)
  }

  /// Records the top-level flow's entry or decision in its ring, without the lock, while
  /// only subscribers read the run's events: a state entered right after the flow's
  /// decision takes the decision's time, as ``stamp(_:value:at:flow:decides:in:)`` does.
  @inline(__always)
  func recordTopFlow(
    _ tag: EventTag, value: Int32 = 0, at state: Int32, in events: TopFlowEvents
  ) {
    let time: Duration
    if tag == .entered, let decided = events.decisionTime {
      time = decided
    } else {
      time = elapsed()
    }
    events.decisionTime = tag.isDecision ? time : nil
    let record = EventRecord(time: time, state: state, flow: 0, tag: tag, value: value)
    if _fastPath(events.publish(record)) {
      if _slowPath(events.mustWake) { recordTopFlowSlowly(nil, in: events) }
    } else {
      recordTopFlowSlowly(record, in: events)
    }
  }

  /// Moves the top-level flow's ring into the log under the lock, then publishes `record`
  /// (which found the ring full) and wakes the readers that have what they wait for.
  @inline(never)
  private func recordTopFlowSlowly(_ record: EventRecord?, in events: TopFlowEvents) {
    let readers = state.withLock { locked in
      var wakes = takeTopFlowEvents(in: &locked)
      if let record {
        // The ring is empty now.
        _ = events.publish(record)
        wakes = takeTopFlowEvents(in: &locked) || wakes
      }
      let readers = wakes ? locked.events.wakeReaders() : []
      setWakeAt(in: &locked)
      return readers
    }
    for reader in readers { reader.resume() }
  }

  /// The record of an event, timed: a state entered right after its flow's decision takes
  /// the decision's time rather than read the clock again.
  @inline(__always)
  private func stamp(
    _ tag: EventTag, value: Int32, at state: Int32?, flow: Int32, decides: Bool,
    in locked: inout LiveRunState
  ) -> EventRecord {
    let time: Duration
    if tag == .entered, let last = locked.lastDecision, last.flow == flow {
      time = last.time
    } else {
      time = elapsed()
    }
    locked.lastDecision = decides ? (flow, time) : nil
    // The top-level flow's next entry follows this event, not a decision in its ring.
    if flow == 0 { _ = withTopFlowEvents { $0.decisionTime = nil } }
    return EventRecord(time: time, state: state ?? -1, flow: flow, tag: tag, value: value)
  }

  /// Writes the log's line of `record`, and keeps it for the observer.
  @inline(never)
  private func expect(
    _ record: EventRecord, payload: RunEvent.Kind?, logging suffix: String = "",
    in locked: inout LiveRunState, reported: inout ReportedEvent
  ) {
    if let logging {
      let event = self.event(from: record, payload: payload)
      logging.recorder(in: &locked) { $0.record(event, suffix: suffix) }
      reported.logs = logging.sink != nil
    }
    if observer != nil { reported.observed = record }
  }

  /// The tag, number and payload that record an event of `kind`.
  private static func record(of kind: RunEvent.Kind) -> (EventTag, Int32, RunEvent.Kind?) {
    switch kind {
    case .runStarted: (.runStarted, 0, nil)
    case .stateEntered: (.entered, 0, nil)
    case .dispatchStarted: (.dispatchStarted, 0, nil)
    case .branchStarted(let index): (.branchStarted, Int32(index), nil)
    case .branchEnded(let index): (.branchEnded, Int32(index), nil)
    case .dispatchJoined: (.dispatchJoined, 0, nil)
    case .waitingForInput: (.waitingForInput, 0, nil)
    case .paused: (.paused, 0, nil)
    case .resumed: (.resumed, 0, nil)
    case .branchSkipped(let index): (.branchSkipped, Int32(index), nil)
    case .branchCancelled(let index): (.branchCancelled, Int32(index), nil)
    case .stateDecided(let decision):
      if decision == .done {
        (.decidedDone, 0, nil)
      } else if decision == .yes {
        (.decidedYes, 0, nil)
      } else if decision == .no {
        (.decidedNo, 0, nil)
      } else {
        (.payload, 0, kind)
      }
    case .stateFailed, .runFinished, .runFailed, .attemptFailed, .retrying, .caught,
      .branchFailed, .waitingUntil, .mapEnded:
      (.payload, 0, kind)
    }
  }

  /// The event `record` stands for; `payload` is its kind when it is tagged
  /// ``EventTag/payload``. Named from the graph, not from the run: an event an observer
  /// keeps does not keep the run alive.
  ///
  /// One ``EventDetails`` a run, shared by its events without a payload, would save an
  /// allocation an event, but a suspended run would hold it all the while (about 100 bytes
  /// a run, BENCHMARKS.md, “An observer's events”).
  func event(from record: EventRecord, payload: RunEvent.Kind?) -> RunEvent {
    RunEvent(record: record, details: EventDetails(source: graph, payload: payload))
  }

  var naming: any EventNaming { graph }

  func withEventLog<Result>(_ body: (inout EventLog) -> Result) -> Result {
    let (result, readers) = state.withLock { locked in
      var wakes = takeTopFlowEvents(in: &locked)
      let result = body(&locked.events)
      guard hasTopFlowEvents else {
        return (result, wakes ? locked.events.wakeReaders() : [])
      }
      // A reader that begins to wait tells the top-level flow, then takes what the flow
      // published before the flow could see it (see `TopFlowEvents`).
      setWakeAt(in: &locked)
      wakes = takeTopFlowEvents(in: &locked) || wakes
      guard wakes else { return (result, []) }
      defer { setWakeAt(in: &locked) }
      return (result, locked.events.wakeReaders())
    }
    for reader in readers { reader.resume() }
    return result
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

/// What reporting an event under a live run's lock leaves to do once the lock is released.
/// Plain values, so that a boundary copies and destroys nothing to carry it out of the lock.
struct ReportedEvent: BitwiseCopyable {
  /// Whether a subscriber waits for as many events as there now are.
  var wakes = false
  /// The event's record, when the run has an observer to call with the event.
  var observed: EventRecord?
  /// Whether the event wrote lines for the run log's sink.
  var logs = false

  var needsDelivery: Bool { wakes || observed != nil || logs }
}

extension EventTag {
  /// Whether the tag records a state's decision.
  var isDecision: Bool {
    switch self {
    case .decidedDone, .decidedYes, .decidedNo, .decidedExit: true
    case .runStarted, .entered, .dispatchStarted, .branchStarted, .branchEnded, .dispatchJoined,
      .waitingForInput, .paused, .resumed, .branchSkipped, .branchCancelled, .payload:
      false
    }
  }
}

// MARK: - Log sink

extension LiveRun {
  /// Hands the log's sink the lines it has not taken yet, in order, after the run's lock is
  /// released: one flow at a time (the others wait, so the lines waiting stay few).
  ///
  /// A writing session goes on until no line waits. A call from inside the sink (or from a
  /// task the sink started, which inherits its task-local value) while that session goes on
  /// leaves its lines to the session rather than wait for the lock it holds, so the sink
  /// may call the handle: the session checks for lines after the sink returns, and ends only
  /// when it finds none, under the run's lock, so no line is left behind.
  private func writeLog() {
    guard let logging, let logSink = logging.sink else { return }
    if let writing = RunLogWriting.current, writing.run == ObjectIdentifier(self),
      state.withLock({ logging.recorder(in: &$0) { $0.session } == writing.session })
    {
      return
    }
    logging.writing.withLock { sessions in
      sessions &+= 1
      let session = state.withLock { logging.recorder(in: &$0) { $0.beginSession() } }
      RunLogWriting.$current.withValue(RunLogWriting(run: ObjectIdentifier(self), session: session))
      {
        while true {
          let lines = state.withLock { logging.recorder(in: &$0) { $0.takePending() } }
          if lines.isEmpty { return }
          for line in lines { logSink.write(line) }
        }
      }
    }
  }
}

/// The run log writing session the current task is in, if any: inside a sink's
/// ``RunLogSink/write(_:)``, or in a task started from there.
private struct RunLogWriting: Sendable {
  @TaskLocal static var current: RunLogWriting?
  /// The run whose log is written.
  var run: ObjectIdentifier
  /// The session's number in that run.
  var session: Int
}
