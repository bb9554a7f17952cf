/// A state that runs its branches concurrently and goes on once every branch has ended.
///
/// Each ``Branch`` is a small flow of its own that ends at one of its final states.
/// Arrows never cross a branch's boundary. Each branch works on its own copy of the
/// context; when all have ended, `merge` folds each branch's copy into the context **in
/// the order the branches are declared**, whatever order they finished in, so the result
/// is deterministic. Without `merge`, the branches' copies are dropped and the context
/// after the dispatch is the one before it.
///
/// ```swift
/// Dispatch("Download") { context, branch in
///   context.avatar = context.avatar ?? branch.avatar
///   context.feed = context.feed ?? branch.feed
/// } branches: {
///   Branch {
///     Action("Download avatar", isFinal: true) { $0.avatar = try await api.avatar() }
///   }
///   Branch {
///     Action("Download feed", isFinal: true) { $0.feed = try await api.feed() }
///   }
/// }
/// ```
///
/// When a merge needs to know what the branch changed, take the three-argument form: it
/// also receives the context as it was before the dispatch, so a branch's additions can be
/// told from what every branch started with:
///
/// ```swift
/// Dispatch("Fetch") { context, branch, original in
///   context.log += branch.log.dropFirst(original.log.count)
/// } branches: { … }
/// ```
///
/// If a branch fails, its siblings are cancelled and the run ends with that branch's
/// ``RunError``. Run synchronously (``Flowchart/runSynchronously(with:stepLimit:)``),
/// the branches run one after another, in declaration order.
public struct Dispatch<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a dispatch whose branches' changes to the context are dropped.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends once the branches have ended.
  ///   - branches: The ``Branch`` declarations, in order.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(name, isFinal, fileID, line, nil, branches())
  }

  /// Declares a dispatch that folds each branch's context back with `merge`.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends once the branches have ended.
  ///   - merge: Called once per branch, in declaration order, with the running context
  ///     and that branch's final copy. An error it throws ends the run.
  ///   - branches: The ``Branch`` declarations, in order.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    merge: @escaping @Sendable (_ context: inout Context, _ branch: Context) throws -> Void,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(
      name, isFinal, fileID, line, { context, branch, _ in try merge(&context, branch) },
      branches())
  }

  /// Declares a dispatch that folds each branch's context back with `merge`, which also
  /// receives the context as it was before the dispatch.
  ///
  /// Each branch starts from a copy of `original`, so what a branch added is what its copy
  /// holds beyond `original`: `context.log += branch.log.dropFirst(original.log.count)`
  /// appends each branch's entries once.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends once the branches have ended.
  ///   - merge: Called once per branch, in declaration order, with the running context,
  ///     that branch's final copy, and the context as it was before the dispatch. An error
  ///     it throws ends the run.
  ///   - branches: The ``Branch`` declarations, in order.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String,
    isFinal: Bool = false,
    fileID: String = #fileID,
    line: Int = #line,
    merge:
      @escaping @Sendable (_ context: inout Context, _ branch: Context, _ original: Context)
      throws -> Void,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(name, isFinal, fileID, line, merge, branches())
  }

  private init(
    _ name: String, _ isFinal: Bool, _ fileID: String, _ line: Int,
    _ merge: (@Sendable (inout Context, Context, Context) throws -> Void)?,
    _ branches: [Branch<Context>]
  ) {
    let body = DeclaredBody.branches(
      branches: branches.map(\.declaration), merge: merge.map(MergeBox.init))
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .dispatch, body: body)
  }
}

/// One branch of a ``Dispatch``: a flow of its own that ends at one of its final states.
///
/// A branch may be named: the printed tree then shows the name after the branch's `|- `,
/// and definition errors about the branch use it.
///
/// ```swift
/// Branch("Profile") {
///   Action("Download avatar", isFinal: true) { $0.avatar = try await api.avatar() }
/// }
/// ```
public struct Branch<Context: Sendable>: Sendable {
  @usableFromInline let declaration: BranchDeclaration

  /// Declares a branch.
  ///
  /// - Parameters:
  ///   - name: An optional label for the branch, shown in the printed tree and in
  ///     definition errors. Like a state's name, it must not be empty, span lines or hold
  ///     control characters.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - body: The branch's states. Its first state starts the branch; every path
  ///     through it must reach a state declared with `isFinal: true`.
  public init(
    _ name: String? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ body: () -> [Declaration<Context>]
  ) {
    declaration = BranchDeclaration(
      name: name, location: SourceLocation(fileID: fileID, line: line),
      body: body().map(\.node))
  }
}

/// A declared ``Branch``, with its context type erased: its optional name, where it was
/// written and its states.
@usableFromInline
struct BranchDeclaration: Sendable {
  let name: String?
  let location: SourceLocation
  let body: [DeclarationNode]
}

/// Builds the list of branches of a ``Dispatch``.
///
/// `if`, `if`-`else`, `switch` and `for` statements are supported, so branches may be
/// generated from data.
@resultBuilder
public enum BranchBuilder<Context: Sendable>: ListBuilder {
  /// A block lists branches.
  public typealias Element = Branch<Context>
}
