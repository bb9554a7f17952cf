extension Interpreter {
  /// Runs a stretch of synchronous states, as
  /// ``runSynchronousStates(cursor:context:control:reporting:)`` does, on `isolation`: the
  /// actor the run was started from (see ``Flowchart/run(with:stepLimit:isolation:)``).
  ///
  /// The asynchronous loop stays `nonisolated` and calls this only for a run started on an
  /// actor, so a run started elsewhere pays one test per stretch for it, and a run started on
  /// an actor pays one hop to the actor and one back per stretch, not per state.
  @inlinable @inline(never)
  func runSynchronousStates(
    on isolation: isolated any Actor, cursor: inout Cursor<Context>, context: inout Context,
    control: RunControl
  ) throws(RunError) -> Decision? {
    if _slowPath(control.isObserved) {
      try runSynchronousStates(
        cursor: &cursor, context: &context, control: control, reporting: Reported.self)
    } else {
      try runSynchronousStates(
        cursor: &cursor, context: &context, control: control, reporting: Unreported.self)
    }
  }
}
