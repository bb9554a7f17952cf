import Testing

@testable import Flowchart

// A live run's control, tested on its state machine alone: every event in every state,
// without tasks. The machine holds strings where a live run holds continuations, the
// parked flow and the task. Each row of `expected` is one state of the transition table
// (`LiveRunStateMachine.swift`): what each event leaves (the phase, the marks, the mailbox)
// and the action it returns; "trap" marks an impossible state, checked by exit tests.

/// Plain stand-ins for what a live run keeps but the machine never reads.
enum MachineTokens: LiveRunPayloads {
  typealias PauseWaiter = String
  typealias InputWaiter = String
  typealias Flow = String
  typealias RunTask = String
}

typealias Machine = LiveRunStateMachine<MachineTokens>

/// The state a row starts from, made by events from a new machine.
enum StartingState: String, CaseIterable, Codable, Sendable {
  case held, heldAtGate, running, runningPaused, runningPausedWaiting, runningWaitingForInput
  case runningPausedWaitingForInput, runningPausedWaitingWithMail, runningWithMail,
    runningCancelled, runningAbandoned
  case unwinding, unwindingWithMail, unwindingPausedWithMail, unwindingAbandoned, parked
  case parkedPaused
  case parkedPausedWithMail
  case endedFailed, endedSucceeded
  case runningInDelay, runningPausedAtDueDelay, unwindingAtDelay, parkedAtDelay
  case parkedAtDelayPaused, parkedAtDelayDue

  /// The waiting state the flow parks at; 9 is another waiting state.
  static let waitingState: Int32 = 7
  /// The delay the flow parks at (or a branch sleeps at), and its deadline.
  static let delayState: Int32 = 8
  static let deadline = WallClockTime(secondsSince1970: 100)

  var machine: Machine {
    var machine: Machine
    switch self {
    case .held, .heldAtGate:
      machine = Machine(isPaused: true)
      _ = machine.adopt("task 0", number: 0)
      if self == .heldAtGate {
        _ = machine.suspend(machine.beginWait(), waiter: "gate", before: nil, flow: 0)
      }
      return machine
    case .running, .runningPaused, .runningPausedWaiting, .runningWaitingForInput,
      .runningPausedWaitingForInput, .runningPausedWaitingWithMail, .runningWithMail,
      .runningCancelled, .runningAbandoned, .unwinding, .unwindingWithMail,
      .unwindingPausedWithMail,
      .unwindingAbandoned, .parked, .parkedPaused, .parkedPausedWithMail, .endedFailed,
      .endedSucceeded,
      .runningInDelay, .runningPausedAtDueDelay, .unwindingAtDelay, .parkedAtDelay,
      .parkedAtDelayPaused,
      .parkedAtDelayDue:
      machine = Machine(isPaused: false)
      _ = machine.adopt("task 0", number: 0)
      machine.start()
    }
    switch self {
    case .held, .heldAtGate, .running: break
    case .runningPaused: _ = machine.pause()
    case .runningPausedWaiting:
      _ = machine.pause()
      _ = machine.suspend(machine.beginWait(), waiter: "paused", before: 3, flow: 0)
    case .runningWaitingForInput:
      _ = machine.suspend(machine.beginWait(), at: 9, waiter: "input")
    case .runningPausedWaitingForInput, .runningPausedWaitingWithMail:
      _ = machine.suspend(machine.beginWait(), at: 9, waiter: "input")
      _ = machine.pause()
      if self == .runningPausedWaitingWithMail { _ = machine.send("mail", to: 9) }
    case .runningWithMail: _ = machine.send("mail", to: Self.waitingState)
    case .runningCancelled: _ = machine.cancel()
    case .runningAbandoned: _ = machine.abandon()
    case .unwinding: _ = machine.park(at: Self.waitingState)
    case .unwindingWithMail, .unwindingPausedWithMail:
      _ = machine.park(at: Self.waitingState)
      if self == .unwindingPausedWithMail { _ = machine.pause() }
      _ = machine.send("mail", to: Self.waitingState)
    case .unwindingAbandoned:
      _ = machine.park(at: Self.waitingState)
      _ = machine.abandon()
    case .parked, .parkedPaused, .parkedPausedWithMail:
      _ = machine.park(at: Self.waitingState)
      _ = machine.settle("flow")
      if self != .parked { _ = machine.pause() }
      if self == .parkedPausedWithMail { _ = machine.send("mail", to: Self.waitingState) }
    case .endedFailed: machine.end(succeeded: false)
    case .endedSucceeded: machine.end(succeeded: true)
    case .runningInDelay:
      _ = machine.beginDelay(flow: 1, at: Self.delayState, until: Self.deadline)
    case .runningPausedAtDueDelay:
      _ = machine.beginDelay(flow: 1, at: Self.delayState, until: Self.deadline)
      _ = machine.pause()
      _ = machine.deadlinePassed(flow: 1)
    case .unwindingAtDelay:
      _ = machine.park(at: Self.delayState, until: Self.deadline)
    case .parkedAtDelay, .parkedAtDelayPaused, .parkedAtDelayDue:
      _ = machine.park(at: Self.delayState, until: Self.deadline)
      _ = machine.settle("flow")
      _ = machine.keepWaker("waker", number: machine.taskNumber)
      if self != .parkedAtDelay { _ = machine.pause() }
      if self == .parkedAtDelayDue { _ = machine.deadlinePassed(waker: machine.taskNumber) }
    }
    return machine
  }
}

