/// A state that decides a key and follows the exit declared for that key.
///
/// Keys may be `String`s or any `Hashable & Sendable` type. When the key type is an enum
/// that conforms to `CaseIterable`, compiling checks that every case has an exit, unless
/// a ``Default`` exit catches the rest.
///
/// ```swift
/// enum Plan: CaseIterable { case free, pro, team }
///
/// MultipleCondition("Which plan?") { $0.plan } exits: {
///   Case(Plan.free) { Action("Show ads") { $0.showsAds = true } }
///   Case(.pro) { Action("Unlock pro") { $0.isPro = true } }
///   Case(.team) { GoTo("Invite team") }
/// }
/// ```
///
/// Each exit's block behaves like a condition's branch: when it ends without a final
/// state or a ``GoTo``, the flow goes on after the multiple condition. A key with no exit
/// and no ``Default`` ends the run with a ``RunError``. A final multiple condition has no
/// exits; the run's result reports the key it decided.
///
/// The decision may be synchronous or `async throws`, chosen from the closure you write; a
/// synchronous decision never suspends the run. Every form takes the same `name`,
/// `isFinal`, `fileID` and `line`, described on the first.
///
/// ## How keys are shown
///
/// The printed tree, definition errors, run errors and ``Exit/Label`` show a key as its
/// ``Case`` was written: an `Optional` key shows its wrapped value (`A` for
/// `Optional("A")`) or `nil`; any other key shows `String(describing:)` of its value. That
/// text is written as it is when it reads one way (`retry`, `free`, `42`), and as a Swift
/// string literal otherwise: when it is empty, starts or ends with whitespace, holds
/// `": "` or a `"`, ends with `:`, is `default` or `nil`, or holds a character that would
/// break the line or not show, which is escaped (`""`, `" a"`, `"x: y"`, `"a\nb"`,
/// `"\u{1B}[2J"`). Two keys of one multiple condition that are not equal but show the same
/// text (`Double.nan` twice, or two values with the same custom `description`) are a
/// definition error, like the same key twice.
public struct MultipleCondition<Context: Sendable, Key: Hashable & Sendable>: FlowComponent,
  Sendable
{
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a multiple condition with a synchronous decision and its keyed exits.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends after the decision. A final multiple condition has
  ///     no exits.
  ///   - decide: Returns the key whose exit the run follows.
  ///   - exits: The ``Case`` exits, in the order they are printed, and at most one
  ///     ``Default``.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) throws -> Key,
    @ExitBuilder<Context, Key> exits: () -> [KeyedExit<Context, Key>]
  ) {
    self.init(name, isFinal, fileID, line, .synchronous(decide), exits())
  }

  /// Declares a multiple condition with an asynchronous decision and its keyed exits.
  ///
  /// The run awaits `decide`, then follows the exit of the key it returns. The other
  /// parameters are those of the synchronous form.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) async throws -> Key,
    @ExitBuilder<Context, Key> exits: () -> [KeyedExit<Context, Key>]
  ) {
    self.init(name, isFinal, fileID, line, .asynchronous(decide), exits())
  }

  /// Declares a multiple condition without exits: usually a final state whose key is the
  /// run's result.
  ///
  /// A multiple condition declared this way that is not final is a definition error.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) throws -> Key
  ) {
    self.init(name, isFinal, fileID, line, .synchronous(decide), nil)
  }

  /// Declares a multiple condition without exits whose decision is asynchronous.
  ///
  /// A multiple condition declared this way that is not final is a definition error.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ decide: @escaping @Sendable (inout Context) async throws -> Key
  ) {
    self.init(name, isFinal, fileID, line, .asynchronous(decide), nil)
  }

  /// The designated initializer, which every public one forwards to with its decision: a
  /// multiple condition's state, with its keyed exits, or `nil` when it declares none.
  private init(
    _ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int,
    _ decide: KeyedDecision.Decide<Context, Key>, _ exits: [KeyedExit<Context, Key>]?
  ) {
    let decision = KeyedDecision(decide, exits: exits ?? [])
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .multipleCondition,
      body: .keyed(decision, hasExits: exits != nil))
  }
}

/// The exit of a ``MultipleCondition`` taken for one key.
///
/// ```swift
/// Case("retry") { GoTo("Fetch") }
/// ```
public struct Case<Context: Sendable, Key: Hashable & Sendable>: Sendable {
  @usableFromInline let exit: KeyedExit<Context, Key>

  /// Declares the exit followed when the decision returns `key`.
  ///
  /// - Parameters:
  ///   - key: The key this exit answers. Each key may appear once per multiple condition,
  ///     and two keys may not show the same text (see ``MultipleCondition``).
  ///   - body: The states to run for this key. An empty block goes straight on to what
  ///     follows the multiple condition.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ key: Key,
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ body: () -> [Declaration<Context>]
  ) {
    exit = KeyedExit(key: key, location: SourceLocation(fileID: fileID, line: line), body: body())
  }
}

/// The exit of a ``MultipleCondition`` taken for every key without a ``Case`` of its own.
///
/// ```swift
/// Default { Action("Unknown plan", isFinal: true) }
/// ```
public struct Default<Context: Sendable>: Sendable {
  @usableFromInline let location: SourceLocation
  @usableFromInline let body: [Declaration<Context>]

  /// Declares the exit followed for any key that has no ``Case``.
  ///
  /// - Parameters:
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - body: The states to run. An empty block goes straight on to what follows the
  ///     multiple condition.
  public init(
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ body: () -> [Declaration<Context>]
  ) {
    location = SourceLocation(fileID: fileID, line: line)
    self.body = body()
  }
}

/// One exit of a ``MultipleCondition``: a ``Case`` or the ``Default``.
///
/// Values of this type come from ``ExitBuilder``; they are opaque.
public struct KeyedExit<Context: Sendable, Key: Hashable & Sendable>: Sendable {
  /// The key, or `nil` for the default exit.
  let key: Key?
  let location: SourceLocation
  let body: [Declaration<Context>]

  @usableFromInline
  init(key: Key?, location: SourceLocation, body: [Declaration<Context>]) {
    self.key = key
    self.location = location
    self.body = body
  }
}

/// Builds the list of keyed exits of a ``MultipleCondition`` from ``Case`` and ``Default``
/// statements.
///
/// `if`, `if`-`else`, `switch` and `for` statements work as in ``FlowBuilder``, so exits
/// may be generated from data.
@resultBuilder
public enum ExitBuilder<Context: Sendable, Key: Hashable & Sendable>: ListBuilder {
  /// A block lists keyed exits.
  public typealias Element = KeyedExit<Context, Key>

  /// Lifts a ``Case`` into the list of exits.
  @inlinable
  public static func buildExpression(_ exit: Case<Context, Key>) -> PartialBlock {
    PartialBlock(.one(exit.exit))
  }

  /// Lifts a ``Default`` into the list of exits.
  @inlinable
  public static func buildExpression(_ exit: Default<Context>) -> PartialBlock {
    PartialBlock(.one(KeyedExit(key: nil, location: exit.location, body: exit.body)))
  }
}
