extension Flowchart: CustomStringConvertible, CustomDebugStringConvertible {
  /// Writes the chart as an indented text tree, STWorkflow's debug format.
  ///
  /// ```
  /// Check first launch (S)
  /// Y- Fetch something (A)
  /// |  Final state (A) !
  /// N- An other check (S)
  /// |  Y- Final state (A) !
  /// |  N- Log something (A)
  /// |  |  Final state (A) !
  /// ```
  ///
  /// Each line is a state: its name, then its kind's letter (`S` condition, `M` multiple
  /// condition, `A` action, `D` dispatch, `F` subflow). A final state ends with ` !`. A non-final state
  /// that was already printed ends with ` *` and is not expanded again, which is how joins
  /// and cycles show. A condition's exits are prefixed `Y- ` and `N- `, a multiple
  /// condition's `+- key: `, a dispatch's branches `|- ` (`|- name: ` for a named branch,
  /// `|- name (after A, B): ` for one that waits for branches `A` and `B`); an action's or dispatch's next
  /// state stays in the same column without a prefix. Each level of nesting adds `|  `.
  ///
  /// A state with modifiers lists its timeout and retries after its letter
  /// (`Upload (A) [timeout 30s, retry ×3 (exponential 1s×2…10s)]`), and its catch routes
  /// below it, after its nested exits, prefixed `x- catch: ` (`x- catch NetworkError: ` for
  /// a route limited to one error type).
  ///
  /// Each state takes one line, which reads one way: a key is written as its `Case` was
  /// (`Optional("A")` as `A`, none as `nil`), and as a Swift string literal when it is
  /// empty, starts or ends with whitespace, holds `": "`, a `"` or a character that needs
  /// an escape (`"x: y"`, `""`, `"a\nb"`), or is `default` or `nil`. A name that holds a
  /// character that needs an escape, or starts or ends with whitespace, is written as a
  /// string literal too. Ordinary keys and names are written as they are.
  ///
  /// The tree starts at ``start``; entry points it does not reach follow as trees of their
  /// own.
  ///
  /// - Complexity: O(*n*) in the length of the output; iterative, so charts of any depth
  ///   print without growing the stack.
  public func printTree<Target: TextOutputStream>(to target: inout Target) {
    var printer = TreePrinter(graph: graph, expandsSubflows: false)
    printer.write(to: &target)
  }

  /// Writes the chart as a text tree, as ``printTree(to:)`` does, with the chart of each
  /// ``Subflow`` drawn below its state when `expandingSubflows` is `true`.
  ///
  /// A subflow's chart is written as a tree of its own, each of its lines starting with
  /// `:  ` where the subflow's next state would start, before the subflow's exits:
  ///
  /// ```
  /// Check out (F)
  /// :  Reserve stock (A)
  /// :  In stock? (S)
  /// :  Y- Paid (A) !
  /// :  N- Out of stock (A) !
  /// +- Paid: Ship (A) !
  /// +- Out of stock: Apologise (A) !
  /// ```
  ///
  /// Subflows inside a subflow's chart are expanded too. A subflow that was already printed
  /// (a `*` line) is not expanded again.
  ///
  /// - Complexity: O(*n*) in the length of the output, however deep subflows nest: each
  ///   nested chart's lines are written once, after their prefix, and no stack grows with
  ///   the depth.
  public func printTree<Target: TextOutputStream>(
    to target: inout Target, expandingSubflows: Bool
  ) {
    var printer = TreePrinter(graph: graph, expandsSubflows: expandingSubflows)
    printer.write(to: &target)
  }

  /// The chart as a text tree; see ``printTree(to:)``.
  public var treeDescription: String {
    var text = ""
    printTree(to: &text)
    return text
  }

  /// The chart as a text tree without its final line break, so `print(chart)` draws it;
  /// see ``printTree(to:)``.
  public var description: String { String(treeDescription.dropLast()) }

  /// The chart as a text tree without its final line break, as `debugPrint` and string
  /// interpolation in debug output show it; see ``printTree(to:)``.
  public var debugDescription: String { description }
}

