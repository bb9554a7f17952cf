// The dispatch initializers that take a `report` closure, written after the branches: it
// runs after they join, and a closure placed first would make `{ _, _ in … } branches:`
// ambiguous with a two-argument merge. They live here, not in
// Declaring/, because a DispatchReport holds RunErrors: a type of the Running layer, which
// the declaring layer does not name.

extension Dispatch {
  /// Declares a dispatch whose branches' changes to the context are dropped, and which
  /// tells `report` how each branch ended.
  ///
  /// `report` is called once the dispatch has succeeded, with the context and a
  /// ``DispatchReport`` of its branches; an error it throws ends the run. The other
  /// parameters are those of the dispatch without `merge` or `report`.
  public init(
    _ name: String,
    isFinal: Bool = false,
    maxConcurrency: Int? = nil,
    join: JoinPolicy = .all,
    fileID: String = #fileID,
    line: Int = #line,
    @BranchBuilder<Context> branches: () -> [Branch<Context>],
    report:
      @escaping @Sendable (_ context: inout Context, _ report: DispatchReport) throws ->
      Void
  ) {
    self.init(
      name, isFinal, maxConcurrency, join, fileID, line, nil, ReportBox(report), branches())
  }

  /// Declares a dispatch that folds each succeeded branch's context back with `merge`, then
  /// tells `report` how each branch ended.
  ///
  /// `merge` is called once per succeeded branch, in declaration order, with the running
  /// context and that branch's final copy; `report` after the merges, with the context and
  /// a ``DispatchReport`` of the branches. An error either throws ends the run. The other
  /// parameters are those of the dispatch without `merge` or `report`.
  public init(
    _ name: String,
    isFinal: Bool = false,
    maxConcurrency: Int? = nil,
    join: JoinPolicy = .all,
    fileID: String = #fileID,
    line: Int = #line,
    merge: @escaping @Sendable (_ context: inout Context, _ branch: Context) throws -> Void,
    @BranchBuilder<Context> branches: () -> [Branch<Context>],
    report:
      @escaping @Sendable (_ context: inout Context, _ report: DispatchReport) throws ->
      Void
  ) {
    self.init(
      name, isFinal, maxConcurrency, join, fileID, line, Self.ignoringOriginal(merge),
      ReportBox(report), branches())
  }

  /// Declares a dispatch that folds each succeeded branch's context back with `merge`,
  /// which also receives the context as it was before the dispatch, then tells `report`
  /// how each branch ended.
  ///
  /// `merge` is called once per succeeded branch, in declaration order, with the running
  /// context, that branch's final copy, and the context as it was before the dispatch;
  /// `report` after the merges, with the context and a ``DispatchReport`` of the branches.
  /// An error either throws ends the run. The other parameters are those of the dispatch
  /// without `merge` or `report`.
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
    @BranchBuilder<Context> branches: () -> [Branch<Context>],
    report:
      @escaping @Sendable (_ context: inout Context, _ report: DispatchReport) throws ->
      Void
  ) {
    self.init(
      name, isFinal, maxConcurrency, join, fileID, line, merge, ReportBox(report), branches())
  }
}
