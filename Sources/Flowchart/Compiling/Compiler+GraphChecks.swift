// Pass 3: check the graph as a whole: every state reachable, every loop able to end.

extension Compiler {
  /// Reports each region of states that nothing leads to, once, at the state that leads
  /// into it.
  ///
  /// The arrows a fix of each reported mistake would add count as arrows (see
  /// ``fallbacks``), and a flow where a bad name could have meant any state is not
  /// checked: a state is reported only if it would stay unreachable once the reported
  /// mistakes are fixed.
  mutating func checkReachability(roots: [Int32]) {
    var fixed: [Int32: [Int32]] = [:]
    for arrow in fixedArrows {
      fixed[arrow.from, default: []].append(arrow.to)
    }
    var reached = [Bool](repeating: false, count: states.count)
    /// Marks what `roots` lead to as reached; returns how many states it newly reached.
    @discardableResult
    func visit(from roots: [Int32]) -> Int {
      var pending = roots
      var count = 0
      while let index = pending.popLast() {
        if reached[Int(index)] { continue }
        reached[Int(index)] = true
        count += 1
        for position in exitRange(of: Int(index)) {
          let target = exits[position].target
          if target != Node.none, !reached[Int(target)] {
            pending.append(target)
          }
        }
        if !fixed.isEmpty, let targets = fixed[index] {
          pending += targets.filter { !reached[Int($0)] }
        }
      }
      return count
    }
    if fixed.isEmpty {
      visit(from: reachForward(from: roots + excusedRoots, &reached))
    } else {
      visit(from: roots + excusedRoots)
    }
    guard reached.contains(false) else { return }

    // Report each unreachable region once, at the state that leads into it.
    var hasUnreachablePredecessor = [Bool](repeating: false, count: states.count)
    for index in states.indices where !reached[index] {
      var targets = exitRange(of: index).map { exits[$0].target }
      targets += fixed[Int32(index)] ?? []
      for target in targets where target != Node.none && Int(target) != index {
        hasUnreachablePredecessor[Int(target)] = true
      }
    }
    let candidates =
      states.indices.filter { !reached[$0] && !hasUnreachablePredecessor[$0] }
      + states.indices.filter { !reached[$0] && hasUnreachablePredecessor[$0] }
    for index in candidates where !reached[index] {
      let others = visit(from: [Int32(index)]) - 1
      if excusedFlows.contains(states[index].flow) { continue }
      findings.append(.unreachable(facts(ofState: index), followers: others))
    }
  }

  /// Marks the states `roots` lead to as reached in one pass in ID order, as long as every
  /// arrow it follows leads forward (to a later state), as every arrow of a chart without
  /// loops does: cheaper than ``checkReachability(roots:)``'s walk with its stack of
  /// pending states (issue 26). At the first arrow back it stops, and returns the states
  /// it marked but has not followed yet, unmarked, for that walk to start from: every
  /// state before them that it marked, it has followed.
  private func reachForward(from roots: [Int32], _ reached: inout [Bool]) -> [Int32] {
    for root in roots { reached[Int(root)] = true }
    for index in states.indices where reached[index] {
      for position in exitRange(of: index) {
        let target = exits[position].target
        if target == Node.none { continue }
        guard Int(target) > index else {
          var pending: [Int32] = []
          for later in index..<states.count where reached[later] {
            reached[later] = false
            pending.append(Int32(later))
          }
          return pending
        }
        reached[Int(target)] = true
      }
    }
    return []
  }

  /// Reports each loop that no path leads out of to a final state, once, at its first
  /// declared state, naming its states in declaration order.
  ///
  /// States that lead into such a loop cannot reach a final state either, but the mistake
  /// is the loop's: they are not named. A state whose exits are broken counts as able to
  /// end, since its own problem is reported.
  ///
  /// A catch route is an arrow like any other: a loop whose only way out is a state's catch
  /// route (taken when its code throws) can end, and is accepted. A state with a catch
  /// route whose target is bad counts as able to end, like a broken exit.
  mutating func checkLoopsReachFinalStates() {
    // A chart whose arrows all lead forward has no loop: said in one pass, without the
    // table of predecessors below (issue 26: a third of compiling a large chart's checks).
    if modifiedStates.isEmpty && everyStateEndsForward() { return }
    // Walk arrows backwards from every state whose flow can end there: final states, and
    // states already reported (their broken exits would otherwise be reported twice).
    // The predecessors of every state in one array (compressed rows): state `i`'s are at
    // `predecessors[firstPredecessor[i]..<firstPredecessor[i + 1]]`.
    var firstPredecessor = [Int32](repeating: 0, count: states.count + 1)
    var escapes = [Bool](repeating: false, count: states.count)
    let catchRoutes = resolvedCatchRoutes(escapes: &escapes)
    for route in catchRoutes.arrows {
      firstPredecessor[Int(route.to)] += 1
    }
    for index in states.indices {
      let range = exitRange(of: index)
      if states[index].isFinal || range.isEmpty { escapes[index] = true }
      for position in range where !isBranch(position) {
        let target = exits[position].target
        if target != Node.none {
          firstPredecessor[Int(target)] += 1
        } else {
          escapes[index] = true
        }
      }
    }
    // Counts become each row's end; each arrow is then placed by moving its target's end
    // down one, which leaves every row's start where it belongs, with no second array of
    // positions.
    for index in states.indices.dropFirst() {
      firstPredecessor[index] += firstPredecessor[index - 1]
    }
    firstPredecessor[states.count] = firstPredecessor[states.count - 1]
    var predecessors = [Int32](repeating: 0, count: Int(firstPredecessor[states.count]))
    for index in states.indices {
      for position in exitRange(of: index) where !isBranch(position) {
        let target = Int(exits[position].target)
        if target != Int(Node.none) {
          firstPredecessor[target] -= 1
          predecessors[Int(firstPredecessor[target])] = Int32(index)
        }
      }
    }
    for route in catchRoutes.arrows {
      let target = Int(route.to)
      firstPredecessor[target] -= 1
      predecessors[Int(firstPredecessor[target])] = route.from
    }
    var pending = states.indices.filter { escapes[$0] }.map { Int32($0) }
    while let index = pending.popLast() {
      let incoming =
        Int(firstPredecessor[Int(index)])..<Int(firstPredecessor[Int(index) + 1])
      for predecessor in predecessors[incoming] where !escapes[Int(predecessor)] {
        escapes[Int(predecessor)] = true
        pending.append(predecessor)
      }
    }
    guard escapes.contains(false) else { return }
    for loop in closedLoops(trapped: escapes.map(!), catchTargets: catchRoutes.targets) {
      let flow = states[Int(loop[0])].flow
      findings.append(
        .neverReachesFinalState(
          states: loop.prefix(Self.loopStatesNamed).map { facts(ofState: Int($0)) },
          count: loop.count, flow: facts(ofFlow: flow)))
    }
  }