/// Draws a graph as STWorkflow's text tree, depth first, with an explicit stack.
///
/// With subflows expanded, the printer stops at a line whose state runs a nested chart and
/// hands that chart's printer (``TreeWriting``) to ``write(to:)``, which writes its lines
/// after the prefix of their column, `:  `, then comes back: every line is written once,
/// and the printers of the nested charts wait in a stack of their own rather than in the
/// call stack.
struct TreePrinter<Context: Sendable> {
  private typealias Item = TreeLine

  private let graph: Graph<Context>
  private let expandsSubflows: Bool
  private var printed: [Bool]
  private var stack: [Item] = []
  private var indents: [String] = [""]
  /// The trees' roots: the start, then the entry points.
  private let roots: [Int32]
  /// The next root to look at once the stack is empty.
  private var nextRoot = 0

  init(graph: Graph<Context>, expandsSubflows: Bool) {
    self.graph = graph
    self.expandsSubflows = expandsSubflows
    printed = [Bool](repeating: false, count: graph.records.count)
    roots = [graph.start] + graph.entryPoints
  }

  /// Writes the whole tree, nested charts included when the printer expands subflows.
  mutating func write<Target: TextOutputStream>(to target: inout Target) {
    guard expandsSubflows else {
      _ = writeLines(to: &target, prefix: "")
      return
    }
    var levels: [(writer: any TreeWriting, prefix: String)] = [(TreeWriter(self), "")]
    while let level = levels.last {
      if let nested = level.writer.writeLines(to: &target, prefix: level.prefix) {
        let prefix =
          level.prefix + String(repeating: "|  ", count: nested.depth) + ":  "
        levels.append((nested.chart.treeWriter(), prefix))
      } else {
        levels.removeLast()
      }
    }
  }

  /// Writes lines, each after `prefix`, until the tree is written (returns `nil`) or a line
  /// whose state runs a nested chart to expand is: returns that chart, and how many `|  `
  /// come before its lines. Its lines go next; the lines of this tree after it are kept.
  mutating func writeLines<Target: TextOutputStream>(
    to target: inout Target, prefix: String
  ) -> (chart: any NestedChart, depth: Int)? {
    while true {
      if let item = stack.popLast() {
        if let nested = writeLine(item, to: &target, prefix: prefix) { return nested }
        continue
      }
      while nextRoot < roots.count, printed[Int(roots[nextRoot])] { nextRoot += 1 }
      guard nextRoot < roots.count else { return nil }
      stack.append(Item(state: roots[nextRoot], depth: 0, prefix: ""))
      nextRoot += 1
    }
  }

