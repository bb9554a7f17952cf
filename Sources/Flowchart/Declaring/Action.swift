/// A state that does work, then follows its one exit.
///
/// An action goes on to the declaration after it in its block. The last state of a
/// condition's branch goes on to whatever follows the condition, like the end of an
/// `if` statement. A final action ends its flow once its work is done.
///
/// ```swift
/// Action("Fetch something") { context in
///   context.items = try await api.fetchItems()
/// }
/// Action("Done", isFinal: true)
/// ```
///
/// The work may be synchronous or `async throws`, and may take the context or not; the
/// overload is chosen from the closure you write, and synchronous work never suspends the
/// run. Every form takes the same `name`, `isFinal`, `fileID` and `line`, described on the
/// first.
public struct Action<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares an action that runs synchronous work on the context.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results. A ``GoTo`` uses it
  ///     to reach this state, so it must then be unique.
  ///   - isFinal: Whether the flow ends after this action. At top level that ends the
  ///     run; inside a ``Dispatch`` branch it ends the branch.
  ///   - perform: The work. It receives the run's context `inout`; an error it throws
  ///     ends the run with a ``RunError``.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ perform: @escaping @Sendable (inout Context) throws -> Void
  ) {
    self.init(name, isFinal, fileID, line, DeclaredCode(.action, ActionBox(perform)))
  }

  /// Declares an action that runs asynchronous work on the context.
  ///
  /// The run awaits `perform` before it goes on. Cancelling the run's task reaches the
  /// work through `Task.isCancelled` and `Task.checkCancellation()`. The other parameters
  /// are those of the synchronous form.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ perform: @escaping @Sendable (inout Context) async throws -> Void
  ) {
    self.init(name, isFinal, fileID, line, DeclaredCode(.asyncAction, AsyncActionBox(perform)))
  }

  /// Declares an action whose synchronous work does not touch the context.
  ///
  /// ```swift
  /// Action("Log") { logger.info("checked out") }
  /// ```
  ///
  /// An error `perform` throws ends the run with a ``RunError``. The other parameters are
  /// those of the forms that take the context.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ perform: @escaping @Sendable () throws -> Void
  ) {
    self.init(
      name, isFinal, fileID, line, DeclaredCode(.action, ActionBox<Context> { _ in try perform() }))
  }

  /// Declares an action whose asynchronous work does not touch the context.
  ///
  /// ```swift
  /// Action("Wait") { try await Task.sleep(for: .seconds(1)) }
  /// ```
  ///
  /// The run awaits `perform` before it goes on. The other parameters are those of the
  /// forms that take the context.
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    _ perform: @escaping @Sendable () async throws -> Void
  ) {
    self.init(
      name, isFinal, fileID, line,
      DeclaredCode(.asyncAction, AsyncActionBox<Context> { _ in try await perform() }))
  }

  /// Declares an action with no work: a named point of the flow, often a final state that
  /// names an outcome.
  ///
  /// ```swift
  /// Action("Healthy", isFinal: true)
  /// ```
  @inlinable
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line
  ) {
    self.init(name, isFinal, fileID, line, .none)
  }

  /// The designated initializer, which every public one forwards to with its code: an
  /// action's state, with one exit to the next.
  @inlinable
  init(_ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int, _ code: DeclaredCode) {
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .action, body: .next,
      code: code)
  }
}
