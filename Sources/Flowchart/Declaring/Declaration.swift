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

  /// The declaration of a state: what every declaration type's initializer makes.
  @inlinable
  static func state(
    _ name: String, isFinal: Bool, fileID: String, line: Int, body: DeclaredBody,
    code: DeclaredCode = .none
  ) -> Declaration {
    Declaration(
      .state(
        StateDeclaration(
          name: name, isFinal: isFinal, location: SourceLocation(fileID: fileID, line: line),
          body: body, code: code)))
  }
}

/// Where a declaration was written, carried into every definition error about it.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  /// The file, as `#fileID` gives it (`Module/File.swift`).
  public let fileID: String
  /// The line of the declaration.
  public let line: Int
  /// The column of the declaration, from 1, when known: a chart read from a file has one
  /// (see the FlowchartFiles module); a declaration in Swift has none.
  public let column: Int?

  /// Creates a source location.
  public init(fileID: String, line: Int, column: Int? = nil) {
    self.fileID = fileID
    self.line = line
    self.column = column
  }

  /// `fileID:line`, or `fileID:line:column` when the column is known: the form compilers use.
  public var description: String {
    guard let column else { return "\(fileID):\(line)" }
    return "\(fileID):\(line):\(column)"
  }
}

/// The internal tree the public declaration types lower into. Not generic: each closure is
/// already in its box over the chart's context (see ``DeclaredCode``).
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

/// A declared state before compilation: name, flags, code and nested blocks.
///
/// A class, so that the compiler's passes and the compiled chart share one copy of each
/// declaration instead of copying its strings and blocks field by field. An action's or a
/// condition's closure is in its box (see `CodeBoxes.swift`), which the declaration holds
/// in ``code``; the compiled chart keeps the declarations, and so the boxes, alive.
///
/// `@unchecked Sendable` only because of ``body``, a `var` that only `deinit` writes, when
/// no other reference exists: every other stored property is a `let` of a `Sendable` type.
/// So an instance never changes while it is shared, and may be shared across concurrency
/// domains.
@usableFromInline
final class StateDeclaration: @unchecked Sendable {
  // Stored in this order so that what compiling reads of every state (the body's kind,
  // the code's kind, finality, the state count and the name) is together at the start of
  // the object, and the object stays small: compiling a large chart is bound by the memory
  // it touches. The code's kind fills the padding after the body and its box goes last,
  // so that holding the box costs 8 bytes: 88 on 64-bit platforms, in the same 96-byte
  // heap block as the 80 bytes of a declaration without one.
  ///
  /// A `var` only so that `deinit` can take the blocks apart (see there): nothing else
  /// writes it, and `deinit` runs when no other reference exists.
  var body: DeclaredBody
  /// Which kind of code ``codeBox`` holds (see ``code``).
  let codeKind: DeclaredCode.Kind
  let isFinal: Bool
  /// How many states this declaration holds, itself and those nested in it: counted as the
  /// declaration is built, from its blocks' counts, so the compiler can size its arrays
  /// once. A chart numbers its states with `Int32`s.
  let stateCount: Int32
  let name: String
  let fileID: String
  let line: Int32
  /// How many exits this declaration and those nested in it declare, counted like
  /// ``stateCount``, so that the compiler sizes its exits' arrays once too.
  let exitCount: Int32
  /// The box of the state's code (see ``code``).
  let codeBox: (any AnyObject & Sendable)?
  /// The column of the declaration, or 0 when unknown (a declaration in Swift). After the box,
  /// in the padding of the same 96-byte heap block.
  let column: Int32

  @usableFromInline
  init(
    name: String, isFinal: Bool, location: SourceLocation, body: DeclaredBody,
    code: DeclaredCode = .none
  ) {
    self.name = name
    self.isFinal = isFinal
    fileID = location.fileID
    line = Int32(clamping: location.line)
    column = Int32(clamping: location.column ?? 0)
    self.body = body
    codeKind = code.kind
    codeBox = code.box
    var states: Int32 = 1
    var exits: Int32 = 0
    func add(_ block: [DeclarationNode]) {
      for declaration in block {
        guard case .state(let state) = declaration else { continue }
        states += state.stateCount
        exits += state.exitCount
      }
    }
    switch body {
    case .action:
      exits = isFinal ? 0 : 1
    case .condition(let yes, let no, let hasExits):
      exits = isFinal || !hasExits ? 0 : 2
      add(yes)
      add(no)
    case .multipleCondition(let decision, _):
      exits = isFinal ? 0 : Int32(decision.exits.count)
      for exit in decision.exits { add(exit.body) }
    case .dispatch(let branches, _):
      exits = Int32(branches.count) + (isFinal ? 0 : 1)
      for branch in branches { add(branch.body) }
    }
    stateCount = states
    exitCount = exits
  }

  /// Releases the states nested in this one without recursing once per level.
  ///
  /// Left to itself, releasing a declaration releases its blocks, whose declarations release
  /// theirs, one call deeper per level of nesting: a chart of 40,000 nested conditions
  /// overflows an 8 MiB stack, and 2,000 a 512 KiB one. Instead, a large declaration moves
  /// its nested states into a list, drops its blocks, and releases the list one state at a
  /// time; a state the list holds the last reference to gets the same treatment before it
  /// goes, so each release finds no blocks left to recurse into. States shared with another
  /// declaration are only released, and stay whole for their other owner.
  deinit {
    // A small declaration nests at most `stateCount` levels: the usual release is cheaper.
    guard stateCount > Self.recursiveReleaseLimit else { return }
    var pending: [StateDeclaration] = []
    Self.takeNestedStates(of: self, into: &pending)
    while var state = pending.popLast() {
      if state.stateCount > 1 && isKnownUniquelyReferenced(&state) {
        Self.takeNestedStates(of: state, into: &pending)
      }
    }
  }

