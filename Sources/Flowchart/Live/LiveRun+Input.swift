// A live run's input: the values sent to its waiting states (`RunHandle.send`), which go to
// the flow waiting there, to the flow parked there, or into the mailbox (a paused run keeps
// them until it is resumed); the waits of flows that wait in their task; and a map's ending,
// reported at the flow that stands at the map. The decisions are the state machine's
// (`LiveRunStateMachine.send`, `suspend(_:at:waiter:)`); this is where they are carried out.

extension LiveRun {
  func mapEnded(_ map: AnyObject, finished: Int, failed: Int, skipped: Int) {
    // The flow at the map: as for a waiting state's input, the first flow at a state whose
    // record holds the map. None when the map is in another chart (a subflow's or a map's).
    let found = state.withLock { locked in
      settlePositions(in: &locked)
      return locked.machine.positions.firstFlow { graph.records[Int($0)].attachment === map }
    }
    guard let found else { return }
    emit(
      .mapEnded(finished: finished, failed: failed, skipped: skipped), at: found.state,
      flow: found.flow)
  }

  func receive(for slot: InputSlot) async -> ReceivedInput {
    // The flow that asks is at the waiting state (it entered it before the state's code
    // ran): the first flow at a state with this slot. A scan of the running flows, not of
    // the chart, and no table kept per run. None is when the state is in another chart,
    // one that a subflow or a map of this run runs.
    let found = state.withLock { locked in
      settlePositions(in: &locked)
      return locked.machine.positions.firstFlow { graph.records[Int($0)].attachment === slot }
    }
    guard let found else { return .unreachable }
    guard let value = await receiveInput(at: found.state, flow: found.flow) else {
      return .cancelled
    }
    return .value(value)
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
          "Waiting state \(DisplayText.quoted(name: record.name)) waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)")), not \(DisplayText.withArticle(typeName: "\(type(of: value))")): send \(DisplayText.withArticle(typeName: "\(slot.inputType)"))."
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
    let action = self.state.withLock { $0.machine.send(value, to: state) }
    switch action {
    case .refuse, .keep: break
    case .deliver(let waiter): waiter.resume(returning: value)
    // A flow parked at the state goes on, in a task of its own, and takes the value.
    case .startTask(let start): startTask(start)
    }
    return action.isAccepted
  }

  /// Whether the top-level flow parks at the waiting state `state`, having entered it: no
  /// value has come for it, and the run is not cancelled. Then reports
  /// ``RunEvent/Kind/waitingForInput`` (see `ParkedFlow.swift`).
  func parks(at state: Int32, flow: Int32, until deadline: WallClockTime?) -> Bool {
    let payload = deadline.map(RunEvent.Kind.waitingUntil)
    let reported = self.state.withLock { locked -> ReportedEvent? in
      switch locked.machine.park(at: state, until: deadline) {
      case .goesOn: return nil
      case .parks:
        if let payload { return publish(payload: payload, at: state, flow: flow, in: &locked) }
        return publish(.waitingForInput, at: state, flow: flow, in: &locked)
      }
    }
    guard let reported else { return false }
    deliver(reported, payload: payload)
    return true
  }

  func receiveInput(at state: Int32, flow: Int32) async -> (any Sendable)? {
    let wait = self.state.withLock { $0.machine.beginWait() }
    let value = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<(any Sendable)?, Never>) in
        let (action, reported) = self.state.withLock { locked in
          let action = locked.machine.suspend(wait, at: state, waiter: continuation)
          switch action {
          case .resumeNow: return (action, ReportedEvent())
          case .waits:
            return (action, publish(.waitingForInput, at: state, flow: flow, in: &locked))
          }
        }
        switch action {
        case .resumeNow(let waiter, let value):
          waiter.resume(returning: value)
          deliver(reported)
        case .waits(let cancel):
          deliver(reported)
          perform(cancel)
          // A snapshot waiting for the flows may take the run now, this one waiting.
          snapshotMayStand()
        }
      }
    } onCancel: {
      self.state.withLock { $0.machine.cancelInputWait(wait, at: state) }?.resume(returning: nil)
    }
    _ = self.state.withLock { $0.machine.endWait(wait) }
    return value
  }
}
