import Flowchart

/// Builds one declaration through the DSL's public types, at a file's location. The column is
/// set afterwards, by `Declaration.located(at:)`.
enum Lowering<Context: Sendable> {
  /// A decision, synchronous or not.
  enum Decide<Output: Sendable> {
    case synchronous(@Sendable (inout Context) throws -> Output)
    case asynchronous(@Sendable (inout Context) async throws -> Output)
  }

  static func action(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    _ perform: @escaping @Sendable (inout Context) throws -> Void
  ) -> Declaration<Context> {
    one(Action(name, isFinal: isFinal, fileID: location.fileID, line: location.line, perform))
  }

  static func action(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    _ perform: @escaping @Sendable (inout Context) async throws -> Void
  ) -> Declaration<Context> {
    one(Action(name, isFinal: isFinal, fileID: location.fileID, line: location.line, perform))
  }

  static func action(_ name: String, isFinal: Bool, at location: SourceLocation)
    -> Declaration<Context>
  {
    Action<Context>(name, isFinal: isFinal, fileID: location.fileID, line: location.line)
      .declaration
  }

  static func condition(
    _ name: String, isFinal: Bool, at location: SourceLocation, decide: Decide<Bool>,
    yes: [Declaration<Context>]?, no: [Declaration<Context>]?
  ) -> Declaration<Context> {
    let (fileID, line) = (location.fileID, location.line)
    switch (decide, yes == nil && no == nil) {
    case (.synchronous(let decide), true):
      return one(Condition(name, isFinal: isFinal, fileID: fileID, line: line, decide))
    case (.asynchronous(let decide), true):
      return one(Condition(name, isFinal: isFinal, fileID: fileID, line: line, decide))
    case (.synchronous(let decide), false):
      return one(
        Condition(name, isFinal: isFinal, fileID: fileID, line: line, decide) {
          yes ?? []
        } no: {
          no ?? []
        })
    case (.asynchronous(let decide), false):
      return one(
        Condition(name, isFinal: isFinal, fileID: fileID, line: line, decide) {
          yes ?? []
        } no: {
          no ?? []
        })
    }
  }

  static func multipleCondition(
    _ name: String, isFinal: Bool, at location: SourceLocation, decide: Decide<String>,
    exits: [(ChartExit, [Declaration<Context>])]?
  ) -> Declaration<Context> {
    let (fileID, line) = (location.fileID, location.line)
    guard let exits else {
      switch decide {
      case .synchronous(let decide):
        return one(MultipleCondition(name, isFinal: isFinal, fileID: fileID, line: line, decide))
      case .asynchronous(let decide):
        return one(MultipleCondition(name, isFinal: isFinal, fileID: fileID, line: line, decide))
      }
    }
    switch decide {
    case .synchronous(let decide):
      return one(
        MultipleCondition(name, isFinal: isFinal, fileID: fileID, line: line, decide) {
          keyedExits(exits)
        })
    case .asynchronous(let decide):
      return one(
        MultipleCondition(name, isFinal: isFinal, fileID: fileID, line: line, decide) {
          keyedExits(exits)
        })
    }
  }

  @ExitBuilder<Context, String>
  static func keyedExits(_ exits: [(ChartExit, [Declaration<Context>])])
    -> [KeyedExit<Context, String>]
  {
    for (exit, body) in exits {
      let at = exit.location
      if let key = exit.key {
        Case(key, fileID: at.fileID, line: at.line) { body }.located(at: at)
      } else {
        Default(fileID: at.fileID, line: at.line) { body }.located(at: at)
      }
    }
  }

  static func dispatch(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    maxConcurrency: Int?, join: JoinPolicy,
    merge: (@Sendable (inout Context, Context, Context) throws -> Void)?,
    branches: [(ChartBranch, [Declaration<Context>])]
  ) -> Declaration<Context> {
    let (fileID, line) = (location.fileID, location.line)
    if let merge {
      return one(
        Dispatch(
          name, isFinal: isFinal, maxConcurrency: maxConcurrency, join: join, fileID: fileID,
          line: line, merge: merge
        ) {
          dispatchBranches(branches)
        })
    }
    return one(
      Dispatch(
        name, isFinal: isFinal, maxConcurrency: maxConcurrency, join: join, fileID: fileID,
        line: line
      ) {
        dispatchBranches(branches)
      })
  }

