/// What the compiler produces, the same for every context type: the nodes, pointing into
/// the boxes that hold the states' code, and everything else a ``Graph`` holds.
@usableFromInline
struct CompiledChart {
  /// The declaration the chart was compiled from.
  var declarations: [DeclarationNode]
  var nodes: NodeBuffer
  var codeBoxes: [any AnyObject & Sendable]
  var dispatches: [DispatchPlan]
  /// The subflows that synchronous loops run in place, by ``Node/call``: the graph makes
  /// them from ``subflowStates``, where it knows the context type.
  var callSites: [CallSite] = []
  /// The subflows not yet given a call site: those the graph may run in place.
  var subflowStates: [Int32] = []
  var records: [StateRecord]
  /// Every state's exits, one state after another.
  var exits: [StoredExit]
  /// The text of every key label, which ``StoredExit/Label/key(_:)`` refers to.
  var keyLabels: [String]
  var start: Int32
  var entryPoints: [Int32]
  /// The states that are asynchronous, in numbering order.
  var asynchronousStates: [Int32]
  /// The outcome each way to end maps to, when the chart declares outcomes.
  var outcomes: OutcomeTable? = nil
}

/// The compiled, immutable graph shared by every copy of a ``Flowchart``.
///
/// `@unchecked Sendable` because the nodes live in a raw buffer and hold unmanaged pointers
/// to boxes, and the records refer to declarations unretained. That is safe: every
/// property is a `let` set once in `init`; the node buffer is written by the compiler
/// (and by `init`, which marks the subflows that run in place) before the graph is used,
/// never written again, and freed only with the graph (its
/// ``NodeBuffer`` is not shared); the boxes are immutable `Sendable` classes that
/// ``declarations`` (for actions and conditions: each declaration owns its box, so keeping
/// the declarations keeps those boxes) and ``codeBoxes`` (for multiple conditions) keep
/// alive for the graph's whole life, as
/// ``declarations`` does every declaration the records refer to; and a run holds the graph
/// while it reads the nodes.
@usableFromInline
final class Graph<Context: Sendable>: @unchecked Sendable {
  /// The nodes, indexed by state. A raw buffer rather than an array, so the run loop reads
  /// a node with one load and no bounds check: every index in the graph was checked when
  /// it was compiled.
  @usableFromInline let nodeBase: UnsafeMutablePointer<Node>
  /// Owns the nodes ``nodeBase`` points to.
  private let nodeBuffer: NodeBuffer
  @usableFromInline let dispatches: [DispatchPlan]
  /// The subflows that synchronous loops run in place, by ``Node/call``: their nodes are
  /// the subflows' charts', which the declarations keep alive.
  @usableFromInline let callSites: [CallSite]
  /// The declaration the chart was compiled from. It owns every state's declaration: the
  /// records refer to them unretained, and the nodes of actions and conditions point to
  /// the boxes the declarations own. Keeping it whole also spares compiling a release of every
  /// declaration, which for a large chart means touching every state once more.
  let declarations: [DeclarationNode]
  /// Owns the boxes of the multiple conditions' code, which ``nodeBase``'s nodes point to.
  let codeBoxes: [any AnyObject & Sendable]
  let records: [StateRecord]
  /// Every state's exits, one state after another; ``StateRecord/firstExit`` says where
  /// each state's begin.
  let exits: [StoredExit]
  /// The text of every key label, which ``StoredExit/Label/key(_:)`` refers to.
  let keyLabels: [String]
  let start: Int32
  let entryPoints: [Int32]
  /// Every state's name, indexed on first use: only queries and runs that start at a named
  /// state need it, so compiling does not pay for it.
  private let nameTable = Lock<NameTable?>(nil)
  /// The states that are asynchronous: empty when the chart can run synchronously.
  let asynchronousStates: [Int32]
  /// Whether every state runs in the synchronous loop (no asynchronous state, dispatch or
  /// modified state), so that a subflow may run the chart in place (see ``CallSite``):
  /// found on first use, once however many subflows run the chart.
  private let inOneLoop = Lock<Bool?>(nil)
  /// The chart's structure as snapshots see it (`Durable/ChartStructure.swift`), made on
  /// first use: only snapshots and resumes need it.
  let structureCache = Lock<ChartStructure?>(nil)
  /// The chart's declared outcomes, if any (see `Live/Outcomes.swift`).
  let outcomes: OutcomeTable?

