// A state's closure lives in a box, so the run loop can call it through an unmanaged
// reference without retaining and releasing it on every step. An action's or a
// condition's box is its declaration (a subclass of `StateDeclaration`), so a declared
// state costs one object; a multiple condition's code, made once its exits are resolved,
// and a dispatch's merge have boxes of their own. Each box stores its closure with the
// closure's exact type, so calling it needs no reabstraction thunk. There is one box type
// per kind of code; a node's kind says which one its pointer holds.
//
// The four subclasses of `StateDeclaration` restate its `@unchecked Sendable`: each is
// final and adds one `let` of a `@Sendable` closure to a class whose stored properties are
// all `let`s of `Sendable` types, so an instance never changes after `init`.

/// The box of a synchronous action: the action's declaration, and its work.
@usableFromInline
final class ActionBox<Context: Sendable>: StateDeclaration, @unchecked Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Void

  @usableFromInline
  init(
    _ function: @escaping @Sendable (inout Context) throws -> Void,
    name: String, isFinal: Bool, location: SourceLocation
  ) {
    self.function = function
    super.init(name: name, isFinal: isFinal, location: location, body: .action, code: .action)
  }
}

/// The box of a synchronous condition: the condition's declaration, and its decision.
@usableFromInline
final class ConditionBox<Context: Sendable>: StateDeclaration, @unchecked Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Bool

  @usableFromInline
  init(
    _ function: @escaping @Sendable (inout Context) throws -> Bool,
    name: String, isFinal: Bool, location: SourceLocation, body: DeclaredBody
  ) {
    self.function = function
    super.init(name: name, isFinal: isFinal, location: location, body: body, code: .condition)
  }
}

/// The box of a synchronous, non-final multiple condition.
@usableFromInline
final class SelectBox<Context: Sendable>: Sendable {
  @usableFromInline let function: @Sendable (inout Context) throws -> Int32
  @usableFromInline
  init(_ function: @escaping @Sendable (inout Context) throws -> Int32) { self.function = function }
}

/// The box of an asynchronous action: the action's declaration, and its work.
@usableFromInline
final class AsyncActionBox<Context: Sendable>: StateDeclaration, @unchecked Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Void

  @usableFromInline
  init(
    _ function: @escaping @Sendable (inout Context) async throws -> Void,
    name: String, isFinal: Bool, location: SourceLocation
  ) {
    self.function = function
    super.init(
      name: name, isFinal: isFinal, location: location, body: .action, code: .asyncAction)
  }
}

/// The box of an asynchronous condition: the condition's declaration, and its decision.
@usableFromInline
final class AsyncConditionBox<Context: Sendable>: StateDeclaration, @unchecked Sendable {
  @usableFromInline let function: @Sendable (inout Context) async throws -> Bool

  @usableFromInline
  init(
    _ function: @escaping @Sendable (inout Context) async throws -> Bool,
    name: String, isFinal: Bool, location: SourceLocation, body: DeclaredBody
  ) {
    self.function = function
    super.init(
      name: name, isFinal: isFinal, location: location, body: body, code: .asyncCondition)
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

/// A multiple condition's code, made once its exits are resolved: its kind, and the box
/// that holds its closure.
///
/// The box's type is one of the select and decide-key boxes above, chosen by `kind`, over
/// the chart's context. Holding it as an object lets the compiler, which never calls the
/// code, be written once for every context type, instead of as generic code that looks up
/// type metadata at every step.
@usableFromInline
struct Code: Sendable {
  let kind: Node.Kind
  let box: any AnyObject & Sendable

  @usableFromInline
  init(kind: Node.Kind, box: any AnyObject & Sendable) {
    self.kind = kind
    self.box = box
  }

}