/// An event of the transition table.
enum Event: String, CaseIterable, Codable, Sendable {
  case start, pause, resume, cancel
  case sendToWaitingState, sendToOtherState
  case lastHandleGone
  case adoptCurrentTask, adoptStaleTask
  case park, settle
  case pauseWaitAtBoundary, pauseWaitAtGate, waitForInput
  case end, retry
  case parkAtDelay, keepWaker, deadlinePassed, delayBegins, delayEnds, delayPassed

  /// Applies the event to `machine`; returns the action, in words.
  func apply(to machine: inout Machine) -> String {
    switch self {
    case .start:
      machine.start()
      return "—"
    case .pause: return describe(machine.pause())
    case .resume: return describe(machine.resume())
    case .cancel: return describe(machine.cancel())
    case .sendToWaitingState:
      return describe(machine.send("value", to: StartingState.waitingState))
    case .sendToOtherState: return describe(machine.send("value", to: 9))
    case .lastHandleGone: return describe(machine.abandon())
    case .adoptCurrentTask:
      return describe(machine.adopt("new task", number: machine.taskNumber))
    case .adoptStaleTask:
      return describe(machine.adopt("stale task", number: machine.taskNumber + 1))
    case .park:
      switch machine.park(at: StartingState.waitingState) {
      case .parks: return "parks"
      case .goesOn: return "goes on"
      }
    case .settle:
      switch machine.settle("flow") {
      case .parked: return "parked"
      case .parkedUntil(let deadline, let waker): return "parked until \(deadline), waker \(waker)"
      case .goOn(let cancelling): return cancelling ? "goes on, cancelled" : "goes on"
      }
    case .parkAtDelay:
      switch machine.park(at: StartingState.delayState, until: StartingState.deadline) {
      case .parks: return "parks"
      case .goesOn: return "goes on"
      }
    case .keepWaker:
      return machine.keepWaker("new waker", number: machine.taskNumber).map { "cancel \($0)" }
        ?? "—"
    case .deadlinePassed:
      switch machine.deadlinePassed(waker: machine.taskNumber) {
      case .none: return "—"
      case .startTask(let start): return describe(start)
      }
    case .delayBegins:
      return describe(
        machine.beginDelay(flow: 1, at: StartingState.delayState, until: StartingState.deadline))
    case .delayEnds:
      machine.endDelay(flow: 1)
      return "—"
    case .delayPassed:
      return machine.deadlinePassed(flow: 1).map { "stands at \($0)" } ?? "goes on"
    case .pauseWaitAtBoundary:
      return describe(machine.suspend(machine.beginWait(), waiter: "w", before: 3, flow: 0))
    case .pauseWaitAtGate:
      return describe(machine.suspend(machine.beginWait(), waiter: "w", before: nil, flow: 0))
    case .waitForInput:
      return describe(
        machine.suspend(machine.beginWait(), at: StartingState.waitingState, waiter: "w"))
    case .end:
      machine.end(succeeded: false)
      return "—"
    case .retry:
      switch machine.retry() {
      case .notEnded: return "not ended"
      case .succeeded: return "succeeded"
      case .failed: return "failed"
      }
    }
  }

  /// Whether the event is impossible in `phase`: the machine traps.
  func traps(in phase: Machine.Phase) -> Bool {
    let isHeld = phase == .held
    let isRunning = phase == .running
    var isUnwinding = false
    var isParked = false
    var isEnded = false
    switch phase {
    case .held, .running: break
    case .unwinding: isUnwinding = true
    case .parked: isParked = true
    case .ended: isEnded = true
    }
    switch self {
    case .start: return isUnwinding || isParked || isEnded
    case .park, .parkAtDelay: return !isRunning
    case .settle: return !isUnwinding
    case .pauseWaitAtBoundary, .pauseWaitAtGate: return !isHeld && !isRunning
    case .waitForInput, .end: return !isRunning
    case .pause, .resume, .cancel, .sendToWaitingState, .sendToOtherState, .lastHandleGone,
      .adoptCurrentTask, .adoptStaleTask, .retry, .keepWaker, .deadlinePassed, .delayBegins,
      .delayEnds, .delayPassed:
      return false
    }
  }
}

// MARK: - Words

private func describe(_ machine: Machine) -> String {
  var words: [String]
  switch machine.phase {
  case .held: words = ["held"]
  case .running: words = ["running"]
  case .unwinding(let state): words = ["unwinding(\(state))"]
  case .parked(let state): words = ["parked(\(state))"]
  case .ended(let succeeded): words = [succeeded ? "ended(succeeded)" : "ended(failed)"]
  }
  if machine.marks.contains(.paused) { words.append("p") }
  if machine.marks.contains(.cancelRequested) { words.append("c") }
  if machine.marks.contains(.abandoned) { words.append("a") }
  if !machine.mailbox.isEmpty {
    words.append("mail \(machine.mailbox.keys.sorted().map(String.init).joined(separator: ","))")
  }
  if let handed = machine.handedOver { words.append("handed over at \(handed.state)") }
  for (flow, delay) in machine.delays.sorted(by: { $0.key < $1.key }) {
    words.append("flow \(flow) at delay \(delay.state)\(delay.isDue ? " due" : "")")
  }
  if machine.isDelayDue { words.append("due") }
  return words.joined(separator: " ")
}

private func describe(_ start: Machine.StartTask) -> String {
  "start task \(start.number) for \(start.flow)\(start.isCancelled ? ", cancelled" : "")"
    + (start.waker.map { ", cancel \($0)" } ?? "")
}

