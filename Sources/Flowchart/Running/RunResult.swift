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
  /// The chart's graph, to name the states of ``path`` on demand.
  let graph: Graph<Context>

  /// The names of the states in ``path``, in the same order: what a log or a test shows,
  /// without looking each state up in the chart.
  public var pathNames: [String] { path.map { graph.records[$0.index].name } }

  /// How many of the most recent states ``path`` keeps.
  public static var pathCapacity: Int { PathRecorder.maximumCapacity }

  @usableFromInline
  init(
    finalState: StateID, finalStateName: String, decision: Decision, context: Context,
    path: [StateID], stepCount: Int, graph: Graph<Context>
  ) {
    self.finalState = finalState
    self.finalStateName = finalStateName
    self.decision = decision
    self.context = context
    self.path = path
    self.stepCount = stepCount
    self.graph = graph
  }
}