  /// Whether every state can reach a final state, told from the last state back, when every
  /// arrow leads to a later state (as in a chart without loops: pass 1 numbers a block's
  /// states in the order they are declared) and no state has catch routes; `false` when an
  /// arrow leads back, or a state can end nowhere, which the full check then reports.
  ///
  /// A state can end when it is final, has no exits, has a broken exit (reported already)
  /// or leads to a state that can end: with every arrow leading forward, every state after
  /// it can, or the walk back has stopped.
  private func everyStateEndsForward() -> Bool {
    // From the last state back: every state after `index` can end, or this has returned.
    for index in states.indices.reversed() {
      let range = exitRange(of: index)
      var canEnd = states[index].isFinal || range.isEmpty
      for position in range where !isBranch(position) {
        let target = exits[position].target
        if target != Node.none && Int(target) <= index { return false }
        canEnd = true
      }
      guard canEnd else { return false }
    }
    return true
  }

  /// The strongly connected components of the trapped states that no arrow leaves: the
  /// loops themselves, each in declaration order, ordered by their first state.
  ///
  /// Tarjan's algorithm, with an explicit stack. `catchTargets` holds the targets of each
  /// state's catch routes, arrows too.
  private func closedLoops(trapped: [Bool], catchTargets: [Int32: [Int32]]) -> [[Int32]] {
    let unvisited: Int32 = -1
    var order = [Int32](repeating: unvisited, count: states.count)
    var lowest = [Int32](repeating: 0, count: states.count)
    var onStack = [Bool](repeating: false, count: states.count)
    var component = [Int32](repeating: unvisited, count: states.count)
    var components: [[Int32]] = []
    var stack: [Int32] = []
    var calls: [(state: Int32, position: Int)] = []
    var counter: Int32 = 0

    /// The trapped targets of the state's arrows within its flow, its catch routes'
    /// included.
    func successors(_ state: Int32) -> [Int32] {
      var targets = exitRange(of: Int(state)).compactMap { position in
        let target = exits[position].target
        return !isBranch(position) && target != Node.none && trapped[Int(target)] ? target : nil
      }
      if !catchTargets.isEmpty, let routes = catchTargets[state] {
        targets += routes.filter { trapped[Int($0)] }
      }
      return targets
    }

    for root in states.indices where trapped[root] && order[root] == unvisited {
      func enter(_ state: Int32) {
        order[Int(state)] = counter
        lowest[Int(state)] = counter
        counter += 1
        stack.append(state)
        onStack[Int(state)] = true
        calls.append((state, 0))
      }
      enter(Int32(root))
      while let (state, position) = calls.last {
        let next = successors(state)
        if position < next.count {
          calls[calls.count - 1].position += 1
          let target = next[position]
          if order[Int(target)] == unvisited {
            enter(target)
          } else if onStack[Int(target)] {
            lowest[Int(state)] = min(lowest[Int(state)], order[Int(target)])
          }
          continue
        }
        calls.removeLast()
        if let caller = calls.last {
          lowest[Int(caller.state)] = min(lowest[Int(caller.state)], lowest[Int(state)])
        }
        guard lowest[Int(state)] == order[Int(state)] else { continue }
        var members: [Int32] = []
        while let member = stack.popLast() {
          onStack[Int(member)] = false
          component[Int(member)] = Int32(components.count)
          members.append(member)
          if member == state { break }
        }
        components.append(members.sorted())
      }
    }
    let closed = components.indices.filter { index in
      components[index].allSatisfy { member in
        successors(member).allSatisfy { component[Int($0)] == Int32(index) }
      }
    }
    return closed.map { components[$0] }.sorted { $0[0] < $1[0] }
  }

  /// The catch routes pass 2 resolved, as arrows and by state; a state with a route whose
  /// target is bad (reported already) is marked in `escapes`, as able to end.
  private func resolvedCatchRoutes(
    escapes: inout [Bool]
  ) -> (arrows: [(from: Int32, to: Int32)], targets: [Int32: [Int32]]) {
    var arrows: [(from: Int32, to: Int32)] = []
    var targets: [Int32: [Int32]] = [:]
    for entry in modifiedStates {
      for target in entry.targets {
        if target == Node.none {
          escapes[Int(entry.state)] = true
        } else {
          arrows.append((entry.state, target))
          targets[entry.state, default: []].append(target)
        }
      }
    }
    return (arrows, targets)
  }
}
