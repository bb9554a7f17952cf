import Flowchart

// The floors of the compile and print rows (issue 26, "Floors for the rows that have
// none"): the same graph built by hand, and the same text written by a plain loop over it.
// Each floor is checked to do the same work as the row it is the baseline of: the hand-built
// graph has the compiled chart's states, names, kinds and exits, and the floor's text is the
// printer's, byte for byte.

/// A large chart (``ChartRecipe``) built by hand, as a program that needed only this graph
/// would build it: its nodes in one array, in the compiler's numbering, each holding its
/// name, its code and its exits, and the one `GoTo` target (`Done`) resolved through one
/// dictionary of every state's name. No checks: no duplicate or missing names, no
/// unreachable states, no locations for messages, no declarations kept.
struct HandChart {
  /// What a state does.
  enum Kind {
    case action, condition, select

    /// The kind a compiled chart reports for it.
    var stateKind: StateKind {
      switch self {
      case .action: .action
      case .condition: .condition
      case .select: .multipleCondition
      }
    }

    /// The printed tree's letter.
    var letter: String {
      switch self {
      case .action: "A"
      case .condition: "S"
      case .select: "M"
      }
    }
  }

  /// A state's code, as the declaration passed it.
  enum Code {
    case none
    case work(@Sendable (inout ShapeContext) throws -> Void)
    case decide(@Sendable (inout ShapeContext) throws -> Bool)
    case pick(@Sendable (inout ShapeContext) throws -> Int)
  }

  /// One state.
  struct Node {
    var name: String
    var kind: Kind
    var isFinal: Bool
    /// An action's next state (-1 when final), a condition's `yes` exit, or where a multiple
    /// condition's exits start in ``HandChart/cases``.
    var next: Int32
    /// A condition's `no` exit, or how many exits a multiple condition has.
    var alternative: Int32
    var code: Code
  }

  /// The states, in the compiler's numbering.
  private(set) var nodes: [Node] = []
  /// The multiple conditions' exits: their keys' text and their targets.
  private(set) var cases: [(key: String, target: Int32)] = []
  /// Every state's name: the state it names.
  private var index: [String: Int32] = [:]
  /// `GoTo`s waiting for their target to be numbered: the condition and the target's name.
  private var jumps: [(node: Int, target: String)] = []

  /// Builds `recipe`'s chart, with the closures `code` the compiled chart is given.
  init(_ recipe: ChartRecipe, _ code: ShapeCode) {
    let names = recipe.names
    let last = recipe.states - 1
    nodes.reserveCapacity(recipe.states)
    index.reserveCapacity(recipe.states)
    switch recipe.shape {
    case .chain:
      for state in 0..<last {
        add(names[state], .action, next: Int32(state + 1), code: .work(code.work))
      }
    case .wideTree:
      // As ``ChartRecipe/compile(_:)`` splits the states between the subtrees.
      let inner = last - 1
      let subtrees = max(1, (inner + ChartShape.subtreeStates - 1) / ChartShape.subtreeStates)
      let bounds = (0...subtrees).map { 1 + inner * $0 / subtrees }
      add(names[0], .select, next: 0, alternative: Int32(subtrees), code: .pick(code.pick))
      cases.reserveCapacity(subtrees)
      for subtree in 0..<subtrees {
        cases.append((String(subtree), Int32(nodes.count)))
        addTree(
          bounds[subtree]..<bounds[subtree + 1], names: names, after: Int32(last), code: code)
      }
    }
    add(names[last], .action, isFinal: true, next: -1, code: .none)
    for jump in jumps {
      nodes[jump.node].next = index[jump.target] ?? -1
    }
    jumps = []
  }

  private mutating func add(
    _ name: String, _ kind: Kind, isFinal: Bool = false, next: Int32, alternative: Int32 = -1,
    code: Code
  ) {
    index[name] = Int32(nodes.count)
    nodes.append(
      Node(
        name: name, kind: kind, isFinal: isFinal, next: next, alternative: alternative,
        code: code))
  }

