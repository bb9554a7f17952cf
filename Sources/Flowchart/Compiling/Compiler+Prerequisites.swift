// Part of pass 1: a dispatch's prerequisites and options, resolved and checked where the
// dispatch is numbered.

extension Compiler {
  /// Checks the options of `state`, a map, by a dispatch's rule: a `maxConcurrency` below 1
  /// or a negative `toleratedFailures` is a definition error.
  mutating func checkMapOptions(of state: StateDeclaration) {
    guard let map = state.attachment as? any MapDeclaration else { return }
    for problem in map.declaredOptions.problems {
      findings.append(.invalidMapOption(facts(state), problem: problem))
    }
  }

  /// Resolves the prerequisites of `branches`, the branches of the dispatch `state`, to
  /// branch indices, and checks them and the dispatch's options.
  ///
  /// - Returns: Each branch's prerequisites, as indices in declaration order, and the
  ///   order a synchronous run takes the branches in; both empty when no branch has
  ///   prerequisites (the order is then the declaration's).
  mutating func resolvePrerequisites(
    of state: StateDeclaration, _ branches: [BranchDeclaration], behavior: DispatchBehavior?
  ) -> (prerequisites: [[Int32]], order: [Int32]) {
    if let limit = behavior?.maxConcurrency, limit < 1 {
      findings.append(.invalidMaxConcurrency(facts(state), value: limit))
    }
    if let join = behavior?.join, !branches.isEmpty,
      let problem = join.problem(branchCount: branches.count)
    {
      findings.append(.invalidJoinPolicy(facts(state), policy: join, problem: problem))
    }
    guard branches.contains(where: { !$0.prerequisites.isEmpty }) else { return ([], []) }
    var resolved: [[Int32]] = []
    resolved.reserveCapacity(branches.count)
    var suggester = Suggester()
    let names = branches.compactMap(\.name)
    // Each name's first branch and how many branches have it, built once: resolving a
    // prerequisite is one look-up, whatever the number of branches.
    var branchesNamed: [String: (first: Int32, count: Int)] = [:]
    branchesNamed.reserveCapacity(names.count)
    for (index, branch) in branches.enumerated() {
      guard let name = branch.name else { continue }
      branchesNamed[name, default: (Int32(index), 0)].count += 1
    }
    for (index, branch) in branches.enumerated() {
      var indices: [Int32] = []
      indices.reserveCapacity(branch.prerequisites.count)
      for name in branch.prerequisites {
        let match = branchesNamed[name]
        guard let match, match.count == 1 else {
          let matches = match?.count ?? 0
          findings.append(
            .unknownPrerequisite(
              dispatch: facts(state), number: index + 1, branch: branch.name, name: name,
              location: branch.location, matches: matches,
              suggestion: matches == 0 ? suggester.closestName(to: name, in: names)?.name : nil
            ))
          continue
        }
        indices.append(match.first)
      }
      // In declaration order, which is the order their contexts are merged in, each once.
      indices.sort()
      var kept = 0
      for position in indices.indices where kept == 0 || indices[position] != indices[kept - 1] {
        indices[kept] = indices[position]
        kept += 1
      }
      indices.removeLast(indices.count - kept)
      resolved.append(indices)
    }
    let (order, complete) = Self.partialRunOrder(resolved)
    guard complete else {
      let cycle = Self.cycle(in: resolved, runnable: order)
      let first = branches[Int(cycle[0])]
      findings.append(
        .prerequisiteCycle(
          dispatch: facts(state),
          branches: cycle.map { branches[Int($0)].name ?? "branch \($0 + 1)" },
          location: first.location))
      return (resolved, [])
    }
    return (resolved, order)
  }

  /// The order a synchronous run takes the branches in, as far as it goes: each branch as
  /// soon as its prerequisites have run, the earliest declared first; and whether that is
  /// every branch (`false` when some wait in a cycle).
  static func partialRunOrder(_ prerequisites: [[Int32]]) -> (order: [Int32], complete: Bool) {
    var waiting = prerequisites.map(\.count)
    var dependents = [[Int32]](repeating: [], count: prerequisites.count)
    for (branch, required) in prerequisites.enumerated() {
      for prerequisite in required { dependents[Int(prerequisite)].append(Int32(branch)) }
    }
    var ready = MinimumHeap()
    for branch in waiting.indices where waiting[branch] == 0 { ready.insert(Int32(branch)) }
    var order: [Int32] = []
    order.reserveCapacity(prerequisites.count)
    while let branch = ready.popMinimum() {
      order.append(branch)
      for dependent in dependents[Int(branch)] {
        waiting[Int(dependent)] -= 1
        if waiting[Int(dependent)] == 0 { ready.insert(dependent) }
      }
    }
    return (order, order.count == prerequisites.count)
  }

  /// One cycle among branches that wait for each other, starting at its earliest declared
  /// branch, in the order they wait: each waits for the next, the last for the first.
  /// `runnable` are the branches that can run (``partialRunOrder(_:)``'s order).
  static func cycle(in prerequisites: [[Int32]], runnable: [Int32]) -> [Int32] {
    // Branches that can run are not on a cycle; among the rest, following any
    // prerequisite that cannot run either leads round a cycle.
    var canRun = [Bool](repeating: false, count: prerequisites.count)
    for branch in runnable { canRun[Int(branch)] = true }
    guard let start = canRun.firstIndex(of: false) else { return [] }
    var seen: [Int32: Int] = [:]
    var walk: [Int32] = []
    var branch = Int32(start)
    while seen[branch] == nil {
      seen[branch] = walk.count
      walk.append(branch)
      branch = prerequisites[Int(branch)].first { !canRun[Int($0)] }!
    }
    let loop = Array(walk[seen[branch]!...])
    let first = loop.indices.min { loop[$0] < loop[$1] }!
    return Array(loop[first...] + loop[..<first])
  }
}

/// A binary heap of branch indices that pops the smallest first.
private struct MinimumHeap {
  private var items: [Int32] = []

  mutating func insert(_ item: Int32) {
    items.append(item)
    var child = items.count - 1
    while child > 0 {
      let parent = (child - 1) / 2
      guard items[child] < items[parent] else { break }
      items.swapAt(child, parent)
      child = parent
    }
  }

  mutating func popMinimum() -> Int32? {
    guard let last = items.popLast() else { return nil }
    guard !items.isEmpty else { return last }
    let minimum = items[0]
    items[0] = last
    var parent = 0
    while true {
      let left = 2 * parent + 1
      let right = left + 1
      var smallest = parent
      if left < items.count, items[left] < items[smallest] { smallest = left }
      if right < items.count, items[right] < items[smallest] { smallest = right }
      guard smallest != parent else { break }
      items.swapAt(parent, smallest)
      parent = smallest
    }
    return minimum
  }
}