  /// The most states a declaration may hold and still be released recursively: at most
  /// that many levels deep, far within the smallest thread stack.
  private static var recursiveReleaseLimit: Int32 { 128 }

  /// Appends the states declared directly in `state`'s blocks to `pending`, then empties
  /// the blocks, so that `pending` holds the only references the blocks held.
  private static func takeNestedStates(
    of state: StateDeclaration, into pending: inout [StateDeclaration]
  ) {
    defer { state.body = .action }
    let body = state.body
    func append(_ block: [DeclarationNode]) {
      for declaration in block {
        if case .state(let state) = declaration { pending.append(state) }
      }
    }
    switch body {
    case .action:
      break
    case .condition(let yes, let no, _):
      append(yes)
      append(no)
    case .multipleCondition(let decision, _):
      for exit in decision.exits { append(exit.body) }
    case .dispatch(let branches, _):
      for branch in branches { append(branch.body) }
    }
  }

  /// The state's code, if it has its own: an action's or a condition's box;
  /// ``DeclaredCode/none`` for a multiple condition (its code is made once its exits are
  /// resolved, see ``KeyedDecision``) and for a dispatch. The declaration owns the box.
  var code: DeclaredCode { DeclaredCode(codeKind, codeBox) }

  /// Where the state was declared.
  var location: SourceLocation {
    SourceLocation(fileID: fileID, line: Int(line), column: column == 0 ? nil : Int(column))
  }

  /// Whether the state's code runs asynchronously.
  var isAsynchronous: Bool {
    if case .multipleCondition(let decision, _) = body { return decision.isAsynchronous }
    return codeKind.isAsynchronous
  }
}

extension DeclarationNode {
  /// The state, unretained, or `nil` for a `GoTo`. The caller keeps the declaration alive.
  @inline(__always)
  var unretainedState: Unmanaged<StateDeclaration>? {
    switch self {
    case .state(let state): Unmanaged.passUnretained(state)
    case .goTo: nil
    }
  }

  /// How many states the declaration holds: none for a `GoTo`.
  var stateCount: Int32 {
    switch self {
    case .state(let state): state.stateCount
    case .goTo: 0
    }
  }

  /// How many exits the declaration holds: none for a `GoTo`.
  var exitCount: Int32 {
    switch self {
    case .state(let state): state.exitCount
    case .goTo: 0
    }
  }
}

/// The kind-specific part of a declared state.
@usableFromInline
enum DeclaredBody: Sendable {
  /// An action. Its work, if any, is in its box.
  case action
  /// A condition and its two inline branches. Its decision is in its box.
  ///
  /// `hasExits` is `false` when the declaration gave no `yes:`/`no:` blocks at all.
  case condition(yes: [DeclarationNode], no: [DeclarationNode], hasExits: Bool)
  /// A multiple condition: its type-erased key decision and its keyed exits. Indirect, so
  /// that the rare large payload does not make every declaration larger.
  indirect case multipleCondition(KeyedDecision, hasExits: Bool)
  /// A dispatch: its branches and the ``MergeBox`` that folds each branch's context back.
  case dispatch(branches: [BranchDeclaration], merge: (any AnyObject & Sendable)?)
}

/// A declared state's code: which kind of code it is, and the box that holds its closure.
///
/// The box's type is one of the boxes in `CodeBoxes.swift`, chosen by ``kind``, over the
/// chart's context. Holding it as an object lets the compiler, which never calls the code,
/// be written once for every context type, instead of as generic code that looks up type
/// metadata at every step. The compiler maps ``kind`` to the run loop's own kinds.
@usableFromInline
struct DeclaredCode: Sendable {
  /// Which kind of code a box holds, and so the box's type. (In the order of the run
  /// loop's kinds, so that mapping one to the other compiles to nothing.)
  @usableFromInline
  enum Kind: UInt8, Sendable {
    /// No code of its own: a multiple condition before its exits are resolved, a dispatch.
    case none
    /// An ``ActionBox``.
    case action
    /// A ``ConditionBox``.
    case condition
    /// A ``SelectBox``: a non-final multiple condition.
    case select
    /// A ``DecideKeyBox``: a final multiple condition.
    case decideKey
    /// An ``AsyncActionBox``.
    case asyncAction
    /// An ``AsyncConditionBox``.
    case asyncCondition
    /// An ``AsyncSelectBox``.
    case asyncSelect
    /// An ``AsyncDecideKeyBox``.
    case asyncDecideKey

    /// Whether the code is `async`.
    var isAsynchronous: Bool {
      switch self {
      case .none, .action, .condition, .select, .decideKey: false
      case .asyncAction, .asyncCondition, .asyncSelect, .asyncDecideKey: true
      }
    }
  }

  /// The box, or `nil` when ``kind`` is ``Kind/none``.
  let box: (any AnyObject & Sendable)?
  let kind: Kind

  /// Code of `kind` in `box`.
  ///
  /// - Precondition: `box` is the box type `kind` names, over the chart's context.
  @usableFromInline
  init(_ kind: Kind, _ box: any AnyObject & Sendable) {
    self.kind = kind
    self.box = box
  }

  fileprivate init(_ kind: Kind, _ box: (any AnyObject & Sendable)?) {
    self.kind = kind
    self.box = box
  }

  /// No code.
  @usableFromInline static var none: DeclaredCode { DeclaredCode(.none, nil) }
}
