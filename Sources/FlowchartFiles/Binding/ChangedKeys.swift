import Flowchart

/// A data-only dispatch's join, the default of a chart file (`"changes": "merge"`): each
/// branch that succeeded changed some keys of the data (compared with the data before the
/// dispatch, nested objects key by key); those changes are applied to the data, and a key
/// that two branches left with different values (or one inside a key another replaced) is a
/// run error naming the key and both branches. A branch that runs after another (`after`)
/// starts from its changes, so keeping them unchanged is no conflict.
struct ChangedKeysJoin: Sendable {
  /// The dispatch's name.
  let dispatch: String
  /// Each branch as a message names it: `'Name'`, or `branch 2` (counted from 1).
  let branchNames: [String]

  init(_ dispatch: ChartDispatch) {
    self.dispatch = dispatch.name
    branchNames = dispatch.branches.enumerated().map { index, branch in
      branch.name.map { "'\($0)'" } ?? "branch \(index + 1)"
    }
  }

  /// Applies every branch's changes to `data`, in declaration order (`nil` for a branch that
  /// did not succeed).
  func join(_ data: inout ChartValue, _ branches: [ChartValue?], original: ChartValue)
    throws(ChangedKeysConflict)
  {
    // Each key changed so far, with its new value (`nil`: removed) and the branch that
    // changed it; and every key that holds one of them, by the first branch beneath it.
    var changed: [[String]: (value: ChartValue?, branch: Int)] = [:]
    var holders: [[String]: Int] = [:]
    for (index, branch) in branches.enumerated() {
      guard let branch else { continue }
      var changes: [(path: [String], value: ChartValue?)] = []
      Self.changes(from: original, to: branch, at: [], into: &changes)
      for change in changes {
        if let earlier = changed[change.path] {
          guard earlier.value != change.value else { continue }
          throw conflict(change.path, earlier.branch, change.path, index)
        }
        for length in 0..<change.path.count {
          let prefix = Array(change.path.prefix(length))
          if let earlier = changed[prefix] {
            throw conflict(prefix, earlier.branch, change.path, index)
          }
        }
        if let earlier = holders[change.path] {
          let inner = changed.keys.filter {
            changed[$0]?.branch == earlier && $0.starts(with: change.path)
          }
          .min { $0.lexicographicallyPrecedes($1) }
          throw conflict(inner ?? change.path, earlier, change.path, index)
        }
        changed[change.path] = (change.value, index)
        for length in 0..<change.path.count where holders[Array(change.path.prefix(length))] == nil
        {
          holders[Array(change.path.prefix(length))] = index
        }
        data = Self.setting(change.value, at: change.path[...], in: data) ?? .null
      }
    }
  }

  func conflict(_ first: [String], _ firstBranch: Int, _ second: [String], _ secondBranch: Int)
    -> ChangedKeysConflict
  {
    ChangedKeysConflict(
      dispatch: dispatch, firstBranch: branchNames[firstBranch], firstKey: first,
      secondBranch: branchNames[secondBranch], secondKey: second)
  }

  /// The keys `branch` changed from `original`, each at its deepest object: a key whose
  /// value is an object in both (or new, and a non-empty object) is compared key by key.
  static func changes(
    from original: ChartValue?, to branch: ChartValue?, at path: [String],
    into changes: inout [(path: [String], value: ChartValue?)]
  ) {
    guard original != branch else { return }
    if case .array(let new)? = branch, case .array(let old)? = original, new.count == old.count {
      for index in new.indices {
        Self.changes(from: old[index], to: new[index], at: path + ["\(index)"], into: &changes)
      }
      return
    }
    if case .object(let new)? = branch, !new.isEmpty || original != nil {
      let old: [String: ChartValue]?
      switch original {
      case .object(let members)?: old = members
      case nil: old = [:]
      case .null?, .bool?, .number?, .string?, .array?: old = nil
      }
      if let old {
        for key in Set(old.keys).union(new.keys).sorted() {
          Self.changes(from: old[key], to: new[key], at: path + [key], into: &changes)
        }
        return
      }
    }
    changes.append((path, branch))
  }

  /// `data` with `value` at `path` (`nil` removes the key), creating the objects on the way.
  static func setting(_ value: ChartValue?, at path: ArraySlice<String>, in data: ChartValue?)
    -> ChartValue?
  {
    guard let key = path.first else { return value }
    if case .array(var elements)? = data, let index = Int(key), elements.indices.contains(index) {
      elements[index] = setting(value, at: path.dropFirst(), in: elements[index]) ?? .null
      return .array(elements)
    }
    var members: [String: ChartValue] = [:]
    if case .object(let existing)? = data { members = existing }
    members[key] = setting(value, at: path.dropFirst(), in: members[key])
    return .object(members)
  }
}

/// Two branches of a data-only dispatch changed one key: the run stops at the dispatch.
struct ChangedKeysConflict: SelfExplainingError {
  let dispatch: String
  let firstBranch: String
  let firstKey: [String]
  let secondBranch: String
  let secondKey: [String]

  var description: String {
    let key = Self.shown(firstKey.count <= secondKey.count ? firstKey : secondKey)
    let inside =
      firstKey == secondKey
      ? "both changed \(key)"
      : "changed \(key) (\(firstBranch) at \(Self.shown(firstKey)), \(secondBranch) at \(Self.shown(secondKey)))"
    return
      "its branches \(firstBranch) and \(secondBranch) \(inside), and a dispatch takes each key from one branch only: have each branch change keys of its own, or name a registered merge that decides (merge)"
  }

