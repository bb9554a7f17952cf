// Checking a snapshot against a chart (`RunSnapshot.resolve`): each position key, mapped by
// the migration, found on the chart with the same kind and exits, each flow's path, the
// dispatches' branches and the values waiting in the mailbox; what no longer fits is a
// `ResumeError` misfit, every one of them listed. What it gives, a `ResolvedSnapshot`,
// is what `Flowchart+Resume.swift` starts the run from.

/// A snapshot checked against a chart: its positions as state numbers, its values decoded.
struct ResolvedSnapshot<Context: Sendable>: Sendable {
  /// The top-level flow: where it goes on from (its path without the state it enters
  /// again, when it waits for input or stands in a dispatch).
  var flow: CapturedFlow<Context>
  /// Every flow, as the snapshot holds them (their paths as saved): what a snapshot of the
  /// resumed run holds while it is held at its start.
  var entries: [CapturedEntry<Context>]
  /// How the branches of the dispatch the top-level flow stands in go on.
  var dispatch: DispatchResume<Context>?
  /// The retries and delays the branches are in the middle of.
  var positions: ResumedPositions?
  var mailbox: [(state: Int32, value: any Sendable)]
}

extension RunSnapshot {
  /// The snapshot's positions on `graph`, each key first mapped by `migrating`.
  func resolve(
    on graph: Graph<Context>, chart identity: String?, migrating: [String: String]
  ) throws(ResumeError) -> ResolvedSnapshot<Context> {
    if let identity, !chart.isEmpty, identity != chart {
      throw ResumeError(
        summary:
          "The snapshot is of a run of chart \(DisplayText.quoted(name: chart)), not of \(DisplayText.quoted(name: identity)): resume it with the chart it was made from.",
        misfits: [])
    }
    let structure = graph.structure
    var misfits: [ResumeError.Misfit] = []
    func misfit(_ key: String, _ reason: String) {
      misfits.append(ResumeError.Misfit(position: key, reason: reason))
    }
    func mapped(_ key: String) -> String { migrating[key] ?? key }
    // The same fingerprint means the same keys, kinds, finality and exits: every key that
    // names a state of the chart names one of the shape the snapshot recorded, so the shapes
    // need no comparing (the kind checks below, of waiting states and delays, still run).
    let unchanged = migrating.isEmpty && fingerprint == structure.fingerprint
    /// The state a position's key names, once checked against the shape it had.
    func state(at key: String, role: String) -> Int32? {
      let target = mapped(key)
      let via = target == key ? "" : " (mapped to \(DisplayText.quoted(name: target)))"
      guard let state = structure.states[target] else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), no longer exists in the chart: restore it, or map it to a state of the chart with `migrating:`."
        )
        return nil
      }
      guard !unchanged, let old = shapes[key] else { return state }
      let new = structure.shapes[Int(state)]
      if old.kind != new.kind {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), was \(DisplayText.withArticle(typeName: old.kind)) and is now \(DisplayText.withArticle(typeName: new.kind)): a run cannot go on at a state of another kind; map it to a state of its kind with `migrating:`."
        )
        return nil
      }
      if old.isFinal != new.isFinal {
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), \(old.isFinal ? "was final and is not any more" : "was not final and is now"): map it to a state that ends the flow as it did with `migrating:`."
        )
        return nil
      }
      let oldExits = old.exits.map(mappedExit)
      if oldExits != new.exits {
        let branches = { (exits: [String]) in exits.filter { $0.hasPrefix("branch ") } }
        if new.kind == "dispatch", branches(oldExits) != branches(new.exits) {
          misfit(
            key,
            "Dispatch \(DisplayText.quoted(name: key))\(via), where \(role), had the branches \(Self.list(branches(oldExits))) when it started and now has \(Self.list(branches(new.exits))): a dispatch whose branches changed since it started cannot go on; resume on a chart whose dispatch has those branches, or let the run join the dispatch before you change it."
          )
          return nil
        }
        misfit(
          key,
          "\(DisplayText.quoted(name: key))\(via), where \(role), had the exits \(Self.list(oldExits)) and now has \(Self.list(new.exits)): map its targets with `migrating:`, or resume on a chart whose exits are those."
        )
        return nil
      }
      return state
    }
    /// An exit as "label → key", its target mapped.
    func mappedExit(_ exit: String) -> String {
      guard let arrow = exit.firstRange(of: " → ") else { return exit }
      return String(exit[..<arrow.upperBound]) + mapped(String(exit[arrow.upperBound...]))
    }
    var missing: Set<String> = []
    /// A flow's path, as state numbers.
    func resolvedPath(_ keys: [String]) -> [Int32] {
      var path: [Int32] = []
      path.reserveCapacity(keys.count)
      for key in keys {
        if let state = structure.states[mapped(key)] {
          path.append(state)
        } else if missing.insert(key).inserted {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)), which the run entered earlier (its path holds it), no longer exists in the chart: map it to a state of the chart with `migrating:`."
          )
        }
      }
      return path
    }

    /// Each flow's position, as state numbers (`nil` where it does not fit).
    var resolved: [(kind: CapturedFlow<Context>.Position, state: Int32)?] = []
    // The loops over the flows go by index: `resolve` runs unspecialized (a generic of
    // another module's context type), where an array's iterator, `enumerated()` and `map`
    // over `FlowSnapshot<Context>` cost several times what an indexed read does, which was
    // most of a held restore's cost beyond decoding.
    for index in flows.indices {
      let flow = flows[index]
      let who: String
      if let branch = flow.branch {
        who = "branch \(branch.index + 1) of dispatch \(DisplayText.quoted(name: branch.dispatch))"
      } else {
        who = "the run"
      }
      var position: (kind: CapturedFlow<Context>.Position, state: Int32)?
      if let map = flow.map, case .entering(let key) = flow.position {
        if let found = state(at: key, role: "\(who) stands in the map") {
          if let reason = graph.attemptMisfit(map.entered, at: found) {
            misfit(
              key, "\(DisplayText.quoted(name: key)), where \(who) stands in the map, \(reason).")
          } else if let resumable = graph.records[Int(found)].attachment as? any ResumableMap {
            switch resumable.resolveMap(map, key: key, who: who) {
            case .success(let resume): position = (.inSubflow(resume), found)
            case .failure(let found): misfits.append(contentsOf: found.misfits)
            }
          } else {
            misfit(
              key,
              "\(DisplayText.quoted(name: key)), where \(who) stands in the map, is no longer a map that runs asynchronously: resume on a chart where it is."
            )
          }
        }
        resolved.append(position)
        continue
      }
      if let nested = flow.nested, case .entering(let key) = flow.position {
        if let found = state(at: key, role: "\(who) stands in the subflow") {
          if let reason = graph.attemptMisfit(nested.entered, at: found) {
            misfit(
              key,
              "\(DisplayText.quoted(name: key)), where \(who) stands in the subflow, \(reason).")
          } else if let subflow = graph.records[Int(found)].attachment as? any ResumableSubflow {
            switch subflow.resolveNested(nested, subflow: key, who: who) {
            case .success(let resume): position = (.inSubflow(resume), found)
            case .failure(let found): misfits.append(contentsOf: found.misfits)
            }
          } else {
            misfit(
              key,
              "\(DisplayText.quoted(name: key)), where \(who) stands in the subflow, is no longer a subflow that runs asynchronously: resume on a chart where it is."
            )
          }
        }
        resolved.append(position)
        continue
      }
      switch flow.position {
      case .entering(let key) where flow.attempt > 1:
        position = state(at: key, role: "\(who) is between two attempts").map {
          (.retrying(attempt: flow.attempt, until: flow.deadline ?? updated), $0)
        }
        if let found = position, let count = graph.retryCount(found.state),
          flow.attempt - 1 > count || flow.attempt == .max
        {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)) retries \(count) time\(count == 1 ? "" : "s"), so it has no attempt \(flow.attempt): the snapshot is damaged, or the state's retry was lowered; map the position with `migrating:`."
          )
          position = nil
        } else if let found = position, graph.retryCount(found.state) == nil {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)), where \(who) is between two attempts (attempt \(flow.attempt) is next), no longer retries: give it its retry back, or map the position to a state that retries with `migrating:`."
          )
          position = nil
        }
      case .entering(let key):
        position = state(at: key, role: "\(who) goes on").map { (.entering, $0) }
      case .waitingForInput(let key):
        position = state(at: key, role: "\(who) waits for input").map { (.waitingForInput, $0) }
        if let found = position, graph.records[Int(found.state)].attachment as? InputSlot == nil {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)), where \(who) waits for input, no longer waits for input."
          )
          position = nil
        }
      case .waitingUntil(let key):
        if let deadline = flow.deadline {
          position = state(at: key, role: "\(who) waits for a time").map {
            (.waitingUntil(deadline), $0)
          }
        } else {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)), where \(who) waits for a time, has no deadline: the snapshot is damaged."
          )
        }
        if let found = position, graph.records[Int(found.state)].attachment as? DelaySlot == nil {
          misfit(
            key,
            "\(DisplayText.quoted(name: key)), where \(who) waits for a time, is no longer a delay."
          )
          position = nil
        }
      case .dispatching(let key):
        position = state(at: key, role: "\(who) runs the dispatch's branches").map {
          (.dispatching, $0)
        }
      case .finished(let key, let decision):
        position = state(at: key, role: "\(who) finished").map { (.finished(decision), $0) }
      case .notEntered:
        misfit("", "The run failed before it entered a state: there is nowhere to go on from.")
      }
      resolved.append(position)
    }
    var paths: [[Int32]] = []
    paths.reserveCapacity(flows.count)
    for index in flows.indices { paths.append(resolvedPath(flows[index].path)) }

    var values: [(state: Int32, value: any Sendable)] = []
    for entry in mailbox {
      guard let target = state(at: entry.state, role: "a value waits to be taken") else {
        continue
      }
      guard let slot = graph.records[Int(target)].attachment as? InputSlot else {
        misfit(
          entry.state,
          "\(DisplayText.quoted(name: entry.state)), where a value waits to be taken, no longer waits for input."
        )
        continue
      }
      switch entry.value {
      case .live(let value):
        guard slot.accepts(value) else {
          misfit(
            entry.state,
            "The value waiting for \(DisplayText.quoted(name: entry.state)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), and the state now waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)"))."
          )
          continue
        }
        values.append((target, value))
      case .encoded(let encoded):
        guard slot.inputType is any Decodable.Type else {
          misfit(
            entry.state,
            "\(DisplayText.quoted(name: entry.state)) waits for \(DisplayText.withArticle(typeName: "\(slot.inputType)")), which is not Decodable, so the value the snapshot holds for it cannot be read: make the type Codable."
          )
          continue
        }
        do {
          guard let value = try Self.decode(encoded, as: slot.inputType), slot.accepts(value)
          else {
            misfit(
              entry.state,
              "The value waiting for \(DisplayText.quoted(name: entry.state)) does not decode as the type it waits for."
            )
            continue
          }
          values.append((target, value))
        } catch {
          misfit(
            entry.state,
            "The value waiting for \(DisplayText.quoted(name: entry.state)) does not decode as \(DisplayText.withArticle(typeName: "\(slot.inputType)")): \(error)."
          )
        }
      }
    }
    // Each dispatch's branches, by flow: where the snapshot's branches fit the dispatch.
    var children: [Int: [(flow: Int, branch: Int)]] = [:]
    var numbers: [Int32: Int] = [:]
    for index in flows.indices {
      let flow = flows[index]
      numbers[flow.flow] = index
      guard let branch = flow.branch, let parent = numbers[branch.parent] else { continue }
      children[parent, default: []].append((index, branch.index))
      if let dispatch = resolved[parent], case .dispatching = dispatch.kind {
        let count = graph.dispatches[Int(graph.nodeBase[Int(dispatch.state)].alternative)]
          .branchStarts.count
        if branch.index >= count {
          misfit(
            branch.dispatch,
            "Dispatch \(DisplayText.quoted(name: branch.dispatch)) has \(count) branch\(count == 1 ? "" : "es"), and the snapshot holds its branch \(branch.index + 1): resume on a chart whose dispatch has that branch."
          )
        }
      }
    }
    guard misfits.isEmpty, let top = resolved.first, let topPosition = top else {
      throw ResumeError(
        summary:
          "The snapshot of run \(id) does not fit the chart\(identity.map { " \(DisplayText.quoted(name: $0))" } ?? ""): \(misfits.count == 1 ? "a position no longer fits" : "\(misfits.count) positions no longer fit").",
        misfits: misfits)
    }
    func damaged(_ index: Int) -> ResumeError {
      ResumeError(
        summary:
          "The snapshot of run \(id) stands at \(DisplayText.quoted(name: flows[index].position.key ?? "")) but its path does not end there: the snapshot is damaged.",
        misfits: [])
    }
    let positions = ResumedPositions()
    var entries: [CapturedEntry<Context>] = []
    var parents: [Int32: Int] = [:]
    for index in flows.indices {
      let flow = flows[index]
      guard let position = resolved[index] else { continue }
      parents[flow.flow] = index
      entries.append(
        CapturedEntry(
          flow: CapturedFlow(
            position.kind, at: position.state, context: flow.context, path: paths[index],
            stepCount: flow.stepCount, stepLimit: stepLimit),
          parent: flow.branch.flatMap { parents[$0.parent] }, branch: flow.branch?.index ?? 0))
    }
    /// Where flow `index` goes on from, with the branches of its dispatch.
    func point(_ index: Int) throws(ResumeError) -> FlowResumePoint<Context> {
      let flow = flows[index]
      let position = resolved[index] ?? topPosition
      var path = paths[index]
      var count = flow.stepCount
      switch position.kind {
      case .waitingForInput, .waitingUntil, .retrying, .dispatching, .inSubflow:
        // The flow entered the state: it enters it again.
        guard path.last == position.state, count > 0 else { throw damaged(index) }
        path.removeLast()
        count -= 1
      case .entering, .finished, .notEntered: break
      }
      switch position.kind {
      case .waitingUntil(let deadline):
        if let slot = graph.records[Int(position.state)].attachment as? DelaySlot {
          positions.keep(delay: slot, until: deadline)
        }
      case .retrying(let attempt, let deadline):
        positions.keep(
          ResumedRetry(state: position.state, attempt: attempt, deadline: deadline))
      case .inSubflow(let resume):
        if let attachment = graph.records[Int(position.state)].attachment {
          positions.keep(subflow: attachment, resume)
        }
      case .entering, .waitingForInput, .dispatching, .finished, .notEntered: break
      }
      return FlowResumePoint(
        state: position.state, context: flow.context,
        path: RecordedPath.restored(states: path, count: count),
        dispatch: try dispatchResume(index), stepLimit: index == 0 ? nil : stepLimit)
    }
    /// How the branches of the dispatch flow `index` stands in go on; `nil` when it stands
    /// in none.
    func dispatchResume(_ index: Int) throws(ResumeError) -> DispatchResume<Context>? {
      guard let position = resolved[index], case .dispatching = position.kind else { return nil }
      let count = graph.dispatches[Int(graph.nodeBase[Int(position.state)].alternative)]
        .branchStarts.count
      var finished = [FinishedBranch<Context>?](repeating: nil, count: count)
      var points = [FlowResumePoint<Context>?](repeating: nil, count: count)
      var decisions = [Decision?](repeating: nil, count: count)
      for (child, branch) in children[index] ?? [] {
        guard let childPosition = resolved[child] else { continue }
        if case .finished(let decision) = childPosition.kind {
          finished[branch] = FinishedBranch(
            context: flows[child].context,
            path: RecordedPath.restored(states: paths[child], count: flows[child].stepCount))
          decisions[branch] = decision
        } else {
          points[branch] = try point(child)
        }
      }
      return DispatchResume(finished: finished, points: points, decisions: decisions)
    }
    var flow = CapturedFlow<Context>(
      topPosition.kind, at: topPosition.state, context: flows[0].context, path: paths[0],
      stepCount: flows[0].stepCount, stepLimit: stepLimit)
    var dispatch: DispatchResume<Context>? = nil
    switch topPosition.kind {
    case .waitingForInput, .dispatching:
      // The flow parked at the state it entered (or stands in the dispatch it entered): it
      // enters it again.
      guard flow.path.last == topPosition.state, flow.stepCount > 0 else { throw damaged(0) }
      flow.path.removeLast()
      flow.stepCount -= 1
      dispatch = try dispatchResume(0)
    case .inSubflow(let resume):
      // The flow stands in the subflow it entered: it enters it again, and the subflow's
      // inner run goes on from where it stood.
      guard flow.path.last == topPosition.state, flow.stepCount > 0 else { throw damaged(0) }
      flow.path.removeLast()
      flow.stepCount -= 1
      if let attachment = graph.records[Int(topPosition.state)].attachment {
        positions.keep(subflow: attachment, resume)
      }
    case .waitingUntil, .retrying:
      // The flow parked at the delay it entered, or is between two attempts of the state it
      // entered: it goes on from there, keeping its deadline.
      guard flow.path.last == topPosition.state, flow.stepCount > 0 else { throw damaged(0) }
    case .entering, .finished, .notEntered: break
    }
    return ResolvedSnapshot(
      flow: flow, entries: entries, dispatch: dispatch,
      positions: positions.isEmpty ? nil : positions, mailbox: values)
  }

  /// `value` decoded as `type`, when `type` is `Decodable`.
  private static func decode<T: Sendable>(_ value: SnapshotValue, as type: T.Type) throws -> T? {
    guard let decodable = type as? any Decodable.Type else { return nil }
    return try value.decode(decodable) as? T
  }

  private static func list(_ exits: [String]) -> String {
    exits.isEmpty ? "none" : exits.joined(separator: ", ")
  }
}

extension RecordedPath {
  /// A path of `count` states entered, of which `states` are the most recent, as a
  /// snapshot holds them.
  static func restored(states: [Int32], count: Int) -> RecordedPath {
    guard !states.isEmpty else { return RecordedPath(storage: nil, mask: 0, first: 0, count: 0) }
    var capacity = 8
    while capacity < states.count { capacity *= 2 }
    if count > states.count { capacity = PathRecorder.maximumCapacity }
    let storage = PathStorage.make(capacity: capacity)
    let mask = capacity - 1
    // A flow that parked after a full ring keeps one state fewer than the ring holds (the
    // waiting state it enters again is not kept): the oldest kept state stands in for the
    // one before it, which is not known.
    let kept = min(count, capacity)
    let missing = kept - states.count
    for offset in 0..<kept {
      storage.elements[(count - kept + offset) & mask] =
        states[max(offset - missing, 0)]
    }
    return RecordedPath(storage: storage, mask: mask, first: states[0], count: count)
  }
}