  /// The states `range` of a subtree, as `treeDeclarations` declares them, numbered as the
  /// compiler numbers them: a condition, its `yes` block, its `no` block, then its join. The
  /// last state of the range falls through to `after`.
  private mutating func addTree(
    _ range: Range<Int>, names: [String], after: Int32, code: ShapeCode
  ) {
    let first = range.lowerBound
    let at = nodes.count
    switch range.count {
    case 1:
      add(names[first], .action, next: after, code: .work(code.work))
    case 2:
      // `yes: { GoTo("Done") }, no: {}`: the `no` exit falls through to the join.
      add(
        names[first], .condition, next: -1, alternative: Int32(at + 1),
        code: .decide(code.decide))
      jumps.append((at, "Done"))
      add(names[first + 1], .action, next: after, code: .work(code.work))
    default:
      let middle = first + 2 + (range.count - 2) / 2
      let yesCount = middle - (first + 2)
      let join = Int32(at + 1 + yesCount + (range.upperBound - middle))
      add(
        names[first], .condition, next: yesCount == 0 ? join : Int32(at + 1),
        alternative: Int32(at + 1 + yesCount), code: .decide(code.decide))
      if yesCount > 0 {
        addTree((first + 2)..<middle, names: names, after: join, code: code)
      }
      addTree(middle..<range.upperBound, names: names, after: join, code: code)
      add(names[first + 1], .action, next: after, code: .work(code.work))
    }
  }

  /// The exits of the state `state`, as a compiled chart lists them.
  func exits(of state: Int) -> [(label: Exit.Label, target: Int)] {
    let node = nodes[state]
    switch node.kind {
    case .action:
      return node.isFinal ? [] : [(.next, Int(node.next))]
    case .condition:
      return [(.yes, Int(node.next)), (.no, Int(node.alternative))]
    case .select:
      let first = Int(node.next)
      return cases[first..<first + Int(node.alternative)].map { (.key($0.key), Int($0.target)) }
    }
  }

  /// Throws unless `chart` is this graph: the same states, in the same order, with the same
  /// names, kinds, finality and exits.
  func expectSame<Context>(as chart: Flowchart<Context>, _ what: String) throws {
    try expect(chart.states.count, equals: nodes.count, "\(what): states")
    for id in chart.states {
      let info = chart[id]
      let node = nodes[id.index]
      let exits = exits(of: id.index)
      guard
        info.name == node.name, info.kind == node.kind.stateKind, info.isFinal == node.isFinal,
        info.exits.count == exits.count,
        zip(info.exits, exits).allSatisfy({
          $0.label == $1.label && $0.target.index == $1.target
        })
      else {
        throw BenchmarkError.mismatch(
          "\(what): state \(id.index) is \(info.name) \(info.kind) \(info.exits) compiled, "
            + "\(node.name) \(node.kind) \(exits) by hand")
      }
    }
  }

  /// The chart as the printer's text tree, written by a plain loop over ``nodes`` with a
  /// stack of the lines to come: STWorkflow's format as ``Flowchart/printTree(to:)`` writes
  /// it for these charts (names and keys that need no quotes, no modifiers, no entry points
  /// but the start).
  var treeText: String {
    /// A line to write: its state, how many `|  ` come before it, and its prefix: `-1`
    /// none, `-2` `Y- `, `-3` `N- `, or an exit of ``cases`` (`+- key: `).
    typealias Line = (state: Int32, depth: Int, prefix: Int)
    var text = ""
    var printed = [Bool](repeating: false, count: nodes.count)
    var indents = [""]
    var stack: [Line] = nodes.isEmpty ? [] : [(0, 0, -1)]
    while let line = stack.popLast() {
      let state = Int(line.state)
      let node = nodes[state]
      let isRepeat = printed[state]
      printed[state] = true
      while indents.count <= line.depth { indents.append(indents[indents.count - 1] + "|  ") }
      text += indents[line.depth]
      switch line.prefix {
      case -1: break
      case -2: text += "Y- "
      case -3: text += "N- "
      default:
        text += "+- "
        text += cases[line.prefix].key
        text += ": "
      }
      text += node.name
      text += " ("
      text += node.kind.letter
      text += node.isFinal ? ") !\n" : isRepeat ? ") *\n" : ")\n"
      guard !isRepeat else { continue }
      // Nested exits one level deeper, then the state that follows in this column; pushed
      // in reverse, so they pop in order.
      let nested = line.prefix == -1 ? line.depth : line.depth + 1
      switch node.kind {
      case .action:
        if !node.isFinal { stack.append((node.next, nested, -1)) }
      case .condition:
        stack.append((node.alternative, nested, -3))
        stack.append((node.next, nested, -2))
      case .select:
        let first = Int(node.next)
        for exit in (first..<first + Int(node.alternative)).reversed() {
          stack.append((cases[exit].target, nested, exit))
        }
      }
    }
    return text
  }
}
