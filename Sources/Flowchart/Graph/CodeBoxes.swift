// A state's closure lives in a box of its own, so the run loop can call it through an
// unmanaged reference without retaining and releasing it on every step. Each box stores
// its closure with the closure's exact type (not a generic `Function`), so calling it
// needs no reabstraction thunk. There is one box type per kind of code; a node's kind
// says which one its pointer holds.

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
