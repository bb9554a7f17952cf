import Synchronization

// A state's closure lives in a box of its own, so the run loop can call it through an
// unmanaged reference without retaining and releasing it on every step. Each box stores
// its closure with the closure's exact type (not a generic `Function`), so calling it
// needs no reabstraction thunk. Asynchronous states, which cannot borrow across `await`
// anyway, share one box that holds their instruction.

/// The box of a synchronous action.
@usableFromInline
final class ActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Void
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> Void) { self.function = function }
}

/// The box of a synchronous condition.
@usableFromInline
final class ConditionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Bool
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> Bool) { self.function = function }
}

/// The box of a synchronous, non-final multiple condition.
@usableFromInline
final class SelectBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Int32
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> Int32) { self.function = function }
}

/// The box of an asynchronous action.
@usableFromInline
final class AsyncActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Void
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) async throws -> Void) {
    self.function = function
  }
}

/// The box of an asynchronous condition.
@usableFromInline
final class AsyncConditionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Bool
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) async throws -> Bool) {
    self.function = function
  }
}

/// The box of an asynchronous, non-final multiple condition.
@usableFromInline
final class AsyncSelectBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Int32
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) async throws -> Int32) {
    self.function = function
  }
}

/// The box of a synchronous, final multiple condition, which reports its key.
@usableFromInline
final class DecideKeyBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> any Hashable & Sendable
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> any Hashable & Sendable) {
    self.function = function
  }
}

/// The box of an asynchronous, final multiple condition, which reports its key.
@usableFromInline
final class AsyncDecideKeyBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> any Hashable & Sendable
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) async throws -> any Hashable & Sendable) {
    self.function = function
  }
}

/// The box of a dispatch's merge.
@usableFromInline
final class MergeBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context, Context) throws -> Void
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context, Context) throws -> Void) {
    self.function = function
  }
}

/// A state's code as the declaration made it: its kind, and the box that holds its closure.
///
/// The box's type is one of the boxes above, chosen by `kind`, over the chart's context.
/// Holding it as an object lets the compiler, which never calls the code, be written once
/// for every context type, instead of as generic code that looks up type metadata at
/// every step.
@usableFromInline
struct Code: Sendable {
  let kind: Node.Kind
  let box: any AnyObject & Sendable

  @usableFromInline
  init(kind: Node.Kind, box: any AnyObject & Sendable) {
    self.kind = kind
    self.box = box
  }

  /// Whether the code runs asynchronously.
  var isAsynchronous: Bool { kind.suspends }
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

  /// Calls the state's synchronous, final multiple condition, borrowed; returns its key.
  ///
  /// - Precondition: ``kind`` is ``Kind/decideKey``, and the graph is alive.
  @inlinable @inline(__always)
  func decideKey<Context: Sendable>(_ context: inout Context) throws -> any Hashable & Sendable {
    try Unmanaged<DecideKeyBox<Context>>.fromOpaque(code.unsafelyUnwrapped)
      ._withUnsafeGuaranteedRef { try $0.function(&context) }
  }

  /// Calls the state's asynchronous, final multiple condition; returns its key.
  ///
  /// - Precondition: ``kind`` is ``Kind/asyncDecideKey``, and the graph stays alive.
  @inlinable
  func decideKey<Context: Sendable>(
    _ context: inout Context
  ) async throws -> any Hashable & Sendable {
    unowned(unsafe) let box = Unmanaged<AsyncDecideKeyBox<Context>>.fromOpaque(
      code.unsafelyUnwrapped
    ).takeUnretainedValue()
    return try await box.function(&context)
  }
}

/// How a dispatch runs: where each branch starts and how its context folds back.
@usableFromInline
struct DispatchPlan: Sendable {
  @usableFromInline var branchStarts: [Int32]
  /// A ``MergeBox`` over the chart's context, or `nil` when the branches' contexts are
  /// dropped.
  @usableFromInline var merge: (any AnyObject & Sendable)?

  /// Calls the merge, if any, to fold `branch` into `context`.
  @inlinable
  func merge<Context: Sendable>(_ branch: Context, into context: inout Context) throws {
    guard let merge else { return }
    try unsafeDowncast(merge, to: MergeBox<Context>.self).function(&context, branch)
  }
}

/// What the graph knows of a state beyond what the run loop needs: for queries, printing
/// and messages. Never read on the hot path.
struct StateRecord: Sendable {
  var name: String
  var kind: StateKind
  var isFinal: Bool
  var isAsynchronous: Bool
  var location: SourceLocation
  /// Where the state's exits are in ``Graph/exits``.
  var exits: Range<Int32>
  /// The flow the state belongs to: 0 for the top level, then one per dispatch branch.
  var flow: Int32
}

/// What the compiler produces, the same for every context type: the nodes, pointing into
/// the boxes that hold the states' code, and everything else a ``Graph`` holds.
@usableFromInline
struct CompiledChart {
  var nodes: [Node]
  var codeBoxes: [any AnyObject & Sendable]
  var dispatches: [DispatchPlan]
  var records: [StateRecord]
  /// Every state's exits, one state after another.
  var exits: [Exit]
  var start: Int32
  var entryPoints: [Int32]
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
  @usableFromInline let dispatches: [DispatchPlan]
  /// Owns the boxes ``nodeBase``'s nodes point to.
  let codeBoxes: [any AnyObject & Sendable]
  let records: [StateRecord]
  /// Every state's exits, one state after another; ``StateRecord/exits`` says where.
  let exits: [Exit]
  let start: Int32
  let entryPoints: [Int32]
  /// Every state's name, indexed on first use: only queries and runs that start at a named
  /// state need it, so compiling does not pay for it.
  private let nameTable = Mutex<NameTable?>(nil)
  /// The states that are asynchronous: empty when the chart can run synchronously.
  let asynchronousStates: [Int32]

  /// Takes over a compiled chart; in debug builds, checks its invariants.
  @usableFromInline
  init(_ chart: CompiledChart) {
    nodeBase = .allocate(capacity: chart.nodes.count)
    nodeBase.initialize(from: chart.nodes, count: chart.nodes.count)
    codeBoxes = chart.codeBoxes
    dispatches = chart.dispatches
    records = chart.records
    start = chart.start
    entryPoints = chart.entryPoints
    exits = chart.exits
    asynchronousStates = chart.records.indices.filter { chart.records[$0].isAsynchronous }
      .map { Int32($0) }
    #if DEBUG
      checkInvariants()
    #endif
  }

  deinit {
    nodeBase.deinitialize(count: records.count)
    nodeBase.deallocate()
  }

  /// Finds states by name.
  var names: NameTable {
    nameTable.withLock { table in
      if let table { return table }
      let built = NameTable(records.lazy.map(\.name))
      table = built
      return built
    }
  }

  /// The exits of the state `record` describes.
  func exits(of record: StateRecord) -> ArraySlice<Exit> {
    exits[Int(record.exits.lowerBound)..<Int(record.exits.upperBound)]
  }

  /// The nodes, for code off the hot path.
  var nodes: UnsafeBufferPointer<Node> {
    UnsafeBufferPointer(start: nodeBase, count: records.count)
  }
}
