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
    _ name: String, isFinal: Bool, fileID: String, line: Int, kind: StateKind,
    body: consuming DeclaredBody, code: consuming DeclaredCode = .none,
    attachment: (any AnyObject & Sendable)? = nil
  ) -> Declaration {
    Declaration(
      .state(
        StateDeclaration(
          name: name, kind: kind, isFinal: isFinal,
          location: SourceLocation(fileID: fileID, line: line), body: body, code: code,
          attachment: attachment)))
  }

  /// The declarations of `block`, as the compiler reads them: the same array, not a copy.
  ///
  /// A block is built as `[Declaration<Context>]` (what a ``FlowBuilder`` closure returns)
  /// and read as `[DeclarationNode]` (what a declaration's body holds, without its context
  /// type). Copying one into the other would allocate a second array per block, and retain
  /// and later release every declaration in it, for every block of every chart: for a tree
  /// of conditions, about 30 % of what declaring it cost. Instead the array's one
  /// reference is reinterpreted, which is sound because `Declaration` is a struct whose only
  /// stored property is its `DeclarationNode`: the two have the same size, alignment, stride
  /// and bits (checked below), an array's storage depends on its element type only through
  /// those and the elements' value witnesses, and `Declaration`'s are its node's (retain and
  /// release of the one reference the node holds). A `DeclarationNode` is the only member of
  /// the `Declaration` its memory is bound to, so reading it through either type is
  /// reading memory as a type it is bound to.
  ///
  /// A block whose array has much more room than it uses (a long block written out, which
  /// grew by doubling) is copied instead, to its size: the compiled chart keeps its blocks.
  @inlinable @inline(__always)
  static func nodes(of block: consuming [Declaration]) -> [DeclarationNode] {
    guard
      MemoryLayout<Declaration>.size == MemoryLayout<DeclarationNode>.size,
      MemoryLayout<Declaration>.stride == MemoryLayout<DeclarationNode>.stride,
      MemoryLayout<Declaration>.alignment == MemoryLayout<DeclarationNode>.alignment,
      block.capacity - block.count <= block.count / 8 + 4
    else {
      // The layouts are the same by construction (the optimizer removes their check), so
      // only a block with room to spare is copied.
      return copiedNodes(of: block)
    }
    return unsafeBitCast(block, to: [DeclarationNode].self)
  }

  /// The declarations of `block` in an array of their own, of the block's size. Rare, so
  /// out of line: ``nodes(of:)`` stays small enough to inline into every declaration.
  @usableFromInline
  static func copiedNodes(of block: [Declaration]) -> [DeclarationNode] {
    block.map(\.node)
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
  // Stored in this order so that what compiling reads of every state (the body's shape,
  // the code's kind, finality, the state count and the name) is together at the start of
  // the object, and the object stays small: compiling a large chart is bound by the memory
  // it touches. The code's kind, the flags and the state's kind fill the padding after the
  // 17-byte body, and the box goes last: 88 bytes on 64-bit platforms, a 96-byte heap block
  // of glibc's allocator. (One more stored word would take it to the 112-byte block: the
  // rare attachment shares the box's word instead, see ``Attached``.)
  ///
  /// A `var` only so that `deinit` can take the blocks apart (see there): nothing else
  /// writes it, and `deinit` runs when no other reference exists.
  var body: DeclaredBody
  /// Which kind of code the state runs, and so which box ``codeBox`` holds (see ``code``).
  let codeKind: CodeKind
  /// Finality, and whether ``storedCode`` holds an ``Attached`` pair.
  private let flags: Flags
  /// What the state is, for the graph's users: the body says only how its exits are laid
  /// out, which kinds share (see ``DeclaredBody``).
  let kind: StateKind
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
  /// The box of the state's code, or, when the state has extras (an attachment or a
  /// column), the ``Extras`` that hold the box with them: read it through ``codeBox``,
  /// ``attachment`` and ``location``.
  private let storedCode: (any AnyObject & Sendable)?

  private struct Flags: OptionSet {
    let rawValue: UInt8
    static let isFinal = Flags(rawValue: 1)
    static let extras = Flags(rawValue: 2)
  }

  /// What few declarations have, held in the one word of ``storedCode`` with the box, so
  /// that every other declaration stays in its 96-byte heap block: a subflow's or a map's
  /// attachment, and the column of a declaration read from a file.
  private final class Extras: Sendable {
    let box: (any AnyObject & Sendable)?
    let attachment: (any AnyObject & Sendable)?
    /// From 1; 0 when unknown.
    let column: Int32
    /// The state's timeout, retries and catch routes, if it has any (see `Modifiers.swift`).
    let modifiers: StateModifiers?

    init(
      box: (any AnyObject & Sendable)?, attachment: (any AnyObject & Sendable)?, column: Int32,
      modifiers: StateModifiers? = nil
    ) {
      self.box = box
      self.attachment = attachment
      self.column = column
      self.modifiers = modifiers
    }
  }

  /// The extras, when the declaration has them.
  private var extras: Extras? {
    guard flags.contains(.extras) else { return nil }
    return unsafeDowncast(storedCode.unsafelyUnwrapped, to: Extras.self)
  }

  /// Whether the state ends its flow.
  var isFinal: Bool { flags.contains(.isFinal) }

  /// The box of the state's code (see ``code``), or `nil` when it has none.
  var codeBox: (any AnyObject & Sendable)? {
    guard flags.contains(.extras) else { return storedCode }
    return unsafeDowncast(storedCode.unsafelyUnwrapped, to: Extras.self).box
  }

  /// The address of the state's box (see ``codeBox``), unretained, or `nil` when it has
  /// none: what a node points at. Read without retaining the box, which the compiler
  /// would otherwise retain and release once a state; the declaration keeps the box alive.
  var codeAddress: UnsafeRawPointer? {
    // An `any AnyObject & Sendable` is one word, the object's address (`Sendable` is a
    // marker protocol, with no witness table), and `nil` is zero: the same bits as an
    // optional raw pointer.
    guard flags.contains(.extras) else {
      return unsafeBitCast(storedCode, to: UnsafeRawPointer?.self)
    }
    return unsafeBitCast(
      unsafeDowncast(storedCode.unsafelyUnwrapped, to: Extras.self).box,
      to: UnsafeRawPointer?.self)
  }

  /// What the state keeps for the graph's users beyond its code, if anything: a subflow's
  /// chart, which the tree printer can draw nested. Never read by the compiler or the run
  /// loop.
  var attachment: (any AnyObject & Sendable)? { extras?.attachment }

  /// The state's timeout, retries and catch routes, if any. Never read by the run loop: the
  /// compiler makes a modified state's node call them (see `Modifiers.swift`).
  var modifiers: StateModifiers? { extras?.modifiers }

  @usableFromInline
  init(
    name: String, kind: StateKind, isFinal: Bool, location: SourceLocation, body: DeclaredBody,
    code: DeclaredCode = .none, attachment: (any AnyObject & Sendable)? = nil,
    modifiers: StateModifiers? = nil
  ) {
    self.name = name
    self.kind = kind
    fileID = location.fileID
    line = Int32(clamping: location.line)
    self.body = body
    // The code a keyed decision or a dispatch runs is made by the compiler; until then the
    // kind says which loop will run it.
    switch body {
    case .next, .yesNo: codeKind = code.kind
    case .keyed(let decision, _): codeKind = decision.isAsynchronous ? .asyncSelect : .select
    case .branches: codeKind = .dispatch
    }
    let column = Int32(clamping: location.column ?? 0)
    if attachment != nil || column != 0 || modifiers != nil {
      flags = isFinal ? [.isFinal, .extras] : .extras
      storedCode = Extras(
        box: code.box, attachment: attachment, column: column, modifiers: modifiers)
    } else {
      flags = isFinal ? .isFinal : []
      storedCode = code.box
    }
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
    case .next:
      exits = isFinal ? 0 : 1
    case .yesNo(let yes, let no, let hasExits):
      exits = isFinal || !hasExits ? 0 : 2
      add(yes)
      add(no)
    case .keyed(let decision, _):
      exits = isFinal ? 0 : Int32(decision.exits.count)
      for exit in decision.exits { add(exit.body) }
    case .branches(let branches, _):
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
    defer { state.body = .next }
    let body = state.body
    func append(_ block: [DeclarationNode]) {
      for declaration in block {
        if case .state(let state) = declaration { pending.append(state) }
      }
    }
    switch body {
    case .next:
      break
    case .yesNo(let yes, let no, _):
      append(yes)
      append(no)
    case .keyed(let decision, _):
      for exit in decision.exits { append(exit.body) }
    case .branches(let branches, _):
      for branch in branches { append(branch.body) }
    }
  }

  /// Where the state was declared.
  var location: SourceLocation {
    let column = extras?.column ?? 0
    return SourceLocation(
      fileID: fileID, line: Int(line), column: column == 0 ? nil : Int(column))
  }

  /// This declaration at another location: the same name, kind, flags, blocks, code and
  /// attachment. (For front ends that read charts from files; see
  /// `Declaration+Locating.swift`.)
  func relocated(to location: SourceLocation) -> StateDeclaration {
    StateDeclaration(
      name: name, kind: kind, isFinal: isFinal, location: location, body: body,
      code: DeclaredCode(codeKind, codeBox), attachment: attachment, modifiers: modifiers)
  }

  /// This declaration with `modifiers` in place of its own: the same name, kind, location,
  /// blocks, code and attachment. (For the modifier methods; see `Modifiers.swift`.)
  func modified(with modifiers: StateModifiers) -> StateDeclaration {
    StateDeclaration(
      name: name, kind: kind, isFinal: isFinal, location: location, body: body,
      code: DeclaredCode(codeKind, codeBox), attachment: attachment, modifiers: modifiers)
  }

  /// Whether the state's code runs asynchronously.
  var isAsynchronous: Bool { codeKind.isAsynchronous }
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

/// How a declared state's exits are laid out, and the blocks nested in them: all the
/// compiler needs to know of a state's kind to number, walk, check and release it. Kinds
/// share shapes (a state that waits for input and then decides yes or no is laid out like a
/// condition), so a new kind of state usually needs no new shape; ``StateDeclaration/kind``
/// says what the state is.
@usableFromInline
enum DeclaredBody: Sendable {
  /// One exit to the next state: an action. Its work, if any, is in its box.
  case next
  /// Two inline blocks, `yes` and `no`: a condition. Its decision is in its box.
  ///
  /// `hasExits` is `false` when the declaration gave no `yes:`/`no:` blocks at all.
  case yesNo(yes: [DeclarationNode], no: [DeclarationNode], hasExits: Bool)
  /// One block per key and perhaps a default: a multiple condition, with its type-erased
  /// key decision. Indirect, so that the rare large payload does not make every
  /// declaration larger.
  indirect case keyed(KeyedDecision, hasExits: Bool)
  /// Branches that run concurrently and join, then one exit to the next state: a dispatch,
  /// with its merge and limit, if it declares them.
  case branches(branches: [BranchDeclaration], behavior: DispatchBehavior?)
}

/// A declared state's code: which kind of code it is, and the box that holds its closure.
///
/// The box's type is one of the boxes in `CodeBoxes.swift`, chosen by ``kind``, over the
/// chart's context. Holding it as an object lets the compiler, which never calls the code,
/// be written once for every context type, instead of as generic code that looks up type
/// metadata at every step. The node the compiler makes for the state calls the box the
/// same ``CodeKind`` names.
@usableFromInline
struct DeclaredCode: Sendable {
  /// The box, or `nil` when ``kind`` is ``CodeKind/pass``.
  @usableFromInline let box: (any AnyObject & Sendable)?
  @usableFromInline let kind: CodeKind

  /// Code of `kind` in `box`.
  ///
  /// Inlinable, so that a declaration's initializer hands its new box on to the
  /// declaration without retaining and releasing it (issue 26).
  ///
  /// - Precondition: `box` is the box type `kind` names, over the chart's context.
  @inlinable
  init(_ kind: CodeKind, _ box: any AnyObject & Sendable) {
    self.kind = kind
    self.box = box
  }

  @usableFromInline
  init() {
    kind = .pass
    box = nil
  }

  /// Code of `kind` in `box`, which may be `nil` where the compiler makes the code.
  fileprivate init(_ kind: CodeKind, _ box: (any AnyObject & Sendable)?) {
    self.kind = kind
    self.box = box
  }

  /// No code.
  @usableFromInline static var none: DeclaredCode { DeclaredCode() }
}