  /// Takes over a compiled chart; in debug builds, checks its invariants.
  @usableFromInline
  init(_ chart: CompiledChart) {
    // The node buffer's length is taken from the records: they must agree.
    precondition(chart.nodes.count == chart.records.count, "one record per node")
    var chart = chart
    Self.placeSubflows(of: &chart)
    nodeBuffer = chart.nodes
    nodeBase = chart.nodes.base
    declarations = chart.declarations
    codeBoxes = chart.codeBoxes
    dispatches = chart.dispatches
    callSites = chart.callSites
    records = chart.records
    start = chart.start
    entryPoints = chart.entryPoints
    exits = chart.exits
    keyLabels = chart.keyLabels
    asynchronousStates = chart.asynchronousStates
    outcomes = chart.outcomes
    #if DEBUG
      checkInvariants()
    #endif
  }

  /// Gives each subflow of `chart.subflowStates` whose chart a synchronous loop can run
  /// in place (see ``CallSite``) the kind ``CodeKind/callAction`` or
  /// ``CodeKind/callCondition`` and a call site; its box stays, for the loops that run it
  /// nested. Done here rather than in the compiler, which does not know the context type.
  private static func placeSubflows(of chart: inout CompiledChart) {
    for state in chart.subflowStates {
      let index = Int(state)
      let kind: CodeKind
      switch chart.nodes.base[index].kind {
      case .action: kind = .callAction
      case .condition: kind = .callCondition
      case .pass, .select, .decideKey, .callAction, .callCondition, .asyncAction, .asyncCondition,
        .asyncSelect, .asyncDecideKey, .dispatch, .modified:
        continue  // Keyed, asynchronous or modified: its own code runs its chart.
      }
      guard let subflow = chart.records[index].attachment as? any InPlaceSubflow,
        let site = subflow.callSite(over: Context.self)
      else { continue }
      chart.nodes.base[index].kind = kind
      chart.nodes.base[index].call = Int32(chart.callSites.count)
      chart.callSites.append(site)
    }
    chart.subflowStates = []
  }

  /// Whether every state of the chart runs in the synchronous loop (see ``CallSite``).
  var runsInOneLoop: Bool {
    inOneLoop.withLock { known in
      if let known { return known }
      let found = !nodes.contains { $0.kind.suspends }
      known = found
      return found
    }
  }

  /// Finds states by name.
  var names: NameTable {
    nameTable.withLock { table in
      if let table { return table }
      let built = NameTable(records.lazy.map(\.name))
      table = built
      return built
    }
  }

  /// The exits of the state `state`, in declaration order.
  func exits(of state: Int) -> [Exit] {
    storedExits(of: state).map {
      Exit(label: $0.label.label(keyLabels: keyLabels), target: StateID($0.target))
    }
  }

  /// The exits of the state `state` as the graph stores them, without copying them.
  func storedExits(of state: Int) -> ArraySlice<StoredExit> {
    let end = state + 1 < records.count ? Int(records[state + 1].firstExit) : exits.count
    return exits[Int(records[state].firstExit)..<end]
  }

  /// The nodes, for code off the hot path.
  var nodes: UnsafeBufferPointer<Node> {
    UnsafeBufferPointer(start: nodeBase, count: records.count)
  }
}

/// The nodes of a graph in one allocation, which the compiler writes in place and the graph
/// then owns: a chart's nodes are never copied.
final class NodeBuffer {
  /// The first node.
  let base: UnsafeMutablePointer<Node>
  /// The most nodes the buffer holds.
  let capacity: Int
  /// The nodes written so far.
  private(set) var count = 0

  /// An empty buffer with room for `capacity` nodes.
  init(capacity: Int) {
    base = .allocate(capacity: max(capacity, 1))
    self.capacity = capacity
  }

  deinit {
    base.deinitialize(count: count)
    base.deallocate()
  }

  /// Writes `node` after the others.
  func append(_ node: Node) {
    precondition(count < capacity, "a node buffer holds no more nodes than it was sized for")
    (base + count).initialize(to: node)
    count += 1
  }

  /// The node at `index`, one of those written.
  subscript(index: Int) -> Node {
    get {
      precondition(index >= 0 && index < count, "a written node")
      return base[index]
    }
    set {
      precondition(index >= 0 && index < count, "a written node")
      base[index] = newValue
    }
  }
}