  /// A dispatch whose `join` folds every branch that succeeded in at once.
  static func dispatch(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    maxConcurrency: Int?, join: JoinPolicy,
    joiningAll: @escaping @Sendable (inout Context, [Context?], Context) throws -> Void,
    branches: [(ChartBranch, [Declaration<Context>])]
  ) -> Declaration<Context> {
    one(
      Dispatch(
        name, isFinal: isFinal, maxConcurrency: maxConcurrency, join: join,
        fileID: location.fileID, line: location.line, joiningAll: joiningAll,
        branches: dispatchBranches(branches)))
  }

  @BranchBuilder<Context>
  static func dispatchBranches(_ branches: [(ChartBranch, [Declaration<Context>])])
    -> [Branch<Context>]
  {
    for (branch, body) in branches {
      let at = branch.location
      Branch(branch.name, after: branch.after, fileID: at.fileID, line: at.line) { body }
        .located(at: at)
    }
  }

  static func wait<Input: Sendable>(
    _ name: String, isFinal: Bool, at location: SourceLocation, for type: Input.Type,
    _ apply: @escaping @Sendable (inout Context, Input) throws -> Void
  ) -> Declaration<Context> {
    one(
      Wait(name, for: type, isFinal: isFinal, fileID: location.fileID, line: location.line, apply))
  }

  /// A subflow running `chart` with `mapping`, its exits as the file declares them.
  static func subflow<Inner: Sendable>(
    _ name: String, isFinal: Bool, at location: SourceLocation, chart: Flowchart<Inner>,
    mapping: ContextMapping<Context, Inner>, stepLimit: Int? = nil, exits: SubflowExits
  ) -> Declaration<Context> {
    let (fileID, line) = (location.fileID, location.line)
    switch exits {
    case .none:
      return one(
        Subflow(
          name, isFinal: isFinal, running: chart, context: mapping, stepLimit: stepLimit,
          fileID: fileID, line: line))
    case .yesNo(let yes, let no):
      return one(
        Subflow(
          name, isFinal: isFinal, running: chart, context: mapping, stepLimit: stepLimit,
          fileID: fileID, line: line
        ) {
          yes
        } no: {
          no
        })
    case .keyed(let exits):
      return one(
        Subflow(
          name, isFinal: isFinal, running: chart, context: mapping, stepLimit: stepLimit,
          fileID: fileID, line: line
        ) {
          keyedExits(exits)
        })
    }
  }

  /// A subflow's exits, lowered.
  enum SubflowExits {
    case none
    case yesNo([Declaration<Context>], [Declaration<Context>])
    case keyed([(ChartExit, [Declaration<Context>])])
  }

  static func map<Element: Sendable>(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    over elements: @escaping @Sendable (Context) throws -> [Element],
    running chart: Flowchart<Element>, maxConcurrency: Int?, toleratedFailures: Int,
    stepLimit: Int? = nil,
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void
  ) -> Declaration<Context> {
    one(
      Map(
        name, isFinal: isFinal, over: elements, running: chart, maxConcurrency: maxConcurrency,
        toleratedFailures: toleratedFailures, stepLimit: stepLimit, fileID: location.fileID,
        line: location.line, collect: collect))
  }

  static func goTo(_ target: String, at location: SourceLocation) -> Declaration<Context> {
    let declarations: [Declaration<Context>] = arrow(
      GoTo(target, fileID: location.fileID, line: location.line))
    return declarations[0]
  }

  @FlowBuilder<Context>
  static func arrow(_ goTo: GoTo) -> [Declaration<Context>] {
    goTo
  }

  // Each DSL value's declaration, taken directly rather than through a `FlowBuilder` block,
  // which would allocate an array per state.
  static func one(_ component: some FlowComponent<Context>) -> Declaration<Context> {
    component.declaration
  }
}
