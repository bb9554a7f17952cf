// A state's closure lives in a box, so the run loop can call it through an unmanaged
// reference without retaining and releasing it on every step. The declaring types make the
// boxes and a declaration holds its state's box (``DeclaredCode``); the compiler points each
// node at its box, and the run loop calls it. So this folder is shared by the DSL and the
// engine and depends on neither.
//
// Each box stores its closure with the closure's exact type, so calling it needs no
// reabstraction thunk. There is one box type per kind of code; a node's kind says which one
// its pointer holds. Every box is a final class whose only stored property is a `let` of a
// `@Sendable` closure, so its `Sendable` conformance is checked.

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
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context, Context, Context) throws -> Void) {
    self.function = function
  }
}
