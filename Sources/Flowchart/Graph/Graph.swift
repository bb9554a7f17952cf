import Synchronization

/// What the compiler produces, the same for every context type: the nodes, pointing into
/// the boxes that hold the states' code, and everything else a ``Graph`` holds.
@usableFromInline
struct CompiledChart {
  /// The declaration the chart was compiled from.
  var declarations: [DeclarationNode]
  var nodes: [Node]
  var codeBoxes: [any AnyObject & Sendable]
  var dispatches: [DispatchPlan]
  var records: [StateRecord]
  /// Every state's exits, one state after another.
  var exits: [Exit]
  var start: Int32
  var entryPoints: [Int32]
  /// The states that are asynchronous, in numbering order.
  var asynchronousStates: [Int32]
}

/// The compiled, immutable graph shared by every copy of a ``Flowchart``.
///
/// `@unchecked Sendable` because the nodes live in a raw buffer and hold unmanaged pointers
/// to boxes. That is safe: every property is a `let` set once in `init`; the node buffer is
/// written only in `init` and freed only in `deinit`; the boxes are immutable `Sendable`
/// classes that ``records`` (for actions and conditions, whose declarations are their
/// boxes) and ``codeBoxes`` (for multiple conditions) keep alive for the graph's whole
/// life; and a run holds the graph while it reads the nodes.
@usableFromInline
final class Graph<Context: Sendable>: @unchecked Sendable {
  /// The nodes, indexed by state. A raw buffer rather than an array, so the run loop reads
  /// a node with one load and no bounds check: every index in the graph was checked when
  /// it was compiled.
  @usableFromInline let nodeBase: UnsafeMutablePointer<Node>
  @usableFromInline let dispatches: [DispatchPlan]
  /// The declaration the chart was compiled from. The records refer to its states, whose
  /// boxes the nodes of actions and conditions point to; keeping it whole also spares
  /// compiling a release of every declaration, which for a large chart means touching
  /// every state once more.
  let declarations: [DeclarationNode]
  /// Owns the boxes of the multiple conditions' code, which ``nodeBase``'s nodes point to.
  let codeBoxes: [any AnyObject & Sendable]
  let records: [StateRecord]
  /// Every state's exits, one state after another; ``StateRecord/exits`` says where.
  let exits: [Exit]
  let start: Int32
  let entryPoints: [Int32]
  /// Every state's name, indexed on first use: only queries and runs that start at a named
  /// state need it, so compiling does not pay for it.
  private let nameTable = Mutex<NameTable?>(nil)
  /// The states that are asynchronous: empty when the chart can run synchronously.
  let asynchronousStates: [Int32]

  /// Takes over a compiled chart; in debug builds, checks its invariants.
  @usableFromInline
  init(_ chart: CompiledChart) {
    // The node buffer's length is taken from the records: they must agree.
    precondition(chart.nodes.count == chart.records.count, "one record per node")
    nodeBase = .allocate(capacity: chart.nodes.count)
    nodeBase.initialize(from: chart.nodes, count: chart.nodes.count)
    declarations = chart.declarations
    codeBoxes = chart.codeBoxes
    dispatches = chart.dispatches
    records = chart.records
    start = chart.start
    entryPoints = chart.entryPoints
    exits = chart.exits
    asynchronousStates = chart.asynchronousStates
    #if DEBUG
      checkInvariants()
    #endif
  }

  deinit {
    nodeBase.deinitialize(count: records.count)
    nodeBase.deallocate()
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

  /// The exits of the state `record` describes.
  func exits(of record: StateRecord) -> ArraySlice<Exit> {
    exits[Int(record.exits.lowerBound)..<Int(record.exits.upperBound)]
  }

  /// The nodes, for code off the hot path.
  var nodes: UnsafeBufferPointer<Node> {
    UnsafeBufferPointer(start: nodeBase, count: records.count)
  }
}
