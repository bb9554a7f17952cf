// Part of pass 1: a dispatch's prerequisites and options, resolved and checked where the
// dispatch is numbered.

extension Compiler {
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
    for (index, branch) in branches.enumerated() {
      var indices: [Int32] = []
      for name in branch.prerequisites {
        let matches = branches.indices.filter { branches[$0].name == name }
        guard matches.count == 1 else {
          findings.append(
            .unknownPrerequisite(
              dispatch: facts(state), number: index + 1, branch: branch.name, name: name,
              location: branch.location, matches: matches.count,
              suggestion: matches.isEmpty ? suggester.closestName(to: name, in: names)?.name : nil
            ))
          continue
        }
        if !indices.contains(Int32(matches[0])) { indices.append(Int32(matches[0])) }
      }
      // In declaration order, which is the order their contexts are merged in.
      resolved.append(indices.sorted())
    }
    guard let order = Self.runOrder(resolved) else {
      let cycle = Self.cycle(in: resolved)
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

  /// The order a synchronous run takes the branches in: each branch as soon as its
  /// prerequisites have run, the earliest declared first; `nil` when they wait in a cycle.
  static func runOrder(_ prerequisites: [[Int32]]) -> [Int32]? {
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
    return order.count == prerequisites.count ? order : nil
  }

  /// One cycle among branches that wait for each other, starting at its earliest declared
  /// branch, in the order they wait: each waits for the next, the last for the first.
  static func cycle(in prerequisites: [[Int32]]) -> [Int32] {
    // Branches that can run are not on a cycle; among the rest, following any
    // prerequisite that cannot run either leads round a cycle.
    var canRun = [Bool](repeating: false, count: prerequisites.count)
    var changed = true
    while changed {
      changed = false
      for branch in prerequisites.indices where !canRun[branch] {
        if prerequisites[branch].allSatisfy({ canRun[Int($0)] }) {
          canRun[branch] = true
          changed = true
        }
      }
    }
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