private func describe(_ action: Machine.PauseAction) -> String {
  switch action {
  case .none: "—"
  case .raisePauseFlags: "raise flags"
  }
}

private func describe(_ action: Machine.ResumeAction) -> String {
  switch action {
  case .none: "—"
  case .lowerPauseFlags(let waking, let delivering):
    "lower flags"
      + (waking.isEmpty ? "" : ", wake \(waking.sorted().joined(separator: ","))")
      + delivering.map { ", deliver \($0.1) to \($0.0)" }.joined()
  case .lowerPauseFlagsAndStart(let start): "lower flags, \(describe(start))"
  }
}

private func describe(_ action: Machine.CancelAction) -> String {
  switch action {
  case .none: "—"
  case .cancelTask(let task): "cancel \(task)"
  case .startTask(let start): describe(start)
  }
}

private func describe(_ action: Machine.SendAction) -> String {
  switch action {
  case .refuse: "refuse"
  case .keep: "keep"
  case .deliver(let waiter): "deliver to \(waiter)"
  case .startTask(let start): describe(start)
  }
}

private func describe(_ action: Machine.AdoptAction) -> String {
  switch action {
  case .none: "—"
  case .cancelTask(let task): "cancel \(task)"
  }
}

private func describe(_ action: Machine.PauseWaitAction) -> String {
  switch action {
  case .resumeNow(let waiter): "resume \(waiter) now"
  case .waits(let cancel):
    if case .none = cancel { "waits" } else { "waits, then \(describe(cancel))" }
  }
}

private func describe(_ action: Machine.InputWaitAction) -> String {
  switch action {
  case .resumeNow(let waiter, let value): "resume \(waiter) now with \(value ?? "nil")"
  case .waits(let cancel):
    if case .none = cancel { "waits" } else { "waits, then \(describe(cancel))" }
  }
}

// MARK: - The table

