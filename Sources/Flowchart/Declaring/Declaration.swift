/// One statement of a flowchart declaration: a state, or an arrow to a named state.
///
/// You never build a `Declaration` yourself. The declaration types — ``Action``,
/// ``Condition``, ``MultipleCondition``, ``Dispatch`` and ``GoTo`` — become declarations
/// inside a ``FlowBuilder`` block. The value is opaque: only the compiler reads it.
public struct Declaration<Context: Sendable>: Sendable {
  /// The declaration, with its context type erased: the compiler reads it without generic
  /// code. The closures inside are boxed over `Context`.
  @usableFromInline let node: DeclarationNode

  @usableFromInline
  init(_ node: DeclarationNode) {
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

/// The internal tree the public declaration types lower into. Not generic: each closure is
/// already in its box over the chart's context (see ``Code``).
@usableFromInline
enum DeclarationNode: Sendable {
  /// A state, with its code and the blocks nested inside it.
  case state(StateDeclaration)
  /// An arrow to the state with a name.
  case goTo(GoToDeclaration)
}

/// A declared `GoTo`. A class, like ``StateDeclaration``, so that a declaration is one
/// reference wide and blocks of them stay small.
@usableFromInline
final class GoToDeclaration: Sendable {
  let name: String
  let location: SourceLocation

  @usableFromInline
  init(name: String, location: SourceLocation) {
    self.name = name
    self.location = location
  }
}

extension DeclarationNode {
  /// An action's declaration. Not generic, so that the inlinable public initializers,
  /// which box the closure over the caller's context, share it.
  @usableFromInline
  static func action(
    _ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int, _ code: Code?
  ) -> DeclarationNode {
    .state(
      StateDeclaration(
        name: name, isFinal: isFinal, location: SourceLocation(fileID: fileID, line: line),
        body: .action(code)))
  }

  /// A condition's declaration, its branches already read into nodes.
  @usableFromInline
  static func condition(
    _ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int, _ code: Code,
    yes: [DeclarationNode], no: [DeclarationNode], hasExits: Bool
  ) -> DeclarationNode {
    .state(
      StateDeclaration(
        name: name, isFinal: isFinal, location: SourceLocation(fileID: fileID, line: line),
        body: .condition(code, yes: yes, no: no, hasExits: hasExits)))
  }
}

/// A declared state before compilation: name, flags, code and nested blocks.
///
/// A class, so that the compiler's passes share one copy of each declaration instead of
/// copying its strings and blocks field by field.
@usableFromInline
final class StateDeclaration: Sendable {
  // Stored in this order so that the object stays small (under 112 bytes): compiling a
  // large chart is bound by the memory it touches.
  let name: String
  let location: SourceLocation
  /// How many states this declaration holds, itself and those nested in it: counted as the
  /// declaration is built, from its blocks' counts, so the compiler can size its arrays
  /// once.
  let stateCount: Int
  let body: DeclaredBody
  let isFinal: Bool

  init(name: String, isFinal: Bool, location: SourceLocation, body: DeclaredBody) {
    self.name = name
    self.isFinal = isFinal
    self.location = location
    self.body = body
    func count(_ block: [DeclarationNode]) -> Int {
      block.reduce(0) { $0 + $1.stateCount }
    }
    switch body {
    case .action: stateCount = 1
    case .condition(_, let yes, let no, _): stateCount = 1 + count(yes) + count(no)
    case .multipleCondition(let decision, _):
      stateCount = decision.exits.reduce(1) { $0 + count($1.body) }
    case .dispatch(let branches, _): stateCount = branches.reduce(1) { $0 + count($1) }
    }
  }
}

extension DeclarationNode {
  /// How many states the declaration holds: none for a `GoTo`.
  var stateCount: Int {
    switch self {
    case .state(let state): state.stateCount
    case .goTo: 0
    }
  }
}

/// The kind-specific part of a declared state.
enum DeclaredBody: Sendable {
  /// An action and its work (`nil` for an action with nothing to do).
  case action(Code?)
  /// A condition, its decision and its two inline branches.
  ///
  /// `hasExits` is `false` when the declaration gave no `yes:`/`no:` blocks at all.
  case condition(Code, yes: [DeclarationNode], no: [DeclarationNode], hasExits: Bool)
  /// A multiple condition: its type-erased key decision and its keyed exits. Indirect, so
  /// that the rare large payload does not make every declaration larger.
  indirect case multipleCondition(KeyedDecision, hasExits: Bool)
  /// A dispatch: its branches and the ``MergeBox`` that folds each branch's context back.
  case dispatch(branches: [[DeclarationNode]], merge: (any AnyObject & Sendable)?)
}
