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
struct TreePrinter<Context: Sendable> {
  /// A line waiting to be written.
  private struct Item {
    var state: Int32
    /// How many `|  ` come before the line (before the prefix, if any).
    var depth: Int
    /// `Y- `, `N- `, `+- key: `, `|- `, or empty for a state that follows in its column.
    var prefix: String
  }

  private let graph: Graph<Context>
  private let expandsSubflows: Bool
  private var printed: [Bool]
  private var stack: [Item] = []
  private var indents: [String] = [""]

  init(graph: Graph<Context>, expandsSubflows: Bool) {
    self.graph = graph
    self.expandsSubflows = expandsSubflows
    printed = [Bool](repeating: false, count: graph.records.count)
  }

  mutating func write<Target: TextOutputStream>(to target: inout Target) {
    for root in [graph.start] + graph.entryPoints where !printed[Int(root)] {
      stack.append(Item(state: root, depth: 0, prefix: ""))
      while let item = stack.popLast() {
        writeLine(item, to: &target)
      }
    }
  }

  private mutating func writeLine<Target: TextOutputStream>(
    _ item: Item, to target: inout Target
  ) {
    let record = graph.records[Int(item.state)]
    let isRepeat = printed[Int(item.state)]
    printed[Int(item.state)] = true
    writeIndent(item.depth, to: &target)
    target.write(item.prefix)
    target.write(DisplayText.name(record.name))
    target.write(" (")
    target.write(String(record.kind.letter))
    target.write(record.isFinal ? ") !" : isRepeat ? ") *" : ")")
    let modifiers = isRepeat ? nil : record.declaration.modifiers
    if let summary = modifiers?.summary, !summary.isEmpty {
      target.write(" [\(summary)]")
    }
    target.write("\n")
    guard !isRepeat else { return }

    // Children of a line: nested exits one level deeper, then the state that follows in
    // this column. Pushed in reverse, so they pop in order.
    let childDepth = item.prefix.isEmpty ? item.depth + 1 : item.depth + 2
    let columnDepth = item.prefix.isEmpty ? item.depth : item.depth + 1
    if expandsSubflows, let nested = record.attachment as? any NestedChart {
      var tree = ""
      nested.writeTree(to: &tree)
      for line in tree.split(separator: "\n") {
        writeIndent(columnDepth, to: &target)
        target.write(":  ")
        target.write(String(line))
        target.write("\n")
      }
    }
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