/// Each state's row: for each event, the state it leaves and the action
/// (`event: state | action`), or "trap". Reviewed against the transition table.
private let expected: [StartingState: String] = [
  .held: """
  start: running p | —
  pause: held p | —
  resume: running | lower flags
  cancel: held p c | cancel task 0
  sendToWaitingState: held p mail 7 | keep
  sendToOtherState: held p mail 9 | keep
  lastHandleGone: held p a | —
  adoptCurrentTask: held p | —
  adoptStaleTask: held p | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: held p | waits
  pauseWaitAtGate: held p | waits
  waitForInput: trap
  end: trap
  retry: held p | not ended
  parkAtDelay: trap
  keepWaker: held p | cancel new waker
  deadlinePassed: held p | —
  delayBegins: held p flow 1 at delay 8 | —
  delayEnds: held p | —
  delayPassed: held p | goes on
  """,
  .heldAtGate: """
  start: running p | —
  pause: held p | —
  resume: running | lower flags, wake gate
  cancel: held p c | cancel task 0
  sendToWaitingState: held p mail 7 | keep
  sendToOtherState: held p mail 9 | keep
  lastHandleGone: held p c a | cancel task 0
  adoptCurrentTask: held p | —
  adoptStaleTask: held p | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: held p | waits
  pauseWaitAtGate: held p | waits
  waitForInput: trap
  end: trap
  retry: held p | not ended
  parkAtDelay: trap
  keepWaker: held p | cancel new waker
  deadlinePassed: held p | —
  delayBegins: held p flow 1 at delay 8 | —
  delayEnds: held p | —
  delayPassed: held p | goes on
  """,
  .running: """
  start: running | —
  pause: running p | raise flags
  resume: running | —
  cancel: running c | cancel task 0
  sendToWaitingState: running mail 7 | keep
  sendToOtherState: running mail 9 | keep
  lastHandleGone: running a | —
  adoptCurrentTask: running | —
  adoptStaleTask: running | —
  park: unwinding(7) | parks
  settle: trap
  pauseWaitAtBoundary: running | resume w now
  pauseWaitAtGate: running | resume w now
  waitForInput: running | waits
  end: ended(failed) | —
  retry: running | not ended
  parkAtDelay: unwinding(8) flow 0 at delay 8 | parks
  keepWaker: running | cancel new waker
  deadlinePassed: running | —
  delayBegins: running flow 1 at delay 8 | —
  delayEnds: running | —
  delayPassed: running | goes on
  """,
  .runningPaused: """
  start: running p | —
  pause: running p | —
  resume: running | lower flags
  cancel: running p c | cancel task 0
  sendToWaitingState: running p mail 7 | keep
  sendToOtherState: running p mail 9 | keep
  lastHandleGone: running p a | —
  adoptCurrentTask: running p | —
  adoptStaleTask: running p | —
  park: unwinding(7) p | parks
  settle: trap
  pauseWaitAtBoundary: running p | waits
  pauseWaitAtGate: running p | resume w now
  waitForInput: running p | waits
  end: ended(failed) | —
  retry: running p | not ended
  parkAtDelay: unwinding(8) p flow 0 at delay 8 | parks
  keepWaker: running p | cancel new waker
  deadlinePassed: running p | —
  delayBegins: running p flow 1 at delay 8 | —
  delayEnds: running p | —
  delayPassed: running p | goes on
  """,
  .runningPausedWaiting: """
  start: running p | —
  pause: running p | —
  resume: running | lower flags, wake paused
  cancel: running p c | cancel task 0
  sendToWaitingState: running p mail 7 | keep
  sendToOtherState: running p mail 9 | keep
  lastHandleGone: running p c a | cancel task 0
  adoptCurrentTask: running p | —
  adoptStaleTask: running p | —
  park: unwinding(7) p | parks
  settle: trap
  pauseWaitAtBoundary: running p | waits
  pauseWaitAtGate: running p | resume w now
  waitForInput: running p | waits
  end: ended(failed) | —
  retry: running p | not ended
  parkAtDelay: unwinding(8) p flow 0 at delay 8 | parks
  keepWaker: running p | cancel new waker
  deadlinePassed: running p | —
  delayBegins: running p flow 1 at delay 8 | —
  delayEnds: running p | —
  delayPassed: running p | goes on
  """,
  .runningWaitingForInput: """
  start: running | —
  pause: running p | raise flags
  resume: running | —
  cancel: running c | cancel task 0
  sendToWaitingState: running mail 7 | keep
  sendToOtherState: running | deliver to input
  lastHandleGone: running c a | cancel task 0
  adoptCurrentTask: running | —
  adoptStaleTask: running | —
  park: unwinding(7) | parks
  settle: trap
  pauseWaitAtBoundary: running | resume w now
  pauseWaitAtGate: running | resume w now
  waitForInput: running | waits
  end: ended(failed) | —
  retry: running | not ended
  parkAtDelay: unwinding(8) flow 0 at delay 8 | parks
  keepWaker: running | cancel new waker
  deadlinePassed: running | —
  delayBegins: running flow 1 at delay 8 | —
  delayEnds: running | —
  delayPassed: running | goes on
  """,
  .runningPausedWaitingForInput: """
  start: running p | —
  pause: running p | —
  resume: running | lower flags
  cancel: running p c | cancel task 0
  sendToWaitingState: running p mail 7 | keep
  sendToOtherState: running p mail 9 | keep
  lastHandleGone: running p c a | cancel task 0
  adoptCurrentTask: running p | —
  adoptStaleTask: running p | —
  park: unwinding(7) p | parks
  settle: trap
  pauseWaitAtBoundary: running p | waits
  pauseWaitAtGate: running p | resume w now
  waitForInput: running p | waits
  end: ended(failed) | —
  retry: running p | not ended
  parkAtDelay: unwinding(8) p flow 0 at delay 8 | parks
  keepWaker: running p | cancel new waker
  deadlinePassed: running p | —
  delayBegins: running p flow 1 at delay 8 | —
  delayEnds: running p | —
  delayPassed: running p | goes on
  """,
  .runningPausedWaitingWithMail: """
  start: running p mail 9 | —
  pause: running p mail 9 | —
  resume: running | lower flags, deliver mail to input
  cancel: running p c mail 9 | cancel task 0
  sendToWaitingState: running p mail 7,9 | keep
  sendToOtherState: running p mail 9 | refuse
  lastHandleGone: running p c a mail 9 | cancel task 0
  adoptCurrentTask: running p mail 9 | —
  adoptStaleTask: running p mail 9 | —
  park: unwinding(7) p mail 9 | parks
  settle: trap
  pauseWaitAtBoundary: running p mail 9 | waits
  pauseWaitAtGate: running p mail 9 | resume w now
  waitForInput: running p mail 9 | waits
  end: ended(failed) mail 9 | —
  retry: running p mail 9 | not ended
  parkAtDelay: unwinding(8) p mail 9 flow 0 at delay 8 | parks
  keepWaker: running p mail 9 | cancel new waker
  deadlinePassed: running p mail 9 | —
  delayBegins: running p mail 9 flow 1 at delay 8 | —
  delayEnds: running p mail 9 | —
  delayPassed: running p mail 9 | goes on
  """,
  .runningWithMail: """
  start: running mail 7 | —
  pause: running p mail 7 | raise flags
  resume: running mail 7 | —
  cancel: running c mail 7 | cancel task 0
  sendToWaitingState: running mail 7 | refuse
  sendToOtherState: running mail 7,9 | keep
  lastHandleGone: running a mail 7 | —
  adoptCurrentTask: running mail 7 | —
  adoptStaleTask: running mail 7 | —
  park: running mail 7 | goes on
  settle: trap
  pauseWaitAtBoundary: running mail 7 | resume w now
  pauseWaitAtGate: running mail 7 | resume w now
  waitForInput: running | resume w now with mail
  end: ended(failed) mail 7 | —
  retry: running mail 7 | not ended
  parkAtDelay: unwinding(8) mail 7 flow 0 at delay 8 | parks
  keepWaker: running mail 7 | cancel new waker
  deadlinePassed: running mail 7 | —
  delayBegins: running mail 7 flow 1 at delay 8 | —
  delayEnds: running mail 7 | —
  delayPassed: running mail 7 | goes on
  """,
  .runningCancelled: """
  start: running c | —
  pause: running p c | raise flags
  resume: running c | —
  cancel: running c | cancel task 0
  sendToWaitingState: running c mail 7 | keep
  sendToOtherState: running c mail 9 | keep
  lastHandleGone: running c a | —
  adoptCurrentTask: running c | cancel new task
  adoptStaleTask: running c | —
  park: running c | goes on
  settle: trap
  pauseWaitAtBoundary: running c | resume w now
  pauseWaitAtGate: running c | resume w now
  waitForInput: running c | waits
  end: ended(failed) | —
  retry: running c | not ended
  parkAtDelay: running c | goes on
  keepWaker: running c | cancel new waker
  deadlinePassed: running c | —
  delayBegins: running c flow 1 at delay 8 | —
  delayEnds: running c | —
  delayPassed: running c | goes on
  """,
  .runningAbandoned: """
  start: running a | —
  pause: running p a | raise flags
  resume: running a | —
  cancel: running c a | cancel task 0
  sendToWaitingState: running a mail 7 | keep
  sendToOtherState: running a mail 9 | keep
  lastHandleGone: running a | —
  adoptCurrentTask: running a | —
  adoptStaleTask: running a | —
  park: unwinding(7) a | parks
  settle: trap
  pauseWaitAtBoundary: running a | resume w now
  pauseWaitAtGate: running a | resume w now
  waitForInput: running c a | waits, then cancel task 0
  end: ended(failed) | —
  retry: running a | not ended
  parkAtDelay: unwinding(8) a flow 0 at delay 8 | parks
  keepWaker: running a | cancel new waker
  deadlinePassed: running a | —
  delayBegins: running c a flow 1 at delay 8 | cancel task 0
  delayEnds: running a | —
  delayPassed: running a | goes on
  """,
  .unwinding: """
  start: trap
  pause: unwinding(7) p | raise flags
  resume: unwinding(7) | —
  cancel: unwinding(7) c | cancel task 0
  sendToWaitingState: unwinding(7) mail 7 | keep
  sendToOtherState: unwinding(7) mail 9 | keep
  lastHandleGone: unwinding(7) a | —
  adoptCurrentTask: unwinding(7) | —
  adoptStaleTask: unwinding(7) | —
  park: trap
  settle: parked(7) | parked
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: unwinding(7) | not ended
  parkAtDelay: trap
  keepWaker: unwinding(7) | cancel new waker
  deadlinePassed: unwinding(7) | —
  delayBegins: unwinding(7) flow 1 at delay 8 | —
  delayEnds: unwinding(7) | —
  delayPassed: unwinding(7) | goes on
  """,
  .unwindingWithMail: """
  start: trap
  pause: unwinding(7) p mail 7 | raise flags
  resume: unwinding(7) mail 7 | —
  cancel: unwinding(7) c mail 7 | cancel task 0
  sendToWaitingState: unwinding(7) mail 7 | refuse
  sendToOtherState: unwinding(7) mail 7,9 | keep
  lastHandleGone: unwinding(7) a mail 7 | —
  adoptCurrentTask: unwinding(7) mail 7 | —
  adoptStaleTask: unwinding(7) mail 7 | —
  park: trap
  settle: running mail 7 | goes on
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: unwinding(7) mail 7 | not ended
  parkAtDelay: trap
  keepWaker: unwinding(7) mail 7 | cancel new waker
  deadlinePassed: unwinding(7) mail 7 | —
  delayBegins: unwinding(7) mail 7 flow 1 at delay 8 | —
  delayEnds: unwinding(7) mail 7 | —
  delayPassed: unwinding(7) mail 7 | goes on
  """,
  .unwindingPausedWithMail: """
  start: trap
  pause: unwinding(7) p mail 7 | —
  resume: unwinding(7) mail 7 | lower flags
  cancel: unwinding(7) p c mail 7 | cancel task 0
  sendToWaitingState: unwinding(7) p mail 7 | refuse
  sendToOtherState: unwinding(7) p mail 7,9 | keep
  lastHandleGone: unwinding(7) p a mail 7 | —
  adoptCurrentTask: unwinding(7) p mail 7 | —
  adoptStaleTask: unwinding(7) p mail 7 | —
  park: trap
  settle: parked(7) p mail 7 | parked
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: unwinding(7) p mail 7 | not ended
  parkAtDelay: trap
  keepWaker: unwinding(7) p mail 7 | cancel new waker
  deadlinePassed: unwinding(7) p mail 7 | —
  delayBegins: unwinding(7) p mail 7 flow 1 at delay 8 | —
  delayEnds: unwinding(7) p mail 7 | —
  delayPassed: unwinding(7) p mail 7 | goes on
  """,
  .unwindingAbandoned: """
  start: trap
  pause: unwinding(7) p a | raise flags
  resume: unwinding(7) a | —
  cancel: unwinding(7) c a | cancel task 0
  sendToWaitingState: unwinding(7) a mail 7 | keep
  sendToOtherState: unwinding(7) a mail 9 | keep
  lastHandleGone: unwinding(7) a | —
  adoptCurrentTask: unwinding(7) a | —
  adoptStaleTask: unwinding(7) a | —
  park: trap
  settle: running c a | goes on, cancelled
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: unwinding(7) a | not ended
  parkAtDelay: trap
  keepWaker: unwinding(7) a | cancel new waker
  deadlinePassed: unwinding(7) a | —
  delayBegins: unwinding(7) c a flow 1 at delay 8 | cancel task 0
  delayEnds: unwinding(7) a | —
  delayPassed: unwinding(7) a | goes on
  """,
  .parked: """
  start: trap
  pause: parked(7) p | raise flags
  resume: parked(7) | —
  cancel: running c | start task 1 for flow, cancelled
  sendToWaitingState: running handed over at 7 | start task 1 for flow
  sendToOtherState: parked(7) mail 9 | keep
  lastHandleGone: running c a | start task 1 for flow, cancelled
  adoptCurrentTask: parked(7) | —
  adoptStaleTask: parked(7) | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(7) | not ended
  parkAtDelay: trap
  keepWaker: parked(7) | cancel new waker
  deadlinePassed: parked(7) | —
  delayBegins: parked(7) flow 1 at delay 8 | —
  delayEnds: parked(7) | —
  delayPassed: parked(7) | goes on
  """,
  .parkedPaused: """
  start: trap
  pause: parked(7) p | —
  resume: parked(7) | lower flags
  cancel: running p c | start task 1 for flow, cancelled
  sendToWaitingState: parked(7) p mail 7 | keep
  sendToOtherState: parked(7) p mail 9 | keep
  lastHandleGone: running p c a | start task 1 for flow, cancelled
  adoptCurrentTask: parked(7) p | —
  adoptStaleTask: parked(7) p | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(7) p | not ended
  parkAtDelay: trap
  keepWaker: parked(7) p | cancel new waker
  deadlinePassed: parked(7) p | —
  delayBegins: parked(7) p flow 1 at delay 8 | —
  delayEnds: parked(7) p | —
  delayPassed: parked(7) p | goes on
  """,
  .parkedPausedWithMail: """
  start: trap
  pause: parked(7) p mail 7 | —
  resume: running mail 7 | lower flags, start task 1 for flow
  cancel: running p c mail 7 | start task 1 for flow, cancelled
  sendToWaitingState: parked(7) p mail 7 | refuse
  sendToOtherState: parked(7) p mail 7,9 | keep
  lastHandleGone: running p c a mail 7 | start task 1 for flow, cancelled
  adoptCurrentTask: parked(7) p mail 7 | —
  adoptStaleTask: parked(7) p mail 7 | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(7) p mail 7 | not ended
  parkAtDelay: trap
  keepWaker: parked(7) p mail 7 | cancel new waker
  deadlinePassed: parked(7) p mail 7 | —
  delayBegins: parked(7) p mail 7 flow 1 at delay 8 | —
  delayEnds: parked(7) p mail 7 | —
  delayPassed: parked(7) p mail 7 | goes on
  """,
  .endedFailed: """
  start: trap
  pause: ended(failed) | —
  resume: ended(failed) | —
  cancel: ended(failed) | —
  sendToWaitingState: ended(failed) | refuse
  sendToOtherState: ended(failed) | refuse
  lastHandleGone: ended(failed) | —
  adoptCurrentTask: ended(failed) | —
  adoptStaleTask: ended(failed) | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: ended(failed) | failed
  parkAtDelay: trap
  keepWaker: ended(failed) | cancel new waker
  deadlinePassed: ended(failed) | —
  delayBegins: ended(failed) | —
  delayEnds: ended(failed) | —
  delayPassed: ended(failed) | goes on
  """,
  .endedSucceeded: """
  start: trap
  pause: ended(succeeded) | —
  resume: ended(succeeded) | —
  cancel: ended(succeeded) | —
  sendToWaitingState: ended(succeeded) | refuse
  sendToOtherState: ended(succeeded) | refuse
  lastHandleGone: ended(succeeded) | —
  adoptCurrentTask: ended(succeeded) | —
  adoptStaleTask: ended(succeeded) | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: ended(succeeded) | succeeded
  parkAtDelay: trap
  keepWaker: ended(succeeded) | cancel new waker
  deadlinePassed: ended(succeeded) | —
  delayBegins: ended(succeeded) | —
  delayEnds: ended(succeeded) | —
  delayPassed: ended(succeeded) | goes on
  """,
  .runningInDelay: """
  start: running flow 1 at delay 8 | —
  pause: running p flow 1 at delay 8 | raise flags
  resume: running flow 1 at delay 8 | —
  cancel: running c flow 1 at delay 8 | cancel task 0
  sendToWaitingState: running mail 7 flow 1 at delay 8 | keep
  sendToOtherState: running mail 9 flow 1 at delay 8 | keep
  lastHandleGone: running c a flow 1 at delay 8 | cancel task 0
  adoptCurrentTask: running flow 1 at delay 8 | —
  adoptStaleTask: running flow 1 at delay 8 | —
  park: unwinding(7) flow 1 at delay 8 | parks
  settle: trap
  pauseWaitAtBoundary: running flow 1 at delay 8 | resume w now
  pauseWaitAtGate: running flow 1 at delay 8 | resume w now
  waitForInput: running flow 1 at delay 8 | waits
  end: ended(failed) | —
  retry: running flow 1 at delay 8 | not ended
  parkAtDelay: unwinding(8) flow 0 at delay 8 flow 1 at delay 8 | parks
  keepWaker: running flow 1 at delay 8 | cancel new waker
  deadlinePassed: running flow 1 at delay 8 | —
  delayBegins: running flow 1 at delay 8 | —
  delayEnds: running | —
  delayPassed: running | goes on
  """,
  .runningPausedAtDueDelay: """
  start: running p flow 1 at delay 8 due | —
  pause: running p flow 1 at delay 8 due | —
  resume: running flow 1 at delay 8 due | lower flags
  cancel: running p c flow 1 at delay 8 due | cancel task 0
  sendToWaitingState: running p mail 7 flow 1 at delay 8 due | keep
  sendToOtherState: running p mail 9 flow 1 at delay 8 due | keep
  lastHandleGone: running p c a flow 1 at delay 8 due | cancel task 0
  adoptCurrentTask: running p flow 1 at delay 8 due | —
  adoptStaleTask: running p flow 1 at delay 8 due | —
  park: unwinding(7) p flow 1 at delay 8 due | parks
  settle: trap
  pauseWaitAtBoundary: running p flow 1 at delay 8 due | waits
  pauseWaitAtGate: running p flow 1 at delay 8 due | resume w now
  waitForInput: running p flow 1 at delay 8 due | waits
  end: ended(failed) | —
  retry: running p flow 1 at delay 8 due | not ended
  parkAtDelay: unwinding(8) p flow 0 at delay 8 flow 1 at delay 8 due | parks
  keepWaker: running p flow 1 at delay 8 due | cancel new waker
  deadlinePassed: running p flow 1 at delay 8 due | —
  delayBegins: running p flow 1 at delay 8 | —
  delayEnds: running p | —
  delayPassed: running p flow 1 at delay 8 due | stands at 8
  """,
  .unwindingAtDelay: """
  start: trap
  pause: unwinding(8) p flow 0 at delay 8 | raise flags
  resume: unwinding(8) flow 0 at delay 8 | —
  cancel: unwinding(8) c flow 0 at delay 8 | cancel task 0
  sendToWaitingState: unwinding(8) mail 7 flow 0 at delay 8 | keep
  sendToOtherState: unwinding(8) mail 9 flow 0 at delay 8 | keep
  lastHandleGone: unwinding(8) a flow 0 at delay 8 | —
  adoptCurrentTask: unwinding(8) flow 0 at delay 8 | —
  adoptStaleTask: unwinding(8) flow 0 at delay 8 | —
  park: trap
  settle: parked(8) flow 0 at delay 8 | parked until 1970-01-01T00:01:40Z, waker 0
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: unwinding(8) flow 0 at delay 8 | not ended
  parkAtDelay: trap
  keepWaker: unwinding(8) flow 0 at delay 8 | cancel new waker
  deadlinePassed: unwinding(8) flow 0 at delay 8 | —
  delayBegins: unwinding(8) flow 0 at delay 8 flow 1 at delay 8 | —
  delayEnds: unwinding(8) flow 0 at delay 8 | —
  delayPassed: unwinding(8) flow 0 at delay 8 | goes on
  """,
  .parkedAtDelay: """
  start: trap
  pause: parked(8) p flow 0 at delay 8 | raise flags
  resume: parked(8) flow 0 at delay 8 | —
  cancel: running c | start task 1 for flow, cancelled, cancel waker
  sendToWaitingState: parked(8) mail 7 flow 0 at delay 8 | keep
  sendToOtherState: parked(8) mail 9 flow 0 at delay 8 | keep
  lastHandleGone: running c a | start task 1 for flow, cancelled, cancel waker
  adoptCurrentTask: parked(8) flow 0 at delay 8 | —
  adoptStaleTask: parked(8) flow 0 at delay 8 | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(8) flow 0 at delay 8 | not ended
  parkAtDelay: trap
  keepWaker: parked(8) flow 0 at delay 8 | cancel waker
  deadlinePassed: running | start task 1 for flow
  delayBegins: parked(8) flow 0 at delay 8 flow 1 at delay 8 | —
  delayEnds: parked(8) flow 0 at delay 8 | —
  delayPassed: parked(8) flow 0 at delay 8 | goes on
  """,
  .parkedAtDelayPaused: """
  start: trap
  pause: parked(8) p flow 0 at delay 8 | —
  resume: parked(8) flow 0 at delay 8 | lower flags
  cancel: running p c | start task 1 for flow, cancelled, cancel waker
  sendToWaitingState: parked(8) p mail 7 flow 0 at delay 8 | keep
  sendToOtherState: parked(8) p mail 9 flow 0 at delay 8 | keep
  lastHandleGone: running p c a | start task 1 for flow, cancelled, cancel waker
  adoptCurrentTask: parked(8) p flow 0 at delay 8 | —
  adoptStaleTask: parked(8) p flow 0 at delay 8 | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(8) p flow 0 at delay 8 | not ended
  parkAtDelay: trap
  keepWaker: parked(8) p flow 0 at delay 8 | cancel waker
  deadlinePassed: parked(8) p flow 0 at delay 8 due | —
  delayBegins: parked(8) p flow 0 at delay 8 flow 1 at delay 8 | —
  delayEnds: parked(8) p flow 0 at delay 8 | —
  delayPassed: parked(8) p flow 0 at delay 8 | goes on
  """,
  .parkedAtDelayDue: """
  start: trap
  pause: parked(8) p flow 0 at delay 8 due | —
  resume: running | lower flags, start task 1 for flow
  cancel: running p c | start task 1 for flow, cancelled
  sendToWaitingState: parked(8) p mail 7 flow 0 at delay 8 due | keep
  sendToOtherState: parked(8) p mail 9 flow 0 at delay 8 due | keep
  lastHandleGone: running p c a | start task 1 for flow, cancelled
  adoptCurrentTask: parked(8) p flow 0 at delay 8 due | —
  adoptStaleTask: parked(8) p flow 0 at delay 8 due | —
  park: trap
  settle: trap
  pauseWaitAtBoundary: trap
  pauseWaitAtGate: trap
  waitForInput: trap
  end: trap
  retry: parked(8) p flow 0 at delay 8 due | not ended
  parkAtDelay: trap
  keepWaker: parked(8) p flow 0 at delay 8 due | cancel new waker
  deadlinePassed: parked(8) p flow 0 at delay 8 due | —
  delayBegins: parked(8) p flow 0 at delay 8 flow 1 at delay 8 due | —
  delayEnds: parked(8) p flow 0 at delay 8 due | —
  delayPassed: parked(8) p flow 0 at delay 8 due | goes on
  """,
]

