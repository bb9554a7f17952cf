/// Walks a compiled graph: the runtime behind ``Flowchart/run(with:stepLimit:isolation:)`` and
/// ``Flowchart/runSynchronously(with:stepLimit:)``.
///
/// ## The shape of a run
///
/// Each flow of a run (the top-level flow, and each dispatch branch) has a ``Cursor``: the
/// state it is at, the states it entered, and in a synchronous run the dispatches waiting
/// for its branches. Flows that stop together share a ``RunControl``, whose flags the loops
/// read in one atomic load at each state boundary. The loops only move cursors, each in a
/// file of its own:
///
/// - `Interpreter+Synchronous.swift`: ``runSynchronousStates(cursor:context:control:reporting:)``
///   runs consecutive synchronous states in one tight loop, with no suspension, no
///   allocation and no retain per step: the fast path, used by every kind of run;
/// - `Interpreter+InPlace.swift`: a synchronous subflow's chart run in place, in a small loop
///   of its own inside the synchronous one;
/// - `Interpreter+Asynchronous.swift`: ``run(cursor:context:control:isolation:)``, the
///   asynchronous loop, hands it each stretch of synchronous states and runs asynchronous
///   states itself, the rarer ones (dispatch, final asynchronous multiple condition,
///   modified state) out of line;
/// - `Interpreter+Dispatch.swift`: a dispatch's branches as child tasks or workers;
/// - `Interpreter+PendingJoins.swift`: ``runSynchronously(cursor:context:)`` runs a
///   synchronous chart without suspending, dispatches included, keeping the dispatches it is
///   inside on the cursor's stack of pending joins rather than in the call stack;
/// - `Interpreter+Modifiers.swift`: a state with a timeout, retries or catch routes, in
///   either kind of run.
///
/// A kind of state may be met by more than one loop (a synchronous action runs in the
/// synchronous loop, in a subflow's visit in place, and inside a modified state), but its
/// code is called in one place: ``Node/callSynchronously(_:)`` for synchronous code and
/// ``Node/call(_:)`` for any code, which every loop uses. The `switch`es over
/// ``Node/Kind`` that route a kind to its loop list every kind, with no `default:`, so a new
/// kind must be placed in each. Every step ends in the one transition rule,
/// ``Outcome/follow(from:state:)`` (through ``Cursor/follow(_:from:)`` where there is a
/// cursor), and a dispatch's join (``join(_:_:at:original:into:path:)``,
/// `Interpreter+Join.swift`) is written once for both kinds of run.
///
/// Every boundary goes through ``enter(_:path:flow:control:)`` or one of its cheaper forms
/// (`Interpreter+Boundaries.swift`), and every flow's end through
/// ``endFlow(at:path:control:)``. A capability that acts at boundaries is added there, not
/// as a second interpreter: a pause raises a ``RunControl`` flag and waits in the slow path
/// of `enter`, with the cursor (and the context) as the position to resume from; an
/// observer is told the cursor there; a snapshot of a run is its flows' cursors and
/// contexts (in a synchronous run, one cursor whose pending joins hold the branches that
/// have ended; in an asynchronous run, one cursor per running branch task). The errors the
/// loops throw are made and worded in `Interpreter+Failures.swift`.
///
/// Following an arrow is an assignment to the cursor, never a call, so long and cyclic
/// runs do not grow the stack.
@usableFromInline
struct Interpreter<Context: Sendable>: Sendable {
  @usableFromInline let graph: Graph<Context>
  /// The most states a flow may enter; `Int.max` for no limit.
  @usableFromInline let stepLimit: Int

  @usableFromInline
  init(graph: Graph<Context>, stepLimit: Int) {
    self.graph = graph
    self.stepLimit = stepLimit
  }
}
