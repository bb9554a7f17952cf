// A state's closure lives in a box, so the run loop can call it through an unmanaged
// reference without retaining and releasing it on every step. The declaring types make the
// boxes and a declaration holds its state's box (``DeclaredCode``); the compiler points each
// node at its box, and the run loop calls it. So this folder is shared by the DSL and the
// engine and depends on neither. ``CodeKind`` names the box a pointer holds, for both.
//
// Each box stores its closure with the closure's exact type, so calling it needs no
// reabstraction thunk. There is one box type per kind of code; a node's kind says which one
// its pointer holds. Every box is a final class whose only stored property is a `let` of a
// `@Sendable` closure, so its `Sendable` conformance is checked.

/// What a state's code is, and so which box holds it and which call the run loop makes:
/// the one vocabulary of the declarations (which box they made) and the nodes (which loop
/// and which call run them). A new kind of code is a case here, its box below, its shape
/// of exits, and its call in `Graph/Node.swift`; every switch over it is exhaustive.
@usableFromInline
enum CodeKind: UInt8, Sendable {
  /// No code: the state goes on to its next state (an action with no work).
  case pass
  /// An ``ActionBox``.
  case action
  /// A ``ConditionBox``.
  case condition
  /// A ``SelectBox``: a non-final multiple condition. (Until the compiler has resolved
  /// its exits, a multiple condition's declaration says `select` and holds no box.)
  case select
  /// A ``DecideKeyBox``: a final multiple condition.
  case decideKey
  /// A synchronous subflow used as an action whose chart a synchronous loop may run in
  /// place (see ``CallSite``): an ``ActionBox`` (the subflow's nested run, for the loops
  /// that do not run it in place) and a call site. Only a compiled node has this kind.
  /// (Declared among the synchronous kinds, so that ``suspends`` stays one comparison.)
  case callAction
  /// A synchronous subflow used as a condition that a synchronous loop may run in place:
  /// a ``ConditionBox`` and a call site, as for ``callAction``.
  case callCondition
  /// An ``AsyncActionBox``.
  case asyncAction
  /// An ``AsyncConditionBox``.
  case asyncCondition
  /// An ``AsyncSelectBox`` (with no box yet in a declaration, as for ``select``).
  case asyncSelect
  /// An ``AsyncDecideKeyBox``.
  case asyncDecideKey
  /// A dispatch: no box of its own; its plan says how its branches run and merge.
  case dispatch
  /// A state with modifiers (a timeout, retries, catch routes): a ``ModifiedCode``, which
  /// holds the state's own node. Only a compiled node has this kind, never a declaration;
  /// it suspends, so the synchronous loop leaves it to the helper that runs modifiers.
  case modified

  /// Whether the kind needs the asynchronous loop.
  ///
  /// An exhaustive switch rather than a comparison of raw values, so a new kind must say
  /// which loop runs it; the optimizer still reduces it to one comparison.
  @inlinable var suspends: Bool {
    switch self {
    case .pass, .action, .condition, .select, .decideKey, .callAction, .callCondition: false
    case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey, .dispatch, .modified:
      true
    }
  }

  /// Whether the state's own code is `async`. (A dispatch suspends, to run its branches,
  /// but has no code to await.)
  /// A modified node says nothing of its code here: its ``ModifiedCode`` holds the state's
  /// own node.
  @inline(__always)
  var isAsynchronous: Bool { suspends && self != .dispatch && self != .modified }

  /// How the node of a state with this code lays out its exits.
  var shape: ExitShape {
    switch self {
    case .pass, .action, .asyncAction, .callAction: .next
    case .condition, .asyncCondition, .callCondition: .yesNo
    case .select, .asyncSelect: .selected
    case .decideKey, .asyncDecideKey: .reported
    case .dispatch: .branches
    case .modified: preconditionFailure("a modified node's shape is that of the node it holds")
    }
  }

  /// Whether `box` is the box this kind of code calls, over `Context`: what the run loop
  /// relies on without checking (see `Graph/Graph+Invariants.swift`).
  func holds<Context: Sendable>(_ box: AnyObject?, over _: Context.Type) -> Bool {
    switch self {
    case .pass, .dispatch: box == nil
    case .action, .callAction: box is ActionBox<Context>
    case .condition, .callCondition: box is ConditionBox<Context>
    case .select: box is SelectBox<Context>
    case .decideKey: box is DecideKeyBox<Context>
    case .asyncAction: box is AsyncActionBox<Context>
    case .asyncCondition: box is AsyncConditionBox<Context>
    case .asyncSelect: box is AsyncSelectBox<Context>
    case .asyncDecideKey: box is AsyncDecideKeyBox<Context>
    case .modified: box is ModifiedCode
    }
  }
}

/// How a compiled state's exits are laid out in its node (see `Graph/Node.swift`).
enum ExitShape {
  /// One exit, `next`, or none when the state is final.
  case next
  /// `yes` in `next` and `no` in `alternative`, or neither when the state is final.
  case yesNo
  /// The code returns the next state itself: a non-final multiple condition.
  case selected
  /// The code reports a key and the flow ends: a final multiple condition.
  case reported
  /// A dispatch: its plan (`alternative`) starts the branches, and `next` follows the join.
  case branches
}

/// The box of a synchronous action: its work.
@usableFromInline
final class ActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Void
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> Void) { self.function = function }
}

/// The box of a synchronous condition: its decision.
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

/// The box of an asynchronous action: its work.
@usableFromInline
final class AsyncActionBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Void
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) async throws -> Void) {
    self.function = function
  }
}

/// The box of an asynchronous condition: its decision.
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

/// The box of a dispatch's merge: it gets the running context, the branch's copy and the
/// context as it was before the dispatch.
@usableFromInline
final class MergeBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context, Context, Context) throws -> Void
  /// A merge that folds every branch in at once, given in declaration order (`nil` for a
  /// branch that did not succeed, or is not a prerequisite), so that it can tell the
  /// branches apart: a front end's join (FlowchartFiles' changed keys). When set, the run
  /// loop calls it in place of `function`.
  @usableFromInline let whole: (@Sendable (inout Context, [Context?], Context) throws -> Void)?
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context, Context, Context) throws -> Void) {
    self.function = function
    self.whole = nil
  }

  /// A box whose merge takes every branch at once.
  init(whole: @escaping @Sendable (inout Context, [Context?], Context) throws -> Void) {
    self.function = { _, _, _ in }
    self.whole = whole
  }
}