@Suite struct LiveRunStateMachineTests {
  @Test(arguments: StartingState.allCases)
  func everyEventInEveryState(_ state: StartingState) {
    var row: [String] = []
    for event in Event.allCases {
      var machine = state.machine
      if event.traps(in: machine.phase) {
        row.append("\(event.rawValue): trap")
        continue
      }
      let action = event.apply(to: &machine)
      row.append("\(event.rawValue): \(describe(machine)) | \(action)")
    }
    #expect(row.joined(separator: "\n") == expected[state])

  }

  /// One state of each phase, for the events that cannot happen there.
  static let impossible: [(StartingState, Event)] =
    [StartingState.held, .running, .unwinding, .parked, .parkedAtDelay, .endedFailed].flatMap {
      state in
      Event.allCases.filter { $0.traps(in: state.machine.phase) }.map { (state, $0) }
    }

  @Test(arguments: impossible)
  func anImpossibleEventTraps(_ state: StartingState, _ event: Event) async {
    await #expect(processExitsWith: .failure) { [state, event] in
      var machine = state.machine
      _ = event.apply(to: &machine)
    }
  }
}

@Suite struct LiveRunStateMachineWaitTests {
  @Test func aPauseWaitReportsItsResumptionOnlyWhenItWaitedAndWasNotCancelled() {
    var machine = StartingState.runningPaused.machine
    let woken = machine.beginWait()
    _ = machine.suspend(woken, waiter: "woken", before: 3, flow: 0)
    let cancelled = machine.beginWait()
    _ = machine.suspend(cancelled, waiter: "cancelled", before: 4, flow: 1)
    #expect(machine.waits == [woken: .paused, cancelled: .paused])
    let cancelledWaiter = machine.cancelPauseWait(cancelled)
    #expect(cancelledWaiter == "cancelled")
    if case .lowerPauseFlags(let waking, _) = machine.resume() {
      #expect(waking == ["woken"])
    } else {
      Issue.record("a paused run's resume lowers the flags")
    }
    #expect(machine.waits == [woken: .woken])
    let reportsWoken = machine.endWait(woken)
    let reportsCancelled = machine.endWait(cancelled)
    #expect(reportsWoken)
    #expect(!reportsCancelled)
    #expect(machine.waits.isEmpty)
  }

