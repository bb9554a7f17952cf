/// One compiled state, as the run loop sees it: a plain value with no reference counting,
/// so reading it costs a load.
@usableFromInline
struct Node {
  /// What the state does; says which box ``code`` holds (see `Code/CodeBoxes.swift`).
  @usableFromInline typealias Kind = CodeKind

  @usableFromInline var kind: Kind
  @usableFromInline var isFinal: Bool
  /// Whether the state is a ``Wait`` or a ``Delay``: a live run's top-level flow may park there (see
  /// `ParkedFlow.swift`). Declared here, in the padding after ``isFinal``, so that a node
  /// stays 24 bytes (`NodeLayoutTests`).
  @usableFromInline var waitsForInput = false
  /// The next state of an action or dispatch, or the `yes` exit of a condition;
  /// ``Node/none`` for a final state.
  @usableFromInline var next: Int32
  /// The `no` exit of a condition, or the plan index of a dispatch; ``Node/none`` otherwise.
  @usableFromInline var alternative: Int32
  /// The index in ``Graph/callSites`` of a subflow run in place (kind ``Kind/callAction``
  /// or ``Kind/callCondition``); ``Node/none`` otherwise. Declared here, in the padding
  /// before ``code``, so that a node stays 24 bytes.
  @usableFromInline var call: Int32 = Node.none
  /// The box of the state's code (see `CodeBoxes.swift`), unretained: the graph keeps it
  /// alive for as long as it lives, through ``Graph/declarations`` for an action's or a
  /// condition's box (its declaration holds it) and ``Graph/codeBoxes`` for a multiple
  /// condition's. `nil` for `pass` and `dispatch`.
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

/// What a state's code returned: the outcome its loop follows, or the decision of a final
/// multiple condition (its key, boxed), which ends its flow. (`Sendable`: a modified state's
/// attempt with a timeout returns it from a child task.)
///
/// The key is held as a ``Decision``, one word, not as an existential: a result that holds
/// an existential is copied through its value witnesses, which the synchronous loop would
/// pay at every state.
@usableFromInline
enum CodeResult: Sendable {
  case outcome(Outcome)
  case key(Decision)
}

// The call sites of a state's code: the one place each kind of code is called and its
// result made an outcome. Every loop calls a state's code through one of these (the
// synchronous loop, a subflow's visit in place, the asynchronous loop, a final asynchronous
// multiple condition, a modified state's attempt), and a wrapper (modifiers, scripts) wraps
// them rather than repeating them. A new kind of code is a case in each of the two switches.
extension Node {
  /// Calls the state's synchronous code, borrowed, and returns what it decided. A subflow
  /// that a synchronous loop may run in place (``Kind/callAction``, ``Kind/callCondition``)
  /// calls its box, as a nested run.
  ///
  /// - Precondition: ``kind`` does not suspend, and the graph that owns the node is alive.
  @inlinable @inline(__always)
  func callSynchronously<Context: Sendable>(_ context: inout Context) throws -> CodeResult {
    try callSynchronously(&context, inPlace: false) { _ in
      preconditionFailure("a subflow runs in place only where the caller says so")
    }
  }

  /// Calls the state's synchronous code, borrowed, and returns what it decided; a subflow
  /// that a synchronous loop may run in place runs through `visit` when `inPlace` is `true`
  /// (the synchronous loop's ``Interpreter/visitInPlace(_:path:context:)``), through its box
  /// otherwise.
  ///
  /// Always inlined, with `inPlace` a constant of the caller's specialization, so that the
  /// synchronous loop calls each box (or the visit) straight from one jump on the node's
  /// kind, as it would with the switch written in the loop.
  ///
  /// - Precondition: ``kind`` does not suspend, and the graph that owns the node is alive.
  @inlinable @inline(__always)
  func callSynchronously<Context: Sendable>(
    _ context: inout Context, inPlace: Bool, visit: (inout Context) throws -> Outcome
  ) throws -> CodeResult {
    switch kind {
    case .pass:
      return .outcome(.next)
    case .action:
      try perform(&context)
      return .outcome(.next)
    case .condition:
      return .outcome(try decide(&context) ? .yes : .no)
    case .callAction:
      if inPlace { return .outcome(try visit(&context)) }
      try perform(&context)
      return .outcome(.next)
    case .callCondition:
      if inPlace { return .outcome(try visit(&context)) }
      return .outcome(try decide(&context) ? .yes : .no)
    case .select:
      return .outcome(.selected(try select(&context)))
    case .decideKey:
      return .key(.key(try decideKey(&context)))
    case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch, .modified:
      preconditionFailure("a state whose code is asynchronous runs in the asynchronous loop")
    }
  }

