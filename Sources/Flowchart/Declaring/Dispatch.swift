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
/// A dispatch is declared without `merge`, with a two-argument or a three-argument one, and
/// each of those with or without a `report` (see below): the six forms take the same
/// `name`, `isFinal`, `maxConcurrency`, `join`, `fileID`, `line` and `branches`, described
/// on the first.
///
/// By default (``JoinPolicy/all``), if a branch fails, its siblings are cancelled and the
/// run ends with that branch's ``RunError``. Run synchronously
/// (``Flowchart/runSynchronously(with:stepLimit:)``), the branches run one after another,
/// in declaration order.
///
/// ## Join policies and reports
///
/// `join` says how many branches must succeed (see ``JoinPolicy``): every one (``JoinPolicy/all``),
/// all but a few (``JoinPolicy/toleratingFailures(_:)``), any few
/// (``JoinPolicy/quorum(_:)``, which cancels the others once that many have succeeded), or
/// the first (``JoinPolicy/firstSuccess``). Only the branches that succeeded are merged,
/// in declaration order; a branch whose prerequisite failed is skipped and counts as a
/// failure. A `report` closure, called after the merges, is told how each branch ended in a
/// ``DispatchReport``, so the flow can decide on it:
///
/// ```swift
/// Dispatch("Mirrors", join: .firstSuccess) { context, branch in
///   context.file = context.file ?? branch.file
/// } branches: {
///   Branch("Europe") { Action("Fetch", isFinal: true) { $0.file = try await europe.fetch() } }
///   Branch("America") { Action("Fetch", isFinal: true) { $0.file = try await america.fetch() } }
/// } report: { context, report in
///   context.mirror = report.succeeded.first?.name
/// }
/// ```
///
/// A policy that cannot apply (a negative tolerance, a quorum below 1 or above the number
/// of branches) is a ``DefinitionError/Kind/invalidDispatchOption`` at the dispatch's
/// line. When the run itself is cancelled, no failure is tolerated.
///
/// ## Prerequisites and a concurrency limit
///
/// A branch may wait for other branches of its dispatch, named in
/// ``Branch/init(_:after:fileID:line:_:)`` (Task.framework's prerequisites): it starts once
/// they have all ended, with the context as it was before the dispatch merged with each
/// prerequisite's final context by `merge`, in the order the prerequisites are declared
/// (without a merge, from the context before the dispatch). A branch with several
/// prerequisites runs once, after the last; diamonds are fine. A prerequisite that names no
/// branch of the dispatch, or prerequisites that wait for each other in a cycle, are
/// definition errors.
///
/// `maxConcurrency` limits how many branches run at once; branches start in declaration
/// order as their prerequisites allow. A synchronous run runs one branch at a time anyway,
/// in declaration order as far as prerequisites allow: a branch runs as soon as its
/// prerequisites have ended, before the branches declared after it.
///
/// ```swift
/// Dispatch("Order", maxConcurrency: 2) { context, branch, original in
///   context.log += branch.log.dropFirst(original.log.count)
/// } branches: {
///   Branch("Create project") { Action("Create", isFinal: true) { try await $0.create() } }
///   Branch("Upload photo", after: ["Create project"]) {
///     Action("Upload", isFinal: true) { try await $0.upload() }
///   }
/// }
/// ```
public struct Dispatch<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a dispatch whose branches' changes to the context are dropped.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the flow ends once the branches have ended.
  ///   - maxConcurrency: How many branches may run at once, at least 1; `nil` for all.
  ///   - join: How many branches must succeed (see ``JoinPolicy``); every one by default.
  ///   - branches: The ``Branch`` declarations, in order.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  public init(
    _ name: String,
    isFinal: Bool = false,
    maxConcurrency: Int? = nil,
    join: JoinPolicy = .all,
    fileID: String = #fileID,
    line: Int = #line,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(name, isFinal, maxConcurrency, join, fileID, line, nil, nil, branches())
  }

  /// Declares a dispatch that folds each branch's context back with `merge`.
  ///
  /// `merge` is called once per branch, in declaration order, with the running context and
  /// that branch's final copy; an error it throws ends the run. The other parameters are
  /// those of the dispatch without `merge`.
  public init(
    _ name: String,
    isFinal: Bool = false,
    maxConcurrency: Int? = nil,
    join: JoinPolicy = .all,
    fileID: String = #fileID,
    line: Int = #line,
    merge: @escaping @Sendable (_ context: inout Context, _ branch: Context) throws -> Void,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(
      name, isFinal, maxConcurrency, join, fileID, line, Self.ignoringOriginal(merge), nil,
      branches())
  }

  /// Declares a dispatch that folds each branch's context back with `merge`, which also
  /// receives the context as it was before the dispatch.
  ///
  /// Each branch starts from a copy of `original`, so what a branch added is what its copy
  /// holds beyond `original`: `context.log += branch.log.dropFirst(original.log.count)`
  /// appends each branch's entries once.
  ///
  /// `merge` is called once per branch, in declaration order, with the running context,
  /// that branch's final copy, and the context as it was before the dispatch; an error it
  /// throws ends the run. The other parameters are those of the dispatch without `merge`.
  public init(
    _ name: String,
    isFinal: Bool = false,
    maxConcurrency: Int? = nil,
    join: JoinPolicy = .all,
    fileID: String = #fileID,
    line: Int = #line,
    merge:
      @escaping @Sendable (_ context: inout Context, _ branch: Context, _ original: Context)
      throws -> Void,
    @BranchBuilder<Context> branches: () -> [Branch<Context>]
  ) {
    self.init(name, isFinal, maxConcurrency, join, fileID, line, merge, nil, branches())
  }

  /// The designated initializer, which every public one (those with a `report` too)
  /// forwards to. `report` is a box the run loop knows (the report's type belongs to a
  /// later layer), or `nil`.
  init(
    _ name: String, _ isFinal: Bool, _ maxConcurrency: Int?, _ join: JoinPolicy,
    _ fileID: String, _ line: Int,
    _ merge: (@Sendable (inout Context, Context, Context) throws -> Void)?,
    _ report: (any AnyObject & Sendable)?, _ branches: [Branch<Context>]
  ) {
    let behavior =
      merge == nil && maxConcurrency == nil && join == .all && report == nil
      ? nil
      : DispatchBehavior(
        merge: merge.map(MergeBox.init), maxConcurrency: maxConcurrency, join: join,
        report: report)
    let body = DeclaredBody.branches(branches: branches.map { $0.declaration }, behavior: behavior)
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .dispatch, body: body)
  }

  /// Declares a dispatch whose `join` folds every branch that succeeded in at once: the
  /// branches' contexts in declaration order (`nil` for one that did not succeed), with the
  /// context before the dispatch. For a branch's prerequisites, it gets the prerequisites'
  /// contexts only. For front ends whose join must tell the branches apart (FlowchartFiles'
  /// changed keys, which names the two branches that changed one key).
  package init(
    _ name: String, isFinal: Bool, maxConcurrency: Int?, join: JoinPolicy, fileID: String,
    line: Int,
    joiningAll: @escaping @Sendable (inout Context, [Context?], Context) throws -> Void,
    branches: [Branch<Context>]
  ) {
    let behavior = DispatchBehavior(
      merge: MergeBox(whole: joiningAll), maxConcurrency: maxConcurrency, join: join, report: nil)
    let body = DeclaredBody.branches(branches: branches.map { $0.declaration }, behavior: behavior)
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .dispatch, body: body)
  }

  /// A two-argument merge as the designated initializer takes every merge: with the
  /// context before the dispatch, which it ignores.
  static func ignoringOriginal(
    _ merge: @escaping @Sendable (inout Context, Context) throws -> Void
  ) -> @Sendable (inout Context, Context, Context) throws -> Void {
    { context, branch, _ in try merge(&context, branch) }
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
  ///   - prerequisites: The names of the branches of the same dispatch that must end
  ///     before this one starts (see ``Dispatch``).
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - body: The branch's states. Its first state starts the branch; every path
  ///     through it must reach a state declared with `isFinal: true`.
  public init(
    _ name: String? = nil,
    after prerequisites: [String] = [],
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ body: () -> [Declaration<Context>]
  ) {
    declaration = BranchDeclaration(
      name: name, prerequisites: prerequisites,
      location: SourceLocation(fileID: fileID, line: line), body: Declaration.nodes(of: body()))
  }
}

/// A declared ``Branch``, with its context type erased: its optional name, where it was
/// written and its states.
@usableFromInline
struct BranchDeclaration: Sendable {
  let name: String?
  /// The names of the branches it waits for, as declared.
  let prerequisites: [String]
  let location: SourceLocation
  let body: [DeclarationNode]
}

/// What a dispatch declares beyond its branches, when it declares anything: its merge
/// (a ``MergeBox`` over the chart's context), its concurrency limit, its join policy and
/// its report closure (a box over the chart's context that only the run loop reads). An
/// object, so that the dispatch's body stays two words wide whatever it declares.
@usableFromInline
final class DispatchBehavior: Sendable {
  let merge: (any AnyObject & Sendable)?
  let maxConcurrency: Int?
  let join: JoinPolicy
  let report: (any AnyObject & Sendable)?

  init(
    merge: (any AnyObject & Sendable)?, maxConcurrency: Int?, join: JoinPolicy,
    report: (any AnyObject & Sendable)?
  ) {
    self.merge = merge
    self.maxConcurrency = maxConcurrency
    self.join = join
    self.report = report
  }
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
