/// A compiled flowchart: an immutable, validated graph of states that runs with a
/// `Context` value and prints as a tree.
///
/// Declare the states in a ``FlowBuilder`` block; the initializer compiles them and throws
/// a ``DefinitionError`` listing every problem at once:
///
/// ```swift
/// struct Launch { var isFirstLaunch = true; var log: [String] = [] }
///
/// let chart = try Flowchart<Launch> {
///   Condition("Check first launch") { $0.isFirstLaunch } yes: {
///     Action("Fetch something") { $0.log.append("fetched") }
///     Action("Final state", isFinal: true)
///   } no: {
///     GoTo("Final state")
///   }
/// }
/// let result = try chart.runSynchronously(with: Launch())
/// print(chart)  // the tree
/// ```
///
/// A `Flowchart` is a value: copies share one graph, and it is `Sendable`, so many runs
/// may use it at once.
public struct Flowchart<Context: Sendable>: Sendable {
  @usableFromInline let graph: Graph<Context>

  @usableFromInline
  init(graph: Graph<Context>) {
    self.graph = graph
  }

  /// Compiles a declaration into a flowchart.
  ///
  /// The first declared state is the start. Every state must be reachable from the start
  /// or from one of `entryPoints`.
  ///
  /// - Parameters:
  ///   - entryPoints: Names of further states a run may start at that the start does not
  ///     lead to. Any reachable named state may start a run without being listed.
  ///   - declarations: The chart's states.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  /// - Throws: A ``DefinitionError`` listing every problem of the declaration.
  /// - Complexity: O(*n*) in the number of declared states and arrows.
  @inlinable
  public init(
    entryPoints: [String] = [],
    fileID: String = #fileID,
    line: Int = #line,
    @FlowBuilder<Context> _ declarations: () -> [Declaration<Context>]
  ) throws(DefinitionError) {
    // Inlined, so that the caller's module specializes the one generic step: reading the
    // declarations. The compiler itself is not generic.
    var compiler = Compiler(
      entryPoints: entryPoints, location: SourceLocation(fileID: fileID, line: line))
    graph = Graph(try compiler.compile(Declaration.nodes(of: declarations())))
  }
}

extension Flowchart {
  /// The IDs of all states, in the order the compiler numbered them.
  public var states: Range<StateID> { StateID(0)..<StateID(graph.records.count) }

  /// The state a run starts at unless told otherwise: the first declared state.
  public var start: StateID { StateID(graph.start) }

  /// The states listed as entry points when the chart was compiled, in that order.
  public var entryPoints: [StateID] { graph.entryPoints.map(StateID.init) }

  /// Whether no state is asynchronous, so that
  /// ``runSynchronously(with:stepLimit:)`` can run the chart.
  public var isSynchronous: Bool { graph.asynchronousStates.isEmpty }

  /// A description of the state `id`.
  ///
  /// - Precondition: `id` is one of ``states``.
  public subscript(id: StateID) -> StateInfo {
    let record = graph.records[id.index]
    return StateInfo(
      id: id, name: record.name, kind: record.kind, isFinal: record.isFinal,
      isAsynchronous: record.isAsynchronous, location: record.location,
      exits: graph.exits(of: id.index),
      isTopLevel: record.flow == 0)
  }

  /// The states with the given name, in ID order; empty when there is none.
  public func states(named name: String) -> [StateID] {
    graph.names.states(named: name).map(StateID.init)
  }

  /// The one state with the given name, or `nil` when no state or several states have it.
  public func state(named name: String) -> StateID? {
    guard case .one(let state) = graph.names.match(name) else { return nil }
    return StateID(state)
  }
}
