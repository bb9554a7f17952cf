// A chart file bound to a registry: the public entry point, and the binder's walk over the
// file's tree, one declaration a state (includes spliced in place). What each state's code
// binds to is in Binder+Code.swift, subflows and maps in Binder+Subcharts.swift, the built-in
// tests in Binder+BuiltInTests.swift.

import Flowchart

extension ChartFile {
  /// Binds the file's names to `handlers` and compiles it.
  ///
  /// Every name the registry lacks, every handler of the wrong kind, every built-in test the
  /// context cannot answer and every problem the compiler finds are thrown together, in one
  /// `DefinitionError`, each with its file, line and column.
  ///
  /// Each file a subflow or a map runs is compiled once for each registry it is bound with,
  /// however many subflows and maps run it: they share the compiled chart. Every state made
  /// counts against `stateLimit`: the states of the file, those of the files it includes
  /// (each time it includes them) and those of the charts its subflows and maps run (once
  /// each). A chart that would make more is refused with one problem, located at the
  /// `include` (or the state) that goes past the limit, before it takes the memory.
  ///
  /// - Parameters:
  ///   - handlers: The code the file's names bind to.
  ///   - stateLimit: The most states the chart may make, as above; at least 1.
  ///     ``defaultStateLimit`` (1,000,000) unless given.
  /// - Throws: A `DefinitionError` listing every problem; of kind `malformedFile`, with that
  ///   problem alone, when the chart would make more than `stateLimit` states.
  /// - Complexity: O(*n*) in the number of states made.
  public func flowchart<Context>(
    handlers: HandlerRegistry<Context>, stateLimit: Int = ChartFile.defaultStateLimit
  ) throws(DefinitionError) -> Flowchart<Context> {
    let session = BindingSession(stateLimit: stateLimit)
    let at = SourceLocation(fileID: path, line: 1, column: 1)
    guard stateLimit >= 1 else {
      throw DefinitionError(
        collecting: [
          DefinitionError.Problem(
            .malformedFile, name: nil, at: at,
            message:
              "The state limit is \(stateLimit): a chart has at least one state, so give a limit of 1 or more."
          )
        ], at: at)
    }
    let result: Result<Flowchart<Context>, DefinitionError>
    do throws(DefinitionError) {
      result = .success(try flowchart(handlers: handlers, session: session, scope: ""))
    } catch {
      result = .failure(error)
    }
    // Past the limit, the chart was cut short: its other problems are not worth reading.
    if let limit = session.limitProblem { throw DefinitionError(collecting: [limit], at: at) }
    return try result.get()
  }

  /// The chart bound with `handlers`, in `session`: `scope` names the registry among those
  /// the session binds with (empty for the first), so that compiled charts are shared only
  /// between bindings with the same registry.
  package func flowchart<Context>(
    handlers: HandlerRegistry<Context>, session: BindingSession, scope: String
  ) throws(DefinitionError) -> Flowchart<Context> {
    var binder = Binder(handlers: handlers, session: session, scope: scope)
    let declarations = binder.block(states, in: self, depth: 1)
    let compiled: Result<Flowchart<Context>, DefinitionError>
    do throws(DefinitionError) {
      let location = SourceLocation(fileID: path, line: 1)
      if let outcomes {
        compiled = .success(
          try Flowchart<Context>(
            outcomes: outcomes.declaration, entryPoints: entryPoints.map(\.name),
            location: location, vocabulary: FileWording.vocabulary, declarations: declarations))
      } else {
        compiled = .success(
          try Flowchart<Context>(
            entryPoints: entryPoints.map(\.name), location: location,
            vocabulary: FileWording.vocabulary, declarations: declarations))
      }
    } catch {
      compiled = .failure(error)
    }
    switch compiled {
    case .success(let chart) where binder.problems.isEmpty:
      return chart
    case .success:
      throw binder.problems.error(path: path)
    case .failure(let error):
      var all = binder.problems
      // The compiler places a problem with an entry point at the chart; the file knows where
      // the entry point was written.
      let entries = Dictionary(
        entryPoints.map { ($0.name, $0.location) }, uniquingKeysWith: { first, _ in first })
      for problem in error.problems {
        if problem.location.column == nil, problem.location.fileID == path,
          let name = problem.name, let location = entries[name]
        {
          all.problems.append(
            DefinitionError.Problem(
              problem.kind, name: name, at: location,
              message: FileWording.reword(problem.message, path: path)))
        } else {
          all.problems.append(
            DefinitionError.Problem(
              problem.kind, name: problem.name, at: problem.location,
              message: FileWording.reword(problem.message, path: problem.location.fileID)))
        }
      }
      throw all.error(path: path)
    }
  }
}

/// Lowers a file's tree into the DSL's declarations, binding each name to its handler and
/// recording what cannot be bound.
struct Binder<Context: Sendable> {
  let handlers: HandlerRegistry<Context>
  /// The binding this is part of: its compiled charts and its count of states.
  let session: BindingSession
  /// Which of the session's registries `handlers` is.
  let scope: String
  var problems = ProblemList()

