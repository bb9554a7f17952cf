/// What a state does, as the compiler emits it: the closure to call, with its exact type.
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

// A state's closure lives in a box of its own, so the run loop can call it through an
// unmanaged reference without retaining and releasing it on every step. Each box stores
// its closure with the closure's exact type (not a generic `Function`), so calling it
// needs no reabstraction thunk. Asynchronous states, which cannot borrow across `await`
// anyway, share one box that holds their instruction.

/// The box of a synchronous action.
@usableFromInline
final class ActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Void
  init(_ function: @escaping @Sendable (inout Context) throws -> Void) { self.function = function }
}

/// The box of a synchronous condition.
@usableFromInline
final class ConditionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Bool
  init(_ function: @escaping @Sendable (inout Context) throws -> Bool) { self.function = function }
}

/// The box of a synchronous, non-final multiple condition.
@usableFromInline
final class SelectBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Int32
  init(_ function: @escaping @Sendable (inout Context) throws -> Int32) { self.function = function }
}

/// The box of an asynchronous action.
@usableFromInline
final class AsyncActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Void
  init(_ function: @escaping @Sendable (inout Context) async throws -> Void) {
    self.function = function
  }
}

/// The box of an asynchronous condition.
@usableFromInline
final class AsyncConditionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Bool
  init(_ function: @escaping @Sendable (inout Context) async throws -> Bool) {
    self.function = function
  }
}

/// The box of an asynchronous, non-final multiple condition.
@usableFromInline
final class AsyncSelectBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Int32
  init(_ function: @escaping @Sendable (inout Context) async throws -> Int32) {
    self.function = function
  }
}

/// The box of a final multiple condition's instruction, synchronous or not: called once
/// per run at most, so it needs no fast path.
@usableFromInline
final class InstructionBox<Context: Sendable>: Sendable {
  @usableFromInline let instruction: Instruction<Context>
  init(_ instruction: Instruction<Context>) { self.instruction = instruction }
}

/// One compiled state, as the run loop sees it: a plain value with no reference counting,
/// so reading it costs a load.
@usableFromInline
struct Node {
  /// What the state does; says which closure type ``code`` holds.
  @usableFromInline
  enum Kind: UInt8, Sendable {
    case pass, action, condition, select, decideKey
    case asyncAction, asyncCondition, asyncSelect, asyncDecideKey, dispatch

    /// Whether the kind needs the asynchronous loop.
    @inlinable var suspends: Bool { rawValue >= Kind.asyncAction.rawValue }
  }

  @usableFromInline var kind: Kind
  @usableFromInline var isFinal: Bool
  /// The next state of an action or dispatch, or the `yes` exit of a condition;
  /// ``Node/none`` for a final state.
  @usableFromInline var next: Int32
  /// The `no` exit of a condition, or the plan index of a dispatch; ``Node/none`` otherwise.
  @usableFromInline var alternative: Int32
  /// The state's ``CodeBox``, unretained; ``Graph/codeBoxes`` keeps it alive for as long
  /// as the graph lives. `nil` for `pass` and `dispatch`.
  @usableFromInline var code: UnsafeRawPointer?

  /// The index that stands for "no state".
  @usableFromInline static var none: Int32 { -1 }

