/// What the runtime does at one state. Each case holds exactly the closure it calls, so the
/// run loop does no lookups: it switches, calls, and follows an index.
@usableFromInline
enum Instruction<Context: Sendable>: Sendable {
  /// An action with no work.
  case pass
  /// A synchronous action.
  case action(@Sendable (inout Context) throws -> Void)
  /// A synchronous condition.
  case condition(@Sendable (inout Context) throws -> Bool)
  /// A synchronous multiple condition: returns the index of the state its key leads to.
  case select(@Sendable (inout Context) throws -> Int32)
  /// A synchronous final multiple condition: returns the key it decided.
  case decideKey(@Sendable (inout Context) throws -> any Hashable & Sendable)
  /// An asynchronous action.
  case asyncAction(@Sendable (inout Context) async throws -> Void)
  /// An asynchronous condition.
  case asyncCondition(@Sendable (inout Context) async throws -> Bool)
  /// An asynchronous multiple condition: returns the index of the state its key leads to.
  case asyncSelect(@Sendable (inout Context) async throws -> Int32)
  /// An asynchronous final multiple condition: returns the key it decided.
  case asyncDecideKey(@Sendable (inout Context) async throws -> any Hashable & Sendable)
  /// A dispatch: the index of its plan in ``Graph/dispatches``.
  case dispatch(Int32)
}

/// One compiled state, as the run loop sees it.
@usableFromInline
struct Node<Context: Sendable>: Sendable {
  @usableFromInline var instruction: Instruction<Context>
  /// The next state of an action or dispatch, or the `yes` exit of a condition;
  /// ``Node/none`` for a final state.
  @usableFromInline var next: Int32
  /// The `no` exit of a condition; ``Node/none`` otherwise.
  @usableFromInline var alternative: Int32
  @usableFromInline var isFinal: Bool

  /// The index that stands for "no state".
  @usableFromInline static var none: Int32 { -1 }
}

/// How a dispatch runs: where each branch starts and how its context folds back.
@usableFromInline
struct DispatchPlan<Context: Sendable>: Sendable {
  @usableFromInline var branchStarts: [Int32]
  @usableFromInline var merge: (@Sendable (inout Context, Context) throws -> Void)?
}

/// What the graph knows of a state beyond what the run loop needs: for queries, printing
/// and messages. Never read on the hot path.
struct StateRecord: Sendable {
  var name: String
  var kind: StateKind
  var isFinal: Bool
  var isAsynchronous: Bool
  var location: SourceLocation
  var exits: [Exit]
  /// The flow the state belongs to: 0 for the top level, then one per dispatch branch.
  var flow: Int32
}

/// The compiled, immutable graph shared by every copy of a ``Flowchart``.
@usableFromInline
final class Graph<Context: Sendable>: Sendable {
  @usableFromInline let nodes: ContiguousArray<Node<Context>>
  @usableFromInline let dispatches: [DispatchPlan<Context>]
  let records: [StateRecord]
  let start: Int32
  let entryPoints: [Int32]
  let statesByName: [String: [Int32]]
  /// The states that are asynchronous, or dispatches: empty when the chart can run
  /// synchronously.
  let asynchronousStates: [Int32]

  init(
    nodes: ContiguousArray<Node<Context>>, dispatches: [DispatchPlan<Context>],
    records: [StateRecord], start: Int32, entryPoints: [Int32], statesByName: [String: [Int32]]
  ) {
    self.nodes = nodes
    self.dispatches = dispatches
    self.records = records
    self.start = start
    self.entryPoints = entryPoints
    self.statesByName = statesByName
    asynchronousStates = records.indices.filter { records[$0].isAsynchronous }.map { Int32($0) }
  }
}
