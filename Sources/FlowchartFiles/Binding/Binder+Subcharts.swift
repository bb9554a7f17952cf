// The binder's subflows and maps: the chart each runs (a file read with this one, or states
// written inline), compiled once per registry in the binding session, on the whole context,
// a path of the data, or a registered mapping or collection.

import Flowchart

extension Binder {
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