  /// Calls the state's synchronous action, borrowed: no retain, no release.
  ///
  /// - Precondition: ``kind`` is ``Kind/action``, and the graph that owns the node is alive.
  @inlinable @inline(__always)
  func perform<Context: Sendable>(_ context: inout Context) throws {
    try Unmanaged<ActionBox<Context>>.fromOpaque(code.unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef { try $0.function(&context) }
  }

  /// Calls the state's synchronous condition, borrowed.
  ///
  /// - Precondition: ``kind`` is ``Kind/condition``, and the graph is alive.
  @inlinable @inline(__always)
  func decide<Context: Sendable>(_ context: inout Context) throws -> Bool {
    try Unmanaged<ConditionBox<Context>>.fromOpaque(code.unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef { try $0.function(&context) }
  }

  /// Calls the state's synchronous multiple condition, borrowed; returns the next state.
  ///
  /// - Precondition: ``kind`` is ``Kind/select``, and the graph is alive.
  @inlinable @inline(__always)
  func select<Context: Sendable>(_ context: inout Context) throws -> Int32 {
    try Unmanaged<SelectBox<Context>>.fromOpaque(code.unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef { try $0.function(&context) }
  }

  /// Calls the state's asynchronous action.
  ///
  /// - Precondition: ``kind`` is ``Kind/asyncAction``, and the graph that owns the node
  ///   stays alive until the call returns.
  @inlinable @inline(__always)
  func perform<Context: Sendable>(_ context: inout Context) async throws {
    // Unretained: the graph owns the box for as long as the run holds the graph.
    unowned(unsafe) let box = Unmanaged<AsyncActionBox<Context>>.fromOpaque(
      code.unsafelyUnwrapped
    ).takeUnretainedValue()
    try await box.function(&context)
  }

  /// Calls the state's asynchronous condition.
  ///
  /// - Precondition: ``kind`` is ``Kind/asyncCondition``, and the graph stays alive.
  @inlinable @inline(__always)
  func decide<Context: Sendable>(_ context: inout Context) async throws -> Bool {
    unowned(unsafe) let box = Unmanaged<AsyncConditionBox<Context>>.fromOpaque(
      code.unsafelyUnwrapped
    ).takeUnretainedValue()
    return try await box.function(&context)
  }

  /// Calls the state's asynchronous multiple condition; returns the next state.
  ///
  /// - Precondition: ``kind`` is ``Kind/asyncSelect``, and the graph stays alive.
  @inlinable @inline(__always)
  func select<Context: Sendable>(_ context: inout Context) async throws -> Int32 {
    unowned(unsafe) let box = Unmanaged<AsyncSelectBox<Context>>.fromOpaque(
      code.unsafelyUnwrapped
    ).takeUnretainedValue()
    return try await box.function(&context)
  }

  /// The instruction of a final multiple condition, whose key becomes the run's decision.
  ///
  /// - Precondition: ``kind`` is ``Kind/decideKey`` or ``Kind/asyncDecideKey``.
  @inlinable
  func instruction<Context: Sendable>(_ context: Context.Type) -> Instruction<Context> {
    Unmanaged<InstructionBox<Context>>.fromOpaque(code.unsafelyUnwrapped)
      .takeUnretainedValue().instruction
  }
}

/// A compiled state as the compiler emits it, before ``Graph`` lowers it into a ``Node``.
struct CompiledState<Context: Sendable>: Sendable {
  var instruction: Instruction<Context>
  var next: Int32
  var alternative: Int32
  var isFinal: Bool
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
///
/// `@unchecked Sendable` because the nodes live in a raw buffer and hold unmanaged pointers
/// to the boxes in ``codeBoxes``. That is safe: every property is a `let` set once in
/// `init`; the node buffer is written only in `init` and freed only in `deinit`; the boxes
/// are immutable `Sendable` classes that `codeBoxes` keeps alive for the graph's whole
/// life; and a run holds the graph while it reads the nodes.
@usableFromInline
final class Graph<Context: Sendable>: @unchecked Sendable {
  /// The nodes, indexed by state. A raw buffer rather than an array, so the run loop reads
  /// a node with one load and no bounds check: every index in the graph was checked when
  /// it was compiled.
  @usableFromInline let nodeBase: UnsafeMutablePointer<Node>
  @usableFromInline let dispatches: [DispatchPlan<Context>]
  /// Owns the closures ``nodes`` point to.
  private let codeBoxes: [AnyObject]
  let records: [StateRecord]
  let start: Int32
  let entryPoints: [Int32]
  let statesByName: [String: [Int32]]
  /// The states that are asynchronous: empty when the chart can run synchronously.
  let asynchronousStates: [Int32]

  init(
    states: [CompiledState<Context>], dispatches: [DispatchPlan<Context>],
    records: [StateRecord], start: Int32, entryPoints: [Int32], statesByName: [String: [Int32]]
  ) {
    var boxes: [AnyObject] = []
    boxes.reserveCapacity(states.count)
    var nodes: [Node] = []
    nodes.reserveCapacity(states.count)
    for state in states {
      var node = Node(
        kind: .pass, isFinal: state.isFinal, next: state.next, alternative: state.alternative,
        code: nil)
      switch state.instruction {
      case .pass: node.kind = .pass
      case .action: node.kind = .action
      case .condition: node.kind = .condition
      case .select: node.kind = .select
      case .decideKey: node.kind = .decideKey
      case .asyncAction: node.kind = .asyncAction
      case .asyncCondition: node.kind = .asyncCondition
      case .asyncSelect: node.kind = .asyncSelect
      case .asyncDecideKey: node.kind = .asyncDecideKey
      case .dispatch(let plan): (node.kind, node.alternative) = (.dispatch, plan)
      }
      let box: AnyObject?
      switch state.instruction {
      case .pass, .dispatch: box = nil
      case .action(let function): box = ActionBox(function)
      case .condition(let function): box = ConditionBox(function)
      case .select(let function): box = SelectBox(function)
      case .asyncAction(let function): box = AsyncActionBox(function)
      case .asyncCondition(let function): box = AsyncConditionBox(function)
      case .asyncSelect(let function): box = AsyncSelectBox(function)
      case .decideKey, .asyncDecideKey: box = InstructionBox(state.instruction)
      }
      if let box {
        boxes.append(box)
        node.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
      }
      nodes.append(node)
    }
    nodeBase = .allocate(capacity: nodes.count)
    nodeBase.initialize(from: nodes, count: nodes.count)
    codeBoxes = boxes
    self.dispatches = dispatches
    self.records = records
    self.start = start
    self.entryPoints = entryPoints
    self.statesByName = statesByName
    asynchronousStates = records.indices.filter { records[$0].isAsynchronous }.map { Int32($0) }
  }

  deinit {
    nodeBase.deinitialize(count: records.count)
    nodeBase.deallocate()
  }

  /// The nodes, for code off the hot path.
  var nodes: UnsafeBufferPointer<Node> {
    UnsafeBufferPointer(start: nodeBase, count: records.count)
  }
}