  /// Calls the state's code, synchronous or asynchronous, and returns what it decided.
  ///
  /// - Precondition: ``kind`` is not ``Kind/dispatch`` (no code) nor ``Kind/modified``
  ///   (whose ``ModifiedCode`` holds the node to call), and the graph that owns the node
  ///   stays alive until the call returns.
  @inlinable @inline(__always)
  func call<Context: Sendable>(_ context: inout Context) async throws -> CodeResult {
    switch kind {
    case .pass, .action, .condition, .select, .decideKey, .callAction, .callCondition:
      return try callSynchronously(&context)
    case .asyncAction:
      try await perform(&context)
      return .outcome(.next)
    case .asyncCondition:
      return .outcome(try await decide(&context) ? .yes : .no)
    case .asyncSelect:
      return .outcome(.selected(try await select(&context)))
    case .asyncDecideKey:
      return .key(.key(try await decideKey(&context)))
    case .dispatch, .modified:
      preconditionFailure("a dispatch has no code, and a modified node holds its own")
    }
  }
}

/// Where a synchronous subflow's chart starts, for a synchronous loop that runs it in place
/// of the subflow's state rather than as a nested run (see
/// ``Interpreter/runSynchronousStates(cursor:context:control:reporting:)``): what a visit
/// needs, as plain values the loop reads with no reference counting.
///
/// A subflow has one when its chart can share the loop: it maps the context
/// ``ContextMapping/whole`` (so the two charts have one context type and the inner states
/// work on the outer context itself), its chart is synchronous with no dispatch and no
/// modifiers (so every state it reaches runs in the synchronous loop), and it is used as an
/// action or a condition (whose outcome the loop maps itself).
@usableFromInline
struct CallSite {
  /// The nodes of the subflow's chart. The subflow's declaration holds the chart, and the
  /// outer chart holds its declarations: the nodes live as long as the outer graph.
  @usableFromInline let nodes: UnsafeMutablePointer<Node>
  /// The state the subflow's chart starts at.
  @usableFromInline let start: Int32
  /// The most states a visit may enter (the subflow's step limit), `Int.max` for no limit.
  @usableFromInline let limit: Int

  @usableFromInline
  init(nodes: UnsafeMutablePointer<Node>, start: Int32, limit: Int) {
    self.nodes = nodes
    self.start = start
    self.limit = limit
  }
}

/// How a dispatch runs: where each branch starts, which branches each waits for, how many
/// run at once and how their contexts fold back.
@usableFromInline
struct DispatchPlan: Sendable {
  @usableFromInline var branchStarts: [Int32]
  /// A ``MergeBox`` over the chart's context, or `nil` when the branches' contexts are
  /// dropped.
  @usableFromInline var merge: (any AnyObject & Sendable)?
  /// The branches each branch waits for, in declaration order; empty when none waits.
  @usableFromInline var prerequisites: [[Int32]]
  /// The order a synchronous run takes the branches in; empty for declaration order.
  @usableFromInline var order: [Int32]
  /// How many branches may run at once.
  @usableFromInline var maxConcurrency: Int
  /// How many branches may fail (or be skipped) before the dispatch fails: 0 for
  /// ``JoinPolicy/all``.
  @usableFromInline var tolerance: Int
  /// After how many successes the other branches are cancelled: the number of branches
  /// when the policy never stops them early.
  @usableFromInline var quorum: Int
  /// A ``ReportBox`` over the chart's context, or `nil` when the dispatch has no report.
  @usableFromInline var report: (any AnyObject & Sendable)?

  /// Calls the merge, if any, to fold `branch` into `context`; `original` is the context
  /// as it was before the dispatch.
  @inlinable
  func merge<Context: Sendable>(
    _ branch: Context, original: Context, into context: inout Context
  ) throws {
    guard let merge else { return }
    try unsafeDowncast(merge, to: MergeBox<Context>.self).function(&context, branch, original)
  }

  /// The merge that folds every branch in at once, when the dispatch has one (see
  /// ``MergeBox/whole``).
  @inlinable
  func wholeMerge<Context: Sendable>(_ type: Context.Type)
    -> (@Sendable (inout Context, [Context?], Context) throws -> Void)?
  {
    guard let merge else { return nil }
    return unsafeDowncast(merge, to: MergeBox<Context>.self).whole
  }
}

/// An exit as the graph stores it: a plain value of 12 bytes, where ``Exit`` takes 32 and
/// holds a key's text. ``Graph/exits(of:)`` makes the public values on demand.
struct StoredExit: Sendable {
  /// Which exit this is.
  enum Label: Equatable, Sendable {
    case next, yes, no, `default`
    /// The start of a dispatch's branch, numbered from zero.
    case branch(Int32)
    /// A multiple condition's key: where its text is in ``Graph/keyLabels``.
    case key(Int32)

    /// The public label, the key's text read from `keyLabels`.
    func label(keyLabels: [String]) -> Exit.Label {
      switch self {
      case .next: .next
      case .yes: .yes
      case .no: .no
      case .default: .default
      case .branch(let index): .branch(Int(index))
      case .key(let index): .key(keyLabels[Int(index)])
      }
    }
  }

  var label: Label
  var target: Int32
}

/// What the graph knows of a state beyond what the run loop needs: for queries, printing
/// and messages. Never read on the hot path.
struct StateRecord: Sendable {
  /// The state's declaration: it holds the name, the location and the finality, and for an
  /// action or a condition the box the node calls.
  ///
  /// Unretained, so that compiling a large chart does not wait for memory to count
  /// references to declarations that are no longer in cache: ``Graph/declarations``, the
  /// declaration the chart was compiled from, owns every state's declaration for as long
  /// as the graph lives.
  unowned(unsafe) let declaration: StateDeclaration
  /// Where the state's exits start in ``Graph/exits``; they end where the next state's
  /// begin.
  var firstExit: Int32
  /// The flow the state belongs to: 0 for the top level, then one per dispatch branch.
  var flow: Int32

  /// The state's name, as declared.
  var name: String { declaration.name }
  /// Where the state was declared.
  var location: SourceLocation { declaration.location }
  /// Whether the state ends its flow.
  var isFinal: Bool { declaration.isFinal }
  /// The state's kind.
  var kind: StateKind { declaration.kind }
  /// Whether the state's code is `async`.
  var isAsynchronous: Bool { declaration.isAsynchronous }
  /// What the state keeps beyond its code (a subflow's chart), for printing.
  var attachment: (any AnyObject & Sendable)? { declaration.attachment }
}
