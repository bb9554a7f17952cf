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

  // MARK: - Waits, subflows and maps

  mutating func waitDeclaration(_ wait: ChartWait, at location: SourceLocation)
    -> Declaration<Context>
  {
    switch wait.input {
    case .handler(let name):
      let request = HandlerRequest(
        kind: .input, name: name, stateName: wait.name, location: location)
      if case .input(let declare)? = handler(request, what: "Wait")?.code {
        return declare(wait.name, wait.isFinal, location)
      }
    case .store(let path):
      if let data = dataAccess(for: "Wait", wait.name, at: location) {
        return Lowering.wait(wait.name, isFinal: wait.isFinal, at: location, for: ChartValue.self) {
          context, input in
          var value = data.read(context)
          value[path: path] = input
          data.write(&context, value)
        }
      }
    }
    return Lowering.wait(wait.name, isFinal: wait.isFinal, at: location, for: ChartValue.self) {
      _, _ in
    }
  }

  /// The file a subflow or a map runs, read; `nil` (and a problem recorded) when it was not.
  mutating func includedChart(_ path: String, in file: ChartFile, at location: SourceLocation)
    -> ChartFile?
  {
    guard let included = file.includedFiles[path] else {
      problems.add(
        .unreadableFile,
        "The file '\(path)' run here was not read: read the chart with ChartFile.read(contentsOf:), which reads the files it runs.",
        at: location)
      return nil
    }
    return included
  }

  /// `chart` compiled for a data-only run: with these handlers when the context is a
  /// `ChartValue`, else with the built-ins only; `nil` (and its problems recorded) when it
  /// does not compile.
  mutating func dataChart(_ chart: ChartFile) -> Flowchart<ChartValue>? {
    if let registry = handlers as? HandlerRegistry<ChartValue> {
      return compiled(chart, handlers: registry, scope: scope)
    }
    return compiled(chart, handlers: HandlerRegistry<ChartValue>(), scope: scope + "/data")
  }

  /// `chart` compiled with `handlers`, which `scope` names in the session: compiled the
  /// first time, shared after; `nil` (and its problems recorded, once) when it does not
  /// compile.
  mutating func compiled<Inner>(
    _ chart: ChartFile, handlers: HandlerRegistry<Inner>, scope: String
  ) -> Flowchart<Inner>? {
    let session = session
    let (compiled, found) = session.chart(for: chart, scope: scope) {
      () throws(DefinitionError) -> Flowchart<Inner> in
      try chart.flowchart(handlers: handlers, session: session, scope: scope)
    }
    problems.problems += found
    return compiled
  }

  mutating func subflowDeclaration(
    _ subflow: ChartSubflow, in file: ChartFile, depth: Int, at location: SourceLocation
  ) -> Declaration<Context> {
    let (name, isFinal) = (subflow.name, subflow.isFinal)
    let exits: Lowering<Context>.SubflowExits
    switch subflow.exits {
    case .none: exits = .none
    case .yesNo(let yes, let no):
      exits = .yesNo(block(yes, in: file, depth: depth + 1), block(no, in: file, depth: depth + 1))
    case .keyed(let list):
      exits = .keyed(list.map { ($0, block($0.states, in: file, depth: depth + 1)) })
    }
    if let mapping = subflow.mapping {
      return mappedSubflow(subflow, mapping: mapping, in: file, at: location, exits: exits)
    }
    guard let included = includedChart(subflow.chart, in: file, at: location) else {
      return placeholder(name, isFinal: isFinal, at: location, exits: exits)
    }
    if let path = subflow.contextPath {
      guard let data = dataAccess(for: "Subflow", name, at: location),
        let chart = dataChart(included)
      else { return placeholder(name, isFinal: isFinal, at: location, exits: exits) }
      let mapping = ContextMapping<Context, ChartValue>(
        enter: { data.read($0)[path: path] ?? .null },
        leave: { context, inner in
          var value = data.read(context)
          value[path: path] = inner
          data.write(&context, value)
        })
      return Lowering.subflow(
        name, isFinal: isFinal, at: location, chart: chart, mapping: mapping, exits: exits)
    }
    guard let chart = compiled(included, handlers: handlers, scope: scope) else {
      return placeholder(name, isFinal: isFinal, at: location, exits: exits)
    }
    return Lowering.subflow(
      name, isFinal: isFinal, at: location, chart: chart, mapping: .whole, exits: exits)
  }

  /// What stands for a subflow whose chart cannot run, with the same exits, so that the outer
  /// chart's own problems are still found.
  func placeholder(
    _ name: String, isFinal: Bool, at location: SourceLocation,
    exits: Lowering<Context>.SubflowExits
  ) -> Declaration<Context> {
    switch exits {
    case .none:
      Lowering.action(name, isFinal: isFinal, at: location)
    case .yesNo(let yes, let no):
      Lowering.condition(
        name, isFinal: isFinal, at: location, decide: .synchronous { _ in false }, yes: yes,
        no: no)
    case .keyed(let exits):
      Lowering.multipleCondition(
        name, isFinal: isFinal, at: location, decide: .synchronous { _ in "" }, exits: exits)
    }
  }

  /// A subflow whose inner chart runs on the part of the context the registered mapping
  /// `mapping` takes, bound with the mapping's registry.
  mutating func mappedSubflow(
    _ subflow: ChartSubflow, mapping: String, in file: ChartFile, at location: SourceLocation,
    exits: Lowering<Context>.SubflowExits
  ) -> Declaration<Context> {
    let (name, isFinal) = (subflow.name, subflow.isFinal)
    if subflow.contextPath != nil {
      problems.malformed(
        "Subflow '\(name)' has both a context path and the mapping '\(mapping)': keep one.",
        at: location, name: name)
    }
    let request = HandlerRequest(
      kind: .mapping, name: mapping, stateName: name, location: location)
    let binding = handler(request, what: "Subflow")
    guard let included = includedChart(subflow.chart, in: file, at: location),
      subflow.contextPath == nil, case .mapping(let mapping)? = binding?.code
    else { return placeholder(name, isFinal: isFinal, at: location, exits: exits) }
    let site = SubflowSite(
      name: name, isFinal: isFinal, location: location, exits: exits, session: session,
      scope: innerScope("mapping", request.name, for: request))
    switch mapping.bind(included, handlers, site) {
    case .success(let declaration):
      return declaration
    case .failure(let error):
      problems.problems += error.problems
      return placeholder(name, isFinal: isFinal, at: location, exits: exits)
    }
  }

  mutating func mapDeclaration(_ map: ChartMap, in file: ChartFile, at location: SourceLocation)
    -> Declaration<Context>
  {
    let inner: ChartFile?
    switch map.chart {
    case .file(let path): inner = includedChart(path, in: file, at: location)
    case .states(let states):
      inner = ChartFile(path: file.path, states: states, includedFiles: file.includedFiles)
    }
    // A registered collection comes first; then a path of the data; then the fallback.
    let registered = handlers.handlers[map.over]
    if registered?.kind == .collection || handlers.data == nil {
      return collectionMap(map, registered: registered, running: inner, at: location)
    }
    let data = dataAccess(for: "Map", map.name, at: location)
    guard let data, let inner, let chart = dataChart(inner) else {
      return Lowering.action(map.name, isFinal: map.isFinal, at: location)
    }
    let (name, over, into) = (map.name, map.over, map.into ?? map.over)
    return Lowering.map(
      map.name, isFinal: map.isFinal, at: location,
      over: { context in
        switch data.read(context)[path: over] {
        case .array(let elements)?: return elements
        case let value: throw MapInputError(stateName: name, path: over, value: value)
        }
      },
      running: chart, maxConcurrency: map.maxConcurrency,
      toleratedFailures: map.toleratedFailures,
      collect: { context, results in
        var outputs = [ChartValue](repeating: .null, count: results.elementCount)
        for (index, output) in zip(results.indices, results.outputs) { outputs[index] = output }
        var value = data.read(context)
        value[path: into] = .array(outputs)
        data.write(&context, value)
      })
  }

  /// A map over the registered collection `map.over`, its chart bound with the collection's
  /// registry; or, without one, a problem.
  mutating func collectionMap(
    _ map: ChartMap, registered: Handler<Context>?, running inner: ChartFile?,
    at location: SourceLocation
  ) -> Declaration<Context> {
    let request = HandlerRequest(
      kind: .collection, name: map.over, stateName: map.name, location: location)
    var binding: MapBinding<Context>?
    if registered == nil, handlers.fallback == nil {
      problems.add(
        .unboundName,
        "Map '\(map.name)' runs over '\(map.over)', which is not a registered collection, and the context \(Context.self) has no data to read it from. Register it (handlers[\"\(map.over)\"] = \(HandlerKind.collection.registrationExample)), create the registry with HandlerRegistry(data: \\.yourChartValue) to read it from the data, or fix the name\(suggestion(for: request)).",
        at: location, name: map.name)
    } else if case .collection(let found)? = handler(request, what: "Map")?.code {
      binding = found
    }
    if map.into != nil, registered?.kind == .collection {
      problems.add(
        .mismatchedHandler,
        "Map '\(map.name)' runs over the registered collection '\(map.over)', which says where its results go: remove the map's into, or collect them elsewhere in the registration.",
        at: location, name: map.name)
      binding = nil
    }
    guard let binding, let inner else {
      return Lowering.action(map.name, isFinal: map.isFinal, at: location)
    }
    let site = MapSite(
      name: map.name, isFinal: map.isFinal, location: location,
      maxConcurrency: map.maxConcurrency, toleratedFailures: map.toleratedFailures,
      session: session, scope: innerScope("collection", map.over, for: request))
    switch binding.bind(inner, handlers, site) {
    case .success(let declaration):
      return declaration
    case .failure(let error):
      problems.problems += error.problems
      return Lowering.action(map.name, isFinal: map.isFinal, at: location)
    }
  }

  /// The session's name for the registry a registered mapping or collection `name` binds
  /// its chart with: the registration's name when it is registered, so that the subflows and
  /// maps naming it share compiled charts; the request's state and location when a fallback
  /// made it, since a fallback may answer each request differently.
  func innerScope(_ kind: String, _ name: String, for request: HandlerRequest) -> String {
    if handlers.handlers[name] != nil { return "\(scope)/\(kind):\(name)" }
    return "\(scope)/\(kind):\(name)@\(request.stateName)@\(request.location)"
  }

  // MARK: - Handlers

  /// The handler for `request`: an override for its state, a registered one, or the
  /// fallback's; `nil` (and a problem recorded) when there is none of the right kind.
  mutating func handler(_ request: HandlerRequest, what: String) -> Handler<Context>? {
    let found = handlers.handlers[request.name] ?? handlers.fallback?(request)
    guard let found else {
      problems.add(
        .unboundName,
        "\(what) '\(request.stateName)' names the \(request.kind) '\(request.name)', which is not registered. Register it (handlers[\"\(request.name)\"] = \(request.kind.registrationExample)), or fix the name\(suggestion(for: request)).",
        at: request.location, name: request.stateName)
      return nil
    }
    guard found.kind == request.kind else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(request.stateName)' names '\(request.name)' as its \(request.kind), but '\(request.name)' is registered as \(article(found.kind.rawValue)) \(found.kind). Name a registered \(request.kind), or register one under another name.",
        at: request.location, name: request.stateName)
      return nil
    }
    return found
  }

  /// ` (did you mean 'x'?)` when a registered handler of the kind has a close name.
  func suggestion(for request: HandlerRequest) -> String {
    let candidates = handlers.handlers.filter { $0.value.kind == request.kind }.keys.sorted()
    let limit = max(1, request.name.count / 3)
    let best =
      candidates
      .map { ($0, editDistance($0, request.name)) }
      .filter { $0.1 <= limit || ($0.0.hasPrefix(request.name) && request.name.count >= 3) }
      .min { $0.1 < $1.1 }
    return best.map { " (did you mean '\($0.0)'?)" } ?? ""
  }

  /// The override for the state, if its kind is right.
  mutating func override(
    _ name: String, kind: HandlerKind, what: String, at location: SourceLocation
  )
    -> Handler<Context>?
  {
    guard let override = handlers.overrides[name] else { return nil }
    guard override.kind == kind else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(name)' is overridden with \(article(override.kind.rawValue)) \(override.kind), not \(article(kind.rawValue)) \(kind).",
        at: location, name: name)
      return nil
    }
    return override
  }

  mutating func dataAccess(for what: String, _ name: String, at location: SourceLocation)
    -> DataAccess<Context>?
  {
    guard let data = handlers.data else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(name)' uses the built-in data, but the context \(Context.self) is not a ChartValue. Create the registry with HandlerRegistry(data: \\.yourChartValue), or bind a handler instead.",
        at: location, name: name)
      return nil
    }
    return data
  }

  mutating func actionDeclaration(_ action: ChartAction, at location: SourceLocation)
    -> Declaration<Context>
  {
    var handler = override(action.name, kind: .action, what: "Action", at: location)
    if handler == nil, let name = action.handler {
      handler = self.handler(
        HandlerRequest(kind: .action, name: name, stateName: action.name, location: location),
        what: "Action")
    }
    var store: (@Sendable (inout Context) -> Void)?
    if !action.stores.isEmpty, let data = dataAccess(for: "Action", action.name, at: location) {
      let stores = action.stores.map { ($0.path, $0.value) }
      store = { context in
        var value = data.read(context)
        for (path, stored) in stores { value[path: path] = stored }
        data.write(&context, value)
      }
    }
    let (name, isFinal) = (action.name, action.isFinal)
    if let message = action.failure {
      let failure = ChartFailure(stateName: name, message: message)
      let store = store
      switch handler?.code {
      case .asyncAction(let perform)?:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) async throws in
          store?(&context)
          try await perform(&context)
          throw failure
        }
      case .action(let perform)?:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) throws in
          store?(&context)
          try perform(&context)
          throw failure
        }
      default:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) throws in
          store?(&context)
          throw failure
        }
      }
    }
    switch (handler?.code, store) {
    case (.action(let perform)?, let store?):
      return Lowering.action(name, isFinal: isFinal, at: location) { context in
        store(&context)
        try perform(&context)
      }
    case (.action(let perform)?, nil):
      return Lowering.action(name, isFinal: isFinal, at: location, perform)
    case (.asyncAction(let perform)?, let store):
      return Lowering.action(name, isFinal: isFinal, at: location) { context in
        store?(&context)
        try await perform(&context)
      }
    case (_, let store?):
      return Lowering.action(name, isFinal: isFinal, at: location, store)
    case (_, nil):
      return Lowering.action(name, isFinal: isFinal, at: location)
    }
  }

  mutating func conditionCode(_ condition: ChartCondition, at location: SourceLocation)
    -> Lowering<Context>.Decide<Bool>
  {
    let handler: Handler<Context>?
    if let override = override(condition.name, kind: .condition, what: "Condition", at: location) {
      handler = override
    } else {
      switch condition.decision {
      case .handler(let name):
        handler = self.handler(
          HandlerRequest(
            kind: .condition, name: name, stateName: condition.name, location: location),
          what: "Condition")
      case .test(let test):
        guard let data = dataAccess(for: "Condition", condition.name, at: location),
          let evaluate = compile(test)
        else { return .synchronous { _ in false } }
        return .synchronous { evaluate(data.read($0)) }
      }
    }
    switch handler?.code {
    case .condition(let decide)?: return .synchronous(decide)
    case .asyncCondition(let decide)?: return .asynchronous(decide)
    default: return .synchronous { _ in false }
    }
  }

  mutating func keyCode(_ condition: ChartMultipleCondition, at location: SourceLocation)
    -> Lowering<Context>.Decide<String>
  {
    let handler: Handler<Context>?
    if let override = override(
      condition.name, kind: .multipleCondition, what: "Multiple condition", at: location)
    {
      handler = override
    } else {
      switch condition.decision {
      case .handler(let name):
        handler = self.handler(
          HandlerRequest(
            kind: .multipleCondition, name: name, stateName: condition.name, location: location),
          what: "Multiple condition")
      case .value(let path):
        guard let data = dataAccess(for: "Multiple condition", condition.name, at: location)
        else { return .synchronous { _ in "" } }
        return .synchronous { (data.read($0)[path: path] ?? .null).keyText }
      }
    }
    switch handler?.code {
    case .multipleCondition(let decide)?: return .synchronous(decide)
    case .asyncMultipleCondition(let decide)?: return .asynchronous(decide)
    default: return .synchronous { _ in "" }
    }
  }

  mutating func mergeCode(_ dispatch: ChartDispatch, at location: SourceLocation)
    -> (@Sendable (inout Context, Context, Context) throws -> Void)?
  {
    guard let name = dispatch.merge else { return nil }
    let handler = self.handler(
      HandlerRequest(kind: .merge, name: name, stateName: dispatch.name, location: location),
      what: "Dispatch")
    if case .merge(let merge)? = handler?.code { return merge }
    return nil
  }

  /// Every test of `tests` as a function of the data, or `nil` when one cannot be (each
  /// problem is recorded).
  mutating func compile(_ tests: [ChartTest]) -> [@Sendable (ChartValue) -> Bool]? {
    let compiled = tests.map { compile($0) }
    guard compiled.allSatisfy({ $0 != nil }) else { return nil }
    return compiled.compactMap { $0 }
  }

  /// The test as a function of the data, or `nil` (and problems recorded) when a pattern is
  /// not a regular expression.
  mutating func compile(_ test: ChartTest) -> (@Sendable (ChartValue) -> Bool)? {
    switch test.kind {
    case .equal(let path, let expected):
      return { $0[path: path] == expected }
    case .less(let path, let bound):
      return { ChartValue.compare($0[path: path], bound) == .some(.orderedAscending) }
    case .greater(let path, let bound):
      return { ChartValue.compare($0[path: path], bound) == .some(.orderedDescending) }
    case .present(let path):
      return { ($0[path: path] ?? .null) != .null }
    case .matches(let path, let pattern):
      guard let expression = try? PatternBox(pattern) else {
        problems.malformed(
          "The pattern '\(pattern)' is not a regular expression this platform reads: fix it.",
          at: test.location)
        return nil
      }
      return { value in
        guard case .string(let text)? = value[path: path] else { return false }
        return expression.matches(text)
      }
    case .all(let tests):
      guard let checks = compile(tests) else { return nil }
      return { value in checks.allSatisfy { $0(value) } }
    case .any(let tests):
      guard let checks = compile(tests) else { return nil }
      return { value in checks.contains { $0(value) } }
    case .not(let inner):
      guard let check = compile(inner) else { return nil }
      return { !check($0) }
    }
  }
}

/// The number of single-character edits that turn `a` into `b`.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.unicodeScalars)
  let b = Array(b.unicodeScalars)
  guard !a.isEmpty else { return b.count }
  guard !b.isEmpty else { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      current[j] = min(
        previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}

extension ChartValue {
  /// How `value` compares to `bound`: both numbers, or both strings; `nil` otherwise.
  static func compare(_ value: ChartValue?, _ bound: ChartValue) -> ComparisonOrder? {
    switch (value, bound) {
    case (.number(let left)?, .number(let right)):
      left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    case (.string(let left)?, .string(let right)):
      left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
    default: nil
    }
  }

  enum ComparisonOrder {
    case orderedAscending
    case orderedSame
    case orderedDescending
  }
}

/// A map's path holds no array when the map starts.
struct MapInputError: Error, CustomStringConvertible {
  let stateName: String
  let path: String
  let value: ChartValue?

  var description: String {
    let found =
      switch value {
      case nil: "nothing"
      case .null?: "null"
      case .bool?: "a boolean"
      case .number?: "a number"
      case .string?: "a string"
      case .object?: "an object"
      case .array?: "an array"
      }
    return
      "Map '\(stateName)' runs over '\(path)', which holds \(found), not an array: store an array there before the map"
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
