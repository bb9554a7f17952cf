import Flowchart

// The large charts of the compile and print workloads (issue items 4 and 5).

/// The context of the large charts. They are compiled and printed, never run here.
struct ShapeContext: Sendable {
  /// Changed by every action.
  var value = 0
}

/// The closures every state of a large chart shares.
struct ShapeCode: Sendable {
  /// The work of every action.
  let work: @Sendable (inout ShapeContext) throws -> Void
  /// The decision of every condition.
  let decide: @Sendable (inout ShapeContext) throws -> Bool
  /// The decision of the wide tree's root: which subtree to take.
  let pick: @Sendable (inout ShapeContext) throws -> Int

  /// The closures, hidden from the optimizer.
  static func make() -> ShapeCode {
    opaque(
      ShapeCode(
        work: { $0.value &+= 1 }, decide: { $0.value & 1 == 0 }, pick: { $0.value & 0xff }))
  }
}

/// The two shapes of large chart.
enum ChartShape: CaseIterable, Sendable, CustomStringConvertible {
  /// A long chain: `n - 1` actions in sequence, then the final action `Done`. Printed in
  /// one column.
  case chain
  /// A wide tree of conditions with joins. The root is a multiple condition with one exit
  /// per subtree of at most ``subtreeStates`` states; each subtree is a balanced binary
  /// tree of conditions, each condition followed by a join action that both its branches
  /// fall through to; at a two-state leaf the condition's `yes` exit jumps to the final
  /// action `Done` with a `GoTo`. Every subtree's last join falls through to `Done` too.
  ///
  /// Subtrees are bounded so that the chart's depth, and so the width of its printed
  /// lines, stays the same at every size: in STWorkflow's format each condition indents
  /// what it leads to by one level, so a single binary tree of `n` conditions prints about
  /// `n log n` characters and no printer could print it in time linear in `n`.
  case wideTree

  /// The most states in one subtree of the wide tree.
  static let subtreeStates = 1_000

  /// `chain` or `wide tree`.
  var description: String {
    switch self {
    case .chain: "chain"
    case .wideTree: "wide tree"
    }
  }
}

/// A large chart ready to be compiled: its shape, its size and its state names, made
/// beforehand so that compiling them is all the compile workload times.
struct ChartRecipe: Sendable {
  /// The shape.
  let shape: ChartShape
  /// The number of states the compiled chart has.
  let states: Int
  /// One distinct name per state; the last state is named `Done`.
  let names: [String]

  /// A recipe for a chart of `states` states (at least 3).
  init(_ shape: ChartShape, states: Int) {
    precondition(states >= 3, "a large chart has at least a first state, another and Done")
    self.shape = shape
    self.states = states
    names = (0..<states - 1).map { "S\($0)" } + ["Done"]
  }

  /// Compiles the chart: declares it through the result builder and compiles it, as a user
  /// does with `try Flowchart { … }`.
  func compile(_ code: ShapeCode) throws -> Flowchart<ShapeContext> {
    let names = names
    let last = states - 1
    switch shape {
    case .chain:
      return try Flowchart<ShapeContext> {
        for index in 0..<last {
          Action(names[index], code.work)
        }
        Action(names[last], isFinal: true)
      }
    case .wideTree:
      // States 1..<last form the subtrees, as evenly split as their size limit allows.
      let inner = last - 1
      let subtrees = max(1, (inner + ChartShape.subtreeStates - 1) / ChartShape.subtreeStates)
      let bounds = (0...subtrees).map { 1 + inner * $0 / subtrees }
      return try Flowchart<ShapeContext> {
        MultipleCondition(names[0], code.pick) {
          for subtree in 0..<subtrees {
            Case<ShapeContext, Int>(subtree) {
              treeDeclarations(bounds[subtree]..<bounds[subtree + 1], names: names, code: code)
            }
          }
        }
        Action(names[last], isFinal: true)
      }
    }
  }
}

/// The states `range` of the tree: a condition and its join, with the rest of the range
/// split between the condition's two branches. A single state is a leaf action; two
/// states are a condition whose `yes` exit jumps to `Done`, and its join.
///
/// Recursion depth is `log2(range.count)`, so this is safe for any size.
@FlowBuilder<ShapeContext>
private func treeDeclarations(
  _ range: Range<Int>, names: [String], code: ShapeCode
) -> [Declaration<ShapeContext>] {
  let first = range.lowerBound
  switch range.count {
  case 1:
    Action(names[first], code.work)
  case 2:
    Condition(names[first], code.decide, yes: { GoTo("Done") }, no: {})
    Action(names[first + 1], code.work)
  default:
    let middle = first + 2 + (range.count - 2) / 2
    Condition(
      names[first], code.decide,
      yes: { treeDeclarations((first + 2)..<middle, names: names, code: code) },
      no: { treeDeclarations(middle..<range.upperBound, names: names, code: code) })
    Action(names[first + 1], code.work)
  }
}