  /// Writes the line of `item` after `linePrefix`, and schedules the lines that follow it;
  /// returns the nested chart to expand below it, if any (see ``writeLines(to:prefix:)``).
  private mutating func writeLine<Target: TextOutputStream>(
    _ item: Item, to target: inout Target, prefix linePrefix: String
  ) -> (chart: any NestedChart, depth: Int)? {
    let record = graph.records[Int(item.state)]
    let isRepeat = printed[Int(item.state)]
    printed[Int(item.state)] = true
    if !linePrefix.isEmpty { target.write(linePrefix) }
    writeIndent(item.depth, to: &target)
    target.write(item.prefix)
    target.write(DisplayText.name(record.name))
    target.write(" (")
    target.write(String(record.kind.letter))
    target.write(record.isFinal ? ") !" : isRepeat ? ") *" : ")")
    if !isRepeat, let delay = record.attachment as? DelaySlot {
      target.write(" · \(delay.timing.summary)")
    }
    let modifiers = isRepeat ? nil : record.declaration.modifiers
    if let summary = modifiers?.summary, !summary.isEmpty {
      target.write(" [\(summary)]")
    }
    target.write("\n")
    guard !isRepeat else { return nil }

    // Children of a line: nested exits one level deeper, then the state that follows in
    // this column. Pushed in reverse, so they pop in order.
    let childDepth = item.prefix.isEmpty ? item.depth + 1 : item.depth + 2
    let columnDepth = item.prefix.isEmpty ? item.depth : item.depth + 1
    // Its nested chart, when expanded, comes first: the lines scheduled below wait for it.
    let nested = expandsSubflows ? record.attachment as? any NestedChart : nil
    // A state's catch routes come after its nested exits and before the state that follows
    // in its column.
    let catches = graph.catchRoutes(of: item.state, modifiers).map { route in
      (prefix: route.errorType.map { "x- catch \($0): " } ?? "x- catch: ", target: route.target)
    }
    let exits = graph.storedExits(of: Int(item.state))
    if !catches.isEmpty, !exits.contains(where: { $0.label == .next }) {
      for route in catches.reversed() {
        stack.append(Item(state: route.target, depth: childDepth - 1, prefix: route.prefix))
      }
    }
    for exit in exits.reversed() {
      let target = exit.target
      switch exit.label {
      case .next:
        stack.append(Item(state: target, depth: columnDepth, prefix: ""))
        for route in catches.reversed() {
          stack.append(Item(state: route.target, depth: childDepth - 1, prefix: route.prefix))
        }
      case .yes:
        stack.append(Item(state: target, depth: childDepth - 1, prefix: "Y- "))
      case .no:
        stack.append(Item(state: target, depth: childDepth - 1, prefix: "N- "))
      case .key(let key):
        let key = graph.keyLabels[Int(key)]
        stack.append(Item(state: target, depth: childDepth - 1, prefix: "+- \(key): "))
      case .default:
        stack.append(Item(state: target, depth: childDepth - 1, prefix: "+- default: "))
      case .branch(let branch):
        var label = graph.branchName(ofDispatch: item.state, branch: branch).map(DisplayText.name)
        let prerequisites = graph.branchPrerequisites(ofDispatch: item.state, branch: branch)
        if !prerequisites.isEmpty {
          let after = "(after \(prerequisites.map(DisplayText.name).joined(separator: ", ")))"
          label = label.map { "\($0) \(after)" } ?? after
        }
        stack.append(
          Item(state: target, depth: childDepth - 1, prefix: label.map { "|- \($0): " } ?? "|- "))
      }
    }
    return nested.map { ($0, columnDepth) }
  }

  /// Writes `|  ` `depth` times, from strings built once, up to a bounded depth, so
  /// that deep trees cost no more memory than their output.
  private mutating func writeIndent<Target: TextOutputStream>(
    _ depth: Int, to target: inout Target
  ) {
    let cached = 64
    while indents.count <= min(depth, cached) {
      indents.append(indents[indents.count - 1] + "|  ")
    }
    var remaining = depth
    while remaining > cached {
      target.write(indents[cached])
      remaining -= cached
    }
    target.write(indents[remaining])
  }
}

/// A line of a printed tree waiting to be written (see ``TreePrinter``).
///
/// Not nested in the generic printer: the printer runs unspecialized (its context type is
/// the caller's), and a type nested in it would have its metadata, and its stack's, looked
/// up at run time at every line, which cost the printer about a third of its instructions
/// (issue 26, BENCHMARKS.md).
private struct TreeLine {
  var state: Int32
  /// How many `|  ` come before the line (before the prefix, if any).
  var depth: Int
  /// `Y- `, `N- `, `+- key: `, `|- `, or empty for a state that follows in its column.
  var prefix: String
}

/// A chart's tree printer, whatever its context type: what a subflow's or a map's chart
/// hands the printer of the chart around it (see ``TreePrinter/write(to:)``).
protocol TreeWriting: AnyObject {
  /// ``TreePrinter/writeLines(to:prefix:)``.
  func writeLines<Target: TextOutputStream>(
    to target: inout Target, prefix: String
  ) -> (chart: any NestedChart, depth: Int)?
}

/// A ``TreePrinter`` in a box, so that printers of charts of different contexts share a
/// stack.
final class TreeWriter<Context: Sendable>: TreeWriting {
  private var printer: TreePrinter<Context>

  init(_ printer: TreePrinter<Context>) { self.printer = printer }

  /// A printer of `chart`'s tree, its subflows expanded.
  convenience init(expanding chart: Flowchart<Context>) {
    self.init(TreePrinter(graph: chart.graph, expandsSubflows: true))
  }

  func writeLines<Target: TextOutputStream>(
    to target: inout Target, prefix: String
  ) -> (chart: any NestedChart, depth: Int)? {
    printer.writeLines(to: &target, prefix: prefix)
  }
}