  init(handlers: HandlerRegistry<Context>, session: BindingSession, scope: String) {
    self.handlers = handlers
    self.session = session
    self.scope = scope
  }

  mutating func block(_ nodes: [ChartNode], in file: ChartFile, depth: Int) -> [Declaration<
    Context
  >] {
    guard depth <= maximumStateDepth else {
      if let first = nodes.first {
        problems.malformed(
          "States nest more than \(maximumStateDepth) levels deep here, included files counted: flatten the chart with goTo arrows.",
          at: first.location)
      }
      return []
    }
    var declarations: [Declaration<Context>] = []
    declarations.reserveCapacity(nodes.count)
    for node in nodes {
      declare(node, in: file, depth: depth, into: &declarations)
    }
    return declarations
  }

  /// Appends the declarations of `node` (one, or an included file's) to `declarations`.
  mutating func declare(
    _ node: ChartNode, in file: ChartFile, depth: Int,
    into declarations: inout [Declaration<Context>]
  ) {
    if case .include(let path) = node.kind {
      guard let included = file.includedFiles[path] else {
        problems.add(
          .unreadableFile,
          "The file '\(path)' included here was not read: read the chart with ChartFile.read(contentsOf:), which reads what it includes.",
          at: node.location)
        return
      }
      guard session.admitInclude(path, of: included, at: node.location) else { return }
      declarations += block(included.states, in: included, depth: depth)
      return
    }
    guard session.admitState(at: node.location) else { return }
    declarations.append(declaration(node, in: file, depth: depth))
  }

  /// The declaration of `node`, which is not an include, with its modifiers.
  mutating func declaration(_ node: ChartNode, in file: ChartFile, depth: Int) -> Declaration<
    Context
  > {
    let declaration = bareDeclaration(node, in: file, depth: depth)
    guard !node.modifiers.isEmpty else { return declaration }
    return modified(declaration, with: node.modifiers, of: node)
  }

  /// The declaration of `node` without its modifiers.
  mutating func bareDeclaration(_ node: ChartNode, in file: ChartFile, depth: Int)
    -> Declaration<Context>
  {
    let at = node.location
    switch node.kind {
    case .action(let action):
      return actionDeclaration(action, at: at).located(at: at)
    case .condition(let condition):
      let decide = conditionCode(condition, at: at)
      let yes = condition.yes.map { block($0, in: file, depth: depth + 1) }
      let no = condition.no.map { block($0, in: file, depth: depth + 1) }
      return Lowering.condition(
        condition.name, isFinal: condition.isFinal, at: at, decide: decide, yes: yes, no: no
      ).located(at: at)
    case .multipleCondition(let condition):
      let decide = keyCode(condition, at: at)
      let exits = condition.exits.map { exits in
        exits.map { exit in
          (exit, block(exit.states, in: file, depth: depth + 1))
        }
      }
      return Lowering.multipleCondition(
        condition.name, isFinal: condition.isFinal, at: at, decide: decide, exits: exits
      ).located(at: at)
    case .dispatch(let dispatch):
      let merge = mergeCode(dispatch, at: at)
      let joinAll = changedKeysJoin(dispatch, at: at)
      let branches = dispatch.branches.map { branch in
        (branch, block(branch.states, in: file, depth: depth + 1))
      }
      if let joinAll {
        return Lowering.dispatch(
          dispatch.name, isFinal: dispatch.isFinal, at: at,
          maxConcurrency: dispatch.maxConcurrency, join: dispatch.join.policy,
          joiningAll: joinAll, branches: branches
        ).located(at: at)
      }
      return Lowering.dispatch(
        dispatch.name, isFinal: dispatch.isFinal, at: at,
        maxConcurrency: dispatch.maxConcurrency, join: dispatch.join.policy, merge: merge,
        branches: branches
      ).located(at: at)
    case .wait(let wait):
      return waitDeclaration(wait, at: at).located(at: at)
    case .delay(let delay):
      return delayDeclaration(delay, at: at).located(at: at)
    case .subflow(let subflow):
      return subflowDeclaration(subflow, in: file, depth: depth, at: at).located(at: at)
    case .map(let map):
      return mapDeclaration(map, in: file, at: at).located(at: at)
    case .goTo(let target):
      return Lowering.goTo(target, at: at).located(at: at)
    case .include:
      preconditionFailure("declare(_:in:depth:into:) splices includes")
    }
  }
}

extension ChartOutcomes {
  /// The core's outcomes, whose values are the strings the file gives.
  var declaration: Outcomes<String> {
    Outcomes(
      rules: rules.map { rule in
        OutcomeRule(
          rule.outcome, at: rule.state, deciding: rule.decision.map(\.decision),
          location: rule.location)
      }, mapsEveryEnd: mapsEveryEnd, at: location)
  }
}

extension ChartDecision {
  /// The core's decision.
  var decision: Decision {
    switch self {
    case .yes: .yes
    case .no: .no
    case .done: .done
    case .key(let key): .key(key)
    }
  }
}