  static func shown(_ path: [String]) -> String {
    path.isEmpty ? "the whole data" : "'\(path.joined(separator: "."))'"
  }
}

extension Binder {
  /// The changed-keys join of `dispatch` (see ``ChangedKeysJoin``), or `nil` when the
  /// dispatch names a registered merge, drops its branches' changes, or cannot join them (a
  /// problem is recorded: its context is not a `ChartValue`). Stores of two branches that
  /// change one key are recorded as problems here, before any run.
  mutating func changedKeysJoin(_ dispatch: ChartDispatch, at location: SourceLocation)
    -> (@Sendable (inout Context, [Context?], Context) throws -> Void)?
  {
    guard dispatch.merge == nil, dispatch.changes != .discard else { return nil }
    guard let data = handlers.data else {
      problems.add(
        .invalidDispatchOption,
        dispatch.changes == nil
          ? "Dispatch '\(dispatch.name)' does not say how its branches' changes join, and its context \(Context.self) is not a ChartValue whose keys could be merged: name a registered merge (merge), or drop the branches' changes with changes \"discard\"."
          : "Dispatch '\(dispatch.name)' merges its branches' changed keys (changes \"merge\"), but its context \(Context.self) is not a ChartValue: create the registry with HandlerRegistry(data: \\.yourChartValue), or name a registered merge (merge).",
        at: location, name: dispatch.name)
      return nil
    }
    checkStores(of: dispatch)
    let join = ChangedKeysJoin(dispatch)
    return { context, branches, original in
      var value = data.read(context)
      try join.join(&value, branches.map { $0.map(data.read) }, original: data.read(original))
      data.write(&context, value)
    }
  }

  /// Records each key that two branches of `dispatch` store (or wait for, or map into) with
  /// different values, where the file shows it: the run would stop at the join.
  mutating func checkStores(of dispatch: ChartDispatch) {
    let names = ChangedKeysJoin(dispatch).branchNames
    var seen: [(branch: Int, write: StaticWrite)] = []
    for (index, branch) in dispatch.branches.enumerated() {
      var writes: [StaticWrite] = []
      StaticWrite.collect(branch.states, into: &writes)
      var reported: Set<[String]> = []
      for write in writes {
        guard
          let earlier = seen.first(where: { entry in
            entry.branch != index && write.overlaps(entry.write)
          }), !reported.contains(write.path)
        else { continue }
        reported.insert(write.path)
        let key = earlier.write.path.count <= write.path.count ? earlier.write.path : write.path
        let at = earlier.write.location
        problems.add(
          .invalidDispatchOption,
          "Dispatch '\(dispatch.name)': branches \(names[earlier.branch]) and \(names[index]) both change \(ChangedKeysConflict.shown(key)) (the other at \(at.fileID):\(at.line)\(at.column.map { ":\($0)" } ?? "")), and a dispatch takes each key from one branch only, so a run would stop at the join: have each branch change keys of its own, or name a registered merge that decides (merge).",
          at: write.location, name: dispatch.name)
      }
      seen += writes.map { (index, $0) }
    }
  }
}

/// A change to the data that a file shows: a store, a wait's `storeAt`, a map's results.
struct StaticWrite {
  let path: [String]
  /// The value stored, or `nil` when the file does not say it (an input, a map's results).
  let value: ChartValue?
  let location: SourceLocation

  /// Whether `self` and `other` change one key (or one a key inside the other) so that a
  /// join would call it a conflict: the same value stored at one path is none.
  func overlaps(_ other: StaticWrite) -> Bool {
    if path == other.path { return value == nil || value != other.value }
    return path.starts(with: other.path) || other.path.starts(with: path)
  }

  /// The writes of `nodes` and the blocks inside them (not a map's own states, which run on
  /// its elements, nor included files).
  static func collect(_ nodes: [ChartNode], into writes: inout [StaticWrite]) {
    for node in nodes {
      switch node.kind {
      case .action(let action):
        writes += action.stores.map {
          StaticWrite(path: keys($0.path), value: $0.value, location: $0.location)
        }
      case .condition(let condition):
        collect((condition.yes ?? []) + (condition.no ?? []), into: &writes)
      case .multipleCondition(let condition):
        for exit in condition.exits ?? [] { collect(exit.states, into: &writes) }
      case .dispatch(let dispatch):
        for branch in dispatch.branches { collect(branch.states, into: &writes) }
      case .wait(let wait):
        if case .store(let path) = wait.input {
          writes.append(StaticWrite(path: keys(path), value: nil, location: node.location))
        }
      case .delay: break
      case .subflow(let subflow):
        switch subflow.exits {
        case .none: break
        case .yesNo(let yes, let no): collect(yes + no, into: &writes)
        case .keyed(let exits): for exit in exits { collect(exit.states, into: &writes) }
        }
      case .map(let map):
        writes.append(
          StaticWrite(path: keys(map.into ?? map.over), value: nil, location: node.location))
      case .goTo, .include: break
      }
    }
  }

  static func keys(_ path: String) -> [String] {
    ChartValue.keys(of: path).map(String.init)
  }
}
