// A dispatch's join, written once for both kinds of run: the branches that succeeded count
// toward the dispatching flow's path, their contexts are merged in declaration order, and the
// report, if any, is told how every branch ended.

extension Interpreter {
  /// Joins a dispatch's branches that succeeded (the others are `nil`), in declaration
  /// order: their paths count toward the dispatching flow's, then `merge` folds each
  /// branch's context in, then the report, if any, is told how every branch ended. The
  /// same for both kinds of run.
  ///
  /// Inlinable, so that it is specialized for the chart's context: the finished branches'
  /// paths and contexts are then moved and merged without a value witness call apiece.
  @inlinable
  func join(
    _ branches: [FinishedBranch<Context>?], _ tally: JoinTally, at state: Int32,
    original: Context, into context: inout Context, path: inout PathRecorder
  ) throws(RunError) {
    let plan = graph.dispatches[Int(graph.nodeBase[Int(state)].alternative)]
    // The report's errors start where the dispatching flow started.
    let prefix = plan.report == nil || tally.failed.isEmpty ? [] : path.states
    for case let branch? in branches { path.append(branch.path) }
    if path.isPastLimit { throw stepLimitError(at: state, path: path, atJoin: true) }
    if let whole = plan.wholeMerge(Context.self) {
      do {
        try whole(&context, branches.map { $0?.context }, original)
      } catch {
        throw failure(error, at: state, path: path, control: .inert)
      }
    } else {
      for case let branch? in branches {
        do {
          try plan.merge(branch.context, original: original, into: &context)
        } catch {
          throw failure(error, at: state, path: path, control: .inert)
        }
      }
    }
    guard let box = plan.report else { return }
    let report = report(of: state, branches: branches, tally: tally, prefix: prefix)
    do {
      try unsafeDowncast(box, to: ReportBox<Context>.self).function(&context, report)
    } catch {
      throw failure(error, at: state, path: path, control: .inert)
    }
  }

  /// How each branch of the dispatch `state` ended, for its report.
  @usableFromInline
  func report(
    of state: Int32, branches: [FinishedBranch<Context>?], tally: JoinTally, prefix: [Int32]
  ) -> DispatchReport {
    let entries = branches.indices.map { index in
      let name = graph.branchName(ofDispatch: state, branch: Int32(index))
      if branches[index] != nil {
        return DispatchReport.Entry(index: index, name: name, status: .succeeded, error: nil)
      }
      if let failed = tally.failed.first(where: { $0.index == index }) {
        return DispatchReport.Entry(
          index: index, name: name, status: .failed,
          error: branchFailure(failed.error, after: [prefix], cancelled: false))
      }
      let status: DispatchReport.Status =
        tally.skipped.contains(index) ? .skipped : .cancelled
      return DispatchReport.Entry(index: index, name: name, status: status, error: nil)
    }
    return DispatchReport(
      dispatch: StateID(state), dispatchName: graph.records[Int(state)].name, branches: entries)
  }
}

/// A dispatch branch that ended at one of its final states: its context and its path.
@usableFromInline
struct FinishedBranch<Context: Sendable>: Sendable {
  @usableFromInline var context: Context
  @usableFromInline var path: RecordedPath

  @usableFromInline
  init(context: Context, path: RecordedPath) {
    self.context = context
    self.path = path
  }
}

extension DispatchPlan {
  /// Folds the contexts of branch `index`'s prerequisites into `context`, in declaration
  /// order: where the branch starts, in both kinds of run.
  ///
  /// - Precondition: every prerequisite of the branch has finished.
  @inlinable
  func mergePrerequisites<Context: Sendable>(
    of index: Int, finished: [FinishedBranch<Context>?], original: Context,
    into context: inout Context
  ) throws {
    if let whole = wholeMerge(Context.self) {
      var contexts = [Context?](repeating: nil, count: finished.count)
      for prerequisite in prerequisites[index] {
        contexts[Int(prerequisite)] = finished[Int(prerequisite)].unsafelyUnwrapped.context
      }
      try whole(&context, contexts, original)
      return
    }
    for prerequisite in prerequisites[index] {
      try merge(
        finished[Int(prerequisite)].unsafelyUnwrapped.context, original: original,
        into: &context)
    }
  }
}