  @Test func aWaitCancelledBeforeItSuspendsGoesAtOnce() {
    var machine = StartingState.runningPaused.machine
    let wait = machine.beginWait()
    let waiter = machine.cancelPauseWait(wait)
    #expect(waiter == nil)
    guard case .resumeNow("w") = machine.suspend(wait, waiter: "w", before: 3, flow: 0) else {
      Issue.record("a cancelled wait does not wait")
      return
    }
    let input = machine.beginWait()
    let inputWaiter = machine.cancelInputWait(input, at: 9)
    #expect(inputWaiter == nil)
    guard case .resumeNow("i", let value) = machine.suspend(input, at: 9, waiter: "i") else {
      Issue.record("a cancelled wait for input does not wait")
      return
    }
    #expect(value == nil)
  }

  @Test func aCancelledWaitForInputGivesBackOnlyItsOwnWaiter() {
    var machine = StartingState.running.machine
    let first = machine.beginWait()
    _ = machine.suspend(first, at: 9, waiter: "first")
    #expect(machine.waits[first] == .waitingForInput(at: 9))
    // Another wait at the same state, cancelled: it does not take the first one's waiter.
    let second = machine.beginWait()
    let secondWaiter = machine.cancelInputWait(second, at: 9)
    let firstWaiter = machine.cancelInputWait(first, at: 9)
    #expect(secondWaiter == nil)
    #expect(firstWaiter == "first")
    #expect(machine.waits.isEmpty)
  }

