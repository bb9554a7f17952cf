/// How a run ended: at which final state, with what decision and what context.
public struct RunResult<Context: Sendable>: Sendable {
  /// The final state that ended the run.
  public let finalState: StateID
  /// The name of ``finalState``.
  public let finalStateName: String
  /// What the final state decided.
  public let decision: Decision
  /// The context as the run left it.
  public let context: Context
  /// The states the run entered, oldest first, ending with ``finalState``.
  ///
  /// A dispatch is followed by the states of its branches, branch by branch in declaration
  /// order. Only the most recent ``RunResult/pathCapacity`` states are kept, so a long or
  /// cyclic run uses constant memory; ``stepCount`` counts them all.
  public let path: [StateID]
  /// How many states the run entered, including those of dispatch branches.
  public let stepCount: Int

  /// How many of the most recent states ``path`` keeps.
  public static var pathCapacity: Int { PathRecorder.maximumCapacity }
}
