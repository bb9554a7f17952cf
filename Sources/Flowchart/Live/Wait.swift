/// A state that waits until the run is given a value from outside, applies it to the
/// context, then follows its one exit: Task.framework's external-condition task.
///
/// A live run (``Flowchart/start(with:stepLimit:clock:isPaused:isLogged:observer:isolation:)``) takes
/// the value from ``RunHandle/send(_:to:)-(_,String)``. A value sent before the run reaches
/// the state is kept until it does; the first value sent wins until the state takes it.
/// While the state waits, the run reports ``RunEvent/Kind/waitingForInput``; cancelling the
/// run ends the wait at once. A run that waits at its top level (not in a dispatch branch, a
/// map or a subflow, and with no modifier on the state) holds no task while it waits: it
/// parks, and the value starts a new task that goes on from the state, at the run's
/// priority but without the task-local values of the code that started the run.
///
/// ```swift
/// Wait("Photo 1 available", for: Photo.self) { order, photo in
///   order.photos.append(photo)
/// }
/// ```
///
/// A run started with `run(with:)` has no handle to send to: it fails at the state with a
/// ``RunError/Kind/thrown`` error that says so. Printed `W`.
///
/// A waiting state can also decide after it applies the value: yes or no, with the exits of
/// a ``Condition`` (``init(_:for:fileID:line:_:yes:no:)``), or a key, with the exits of a
/// ``MultipleCondition`` (``init(_:for:fileID:line:_:exits:)``).
public struct Wait<Context: Sendable, Input: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a state that waits for a value of type `Input`.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results, and the name
  ///     ``RunHandle/send(_:to:)-(_,String)`` addresses; it must then be unique.
  ///   - type: The type of the value the state waits for; leave it out when the closure
  ///     names it (`{ (order: inout Order, approved: Bool) in … }`).
  ///   - isFinal: Whether the flow ends after the value is applied.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - apply: Applies the value to the run's context; an error it throws ends the run.
  public init(
    _ name: String,
    for type: Input.Type = Input.self,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ apply: @escaping @Sendable (inout Context, Input) throws -> Void
  ) {
    let slot = InputSlot(inputType: Input.self, stateName: name) { $0 is Input }
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .waiting, body: .next,
      code: DeclaredCode(
        .asyncAction,
        AsyncActionBox { context in
          let value = try await slot.receive()
          guard let input = value as? Input else { throw slot.mismatch(value) }
          try apply(&context, input)
        }),
      attachment: slot)
  }
}

/// What a waiting state's declaration attaches: the type it waits for, and the identity the
/// live run's mailbox knows it by.
final class InputSlot: Sendable {
  let inputType: any Sendable.Type
  let stateName: String
  /// Whether a value is of the type the state waits for.
  let accepts: @Sendable (any Sendable) -> Bool

  init(
    inputType: any Sendable.Type, stateName: String,
    accepts: @escaping @Sendable (any Sendable) -> Bool
  ) {
    self.inputType = inputType
    self.stateName = stateName
    self.accepts = accepts
  }

  /// The value sent to this state in the current live run, once there is one.
  func receive() async throws -> any Sendable {
    guard let inbox = LiveInbox.current else {
      throw WaitOutsideLiveRun(stateName: stateName)
    }
    switch await inbox.receive(for: self) {
    case .value(let value): return value
    case .cancelled: throw CancellationError()
    case .unreachable: throw WaitOutsideLiveRun(stateName: stateName, isNested: true)
    }
  }

  func mismatch(_ value: any Sendable) -> any Error {
    WaitOutsideLiveRun(stateName: stateName, received: "\(type(of: value))")
  }
}

/// What a waiting state throws when nothing can feed it: a clause of the package's own, so a
/// run error tells it as its cause (`The run stopped at waiting state 'Approval' (…): it
/// waits for a value sent from outside, …`).
package struct WaitOutsideLiveRun: SelfExplainingError {
  /// The waiting state's name.
  package let stateName: String
  /// The type of a value the state received that is not of the type it waits for.
  package var received: String? = nil
  /// Whether the state is in the chart of a subflow or a map of a live run, whose handle
  /// addresses only the states of its own chart.
  package var isNested = false

  /// What the description advises a run that no one can send a value to; a front end with
  /// its own way to send one (the tool's `--send`) puts its own advice in its place.
  package static let liveRunAdvice =
    "start the run with `chart.start(with:)` and send the value with `handle.send(_:to:)`"

  package var description: String {
    if isNested {
      return
        "it is in the chart of a subflow or a map, and a live run feeds only the waiting states of its own chart (those `handle.send(_:to:)` can name): move the Wait into the outer chart, and pass the value to the inner chart in its context"
    }
    if let received {
      return "it received a \(received), which is not the type it waits for"
    }
    return
      "it waits for a value sent from outside, which only a live run can send: \(Self.liveRunAdvice)"
  }
}

/// The mailbox a live run lends its waiting states, through a task-local value that its
/// task (and every dispatch branch under it) inherits.
protocol InputReceiving: Sendable {
  func receive(for slot: InputSlot) async -> ReceivedInput
}

/// What a live run's mailbox gives a waiting state that asks for its value.
enum ReceivedInput {
  /// The value sent to the state.
  case value(any Sendable)
  /// The run was cancelled while the state waited.
  case cancelled
  /// No flow of the run is at the state: it is in the chart of a subflow or a map, which
  /// runs inside the run's task but is not the run's chart.
  case unreachable
}

enum LiveInbox {
  @TaskLocal static var current: (any InputReceiving)?
}