  @Test func aValueHandedOverIsTakenBeforeTheMailboxAndOnlyOnce() {
    var machine = StartingState.parked.machine
    _ = machine.send("handed", to: StartingState.waitingState)
    _ = machine.send("kept", to: StartingState.waitingState)
    let first = machine.beginWait()
    guard case .resumeNow(_, let value) = machine.suspend(first, at: 7, waiter: "w") else {
      Issue.record("the value handed over arrives at once")
      return
    }
    #expect(value as? String == "handed")
    guard case .resumeNow(_, let next) = machine.suspend(machine.beginWait(), at: 7, waiter: "w")
    else {
      Issue.record("the value kept meanwhile waits for the state's next visit")
      return
    }
    #expect(next as? String == "kept")
  }

  @Test func positionsFollowTheFlowsAndEndWithTheRun() {
    var machine = StartingState.running.machine
    machine.enter(2, flow: 0)
    let first = machine.startBranch(at: 2)
    let second = machine.startBranch(at: 2)
    #expect((first, second) == (1, 2))
    machine.enter(5, flow: second)
    #expect(machine.positions.states == [2, 2, 5])
    machine.endBranch(first)
    #expect(machine.positions.states == [2, 5])
    #expect(machine.positions.firstFlow { $0 == 5 }?.flow == 2)
    machine.end(succeeded: true)
    #expect(machine.positions.states.isEmpty)
    #expect(!machine.isPaused && machine.hasEnded && !machine.hasTask)
  }

  @Test func aTaskStartedForAParkedFlowIsAdoptedOnlyByItsNumber() {
    var machine = StartingState.parked.machine
    guard case .startTask(let start) = machine.send(1, to: StartingState.waitingState) else {
      Issue.record("a value for the parked state starts a task")
      return
    }
    #expect(start.number == 1 && !start.isCancelled && start.flow == "flow")
    _ = machine.adopt("old", number: 0)
    #expect(!machine.hasTask)
    _ = machine.adopt("new", number: 1)
    #expect(machine.hasTask)
  }
}
