/// One statement of a flowchart declaration: a state, or an arrow to a named state.
///
/// You never build a `Declaration` yourself. The declaration types — ``Action``,
/// ``Condition``, ``MultipleCondition``, ``Dispatch`` and ``GoTo`` — become declarations
/// inside a ``FlowBuilder`` block. The value is opaque: only the compiler reads it.
public struct Declaration<Context: Sendable>: Sendable {
  let node: DeclarationNode<Context>

  init(_ node: DeclarationNode<Context>) {
    self.node = node
  }
}

/// Where a declaration was written, carried into every definition error about it.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file, as `#fileID` gives it (`Module/File.swift`).
  public let fileID: String
  /// The line of the declaration.
  public let line: Int

  /// Creates a source location.
  public init(fileID: String, line: Int) {
    self.fileID = fileID
    self.line = line
  }

  /// `fileID:line`, the form compilers use.
  public var description: String { "\(fileID):\(line)" }
}

/// The internal tree the public declaration types lower into.
enum DeclarationNode<Context: Sendable>: Sendable {
  /// A state, with its code and the blocks nested inside it.
  case state(StateDeclaration<Context>)
  /// An arrow to the state with this name.
  case goTo(name: String, location: SourceLocation)
}

/// A declared state before compilation: name, flags, code and nested blocks.
struct StateDeclaration<Context: Sendable>: Sendable {
  var name: String
  var isFinal: Bool
  var location: SourceLocation
  var body: DeclaredBody<Context>
}

/// The kind-specific part of a declared state.
enum DeclaredBody<Context: Sendable>: Sendable {
  /// An action and its work (`nil` for an action with nothing to do).
  case action(Work<Context>?)
  /// A condition, its decision and its two inline branches.
  ///
  /// `hasExits` is `false` when the declaration gave no `yes:`/`no:` blocks at all.
  case condition(
    Work<Context>, yes: [Declaration<Context>], no: [Declaration<Context>], hasExits: Bool)
  /// A multiple condition: its type-erased key decision and its keyed exits.
  case multipleCondition(KeyedDecision<Context>, hasExits: Bool)
  /// A dispatch: its branches and how each branch's context folds back.
  case dispatch(branches: [[Declaration<Context>]], merge: Merge<Context>?)
}

/// A state's code, as written: synchronous or asynchronous.
enum Work<Context: Sendable>: Sendable {
  case action(@Sendable (inout Context) throws -> Void)
  case asyncAction(@Sendable (inout Context) async throws -> Void)
  case condition(@Sendable (inout Context) throws -> Bool)
  case asyncCondition(@Sendable (inout Context) async throws -> Bool)

  var isAsynchronous: Bool {
    switch self {
    case .action, .condition: false
    case .asyncAction, .asyncCondition: true
    }
  }
}

/// How a dispatch folds a finished branch's copy of the context into the running context.
typealias Merge<Context> = @Sendable (inout Context, Context) throws -> Void
