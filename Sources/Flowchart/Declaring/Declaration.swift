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

/// A declared state before compilation: name, flags and nested blocks.
///
/// A class, so that the compiler's passes and the compiled chart share one copy of each
/// declaration instead of copying its strings and blocks field by field. An action or a
/// condition with code is an instance of the subclass that boxes its closure (see
/// ``ActionBox``): one object per declared state, which the compiled chart keeps as the
/// record of the state and whose closure the run loop calls. Other states are instances of
/// this class.
///
/// `@unchecked Sendable` only because the class is not final, which checked conformance
/// requires: every stored property is a `let` of a `Sendable` type but ``body``, which only
/// `deinit` writes, when no other reference exists; and each subclass is final and adds
/// only `let`s of `@Sendable` closures. So an instance never changes while it is shared,
/// and may be shared across concurrency domains.
@usableFromInline
class StateDeclaration: @unchecked Sendable {
  // Stored in this order so that what compiling reads of every state (the body's kind,
  // the code's kind, finality, the state count and the name) is together at the start of
  // the object, and the object stays small: compiling a large chart is bound by the memory
  // it touches.
  ///
  /// A `var` only so that `deinit` can take the blocks apart (see there): nothing else
  /// writes it, and `deinit` runs when no other reference exists.
  var body: DeclaredBody
  /// Which box this is, and so which closure the run loop calls: ``Node/Kind/pass`` for a
  /// state with no code of its own.
  let code: Node.Kind
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

  @usableFromInline
  init(
    name: String, isFinal: Bool, location: SourceLocation, body: DeclaredBody,
    code: Node.Kind = .pass
  ) {
    self.name = name
    self.isFinal = isFinal
    fileID = location.fileID
    line = Int32(clamping: location.line)
    self.body = body
    self.code = code
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

  /// The state's kind.
  var kind: StateKind {
    switch body {
    case .action: .action
    case .condition: .condition
    case .multipleCondition: .multipleCondition
    case .dispatch: .dispatch
    }
  }

  /// Where the state was declared.
  var location: SourceLocation { SourceLocation(fileID: fileID, line: Int(line)) }

  /// Whether the state's code runs asynchronously.
  var isAsynchronous: Bool {
    if case .multipleCondition(let decision, _) = body { return decision.isAsynchronous }
    return code.suspends
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
