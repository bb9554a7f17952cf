// A subflow's inner run in a live run, as snapshots hold it: run as a `NestedRun`
// (`runHosted`), and resolved from a snapshot on the subflow's chart (`resolveNested`). See
// `NestedRun.swift`.

/// A subflow whose inner run a snapshot can hold: resolves the inner run a snapshot holds
/// on the subflow's chart.
protocol ResumableSubflow: AnyObject, Sendable {
  /// The inner run `nested` resolved on the subflow's chart (a ``NestedResume``), or the
  /// positions that no longer fit; `subflow` is the subflow state's key, `who` names the
  /// flow that stands in it.
  func resolveNested(_ nested: NestedSnapshot, subflow: String, who: String) -> Result<
    any CapturedSubflowRun, ResumeError
  >
}

/// The inner run of a subflow, resolved from a snapshot: where it goes on from.
final class NestedResume<Inner: Sendable>: CapturedSubflowRun {
  /// The inner run as the snapshot held it: what a snapshot of the resumed run, held at its
  /// start, holds again.
  let source: NestedSnapshot
  /// The state the inner flow enters (again, when it had entered it).
  let state: Int32
  let context: Inner
  /// The inner flow's path, without the state it enters again.
  let path: RecordedPath
  /// The retries, delays and subflows the inner flows are in the middle of.
  let positions: ResumedPositions?
  /// How the branches of the dispatch the inner flow stands in go on; `nil` when it stands
  /// in none.
  let dispatch: DispatchResume<Inner>?

  init(
    source: NestedSnapshot, state: Int32, context: Inner, path: RecordedPath,
    positions: ResumedPositions?, dispatch: DispatchResume<Inner>? = nil
  ) {
    self.source = source
    self.state = state
    self.context = context
    self.path = path
    self.positions = positions
    self.dispatch = dispatch
  }

  func snapshot() -> NestedSnapshot? { source }
  var entered: SubflowAttempt { source.entered }
}

extension SubflowRun: ResumableSubflow {
  /// Whether the subflow's inner run can be held by a snapshot: its context is `Codable`
  /// and its step limit is valid. A dispatch of its chart is held as the run's own are:
  /// its branches are the inner run's flows.
  var holdsPositions: Bool {
    Inner.self is any Encodable.Type && Inner.self is any Decodable.Type
      && (try? chart.validatedStepLimit(stepLimit)) != nil
  }

  /// Runs the chart as a ``NestedRun`` of the live run `host` names, from its start or from
  /// where a resumed snapshot holds it; `nil` when the subflow cannot be held (see
  /// ``holdsPositions``), and runs as an ordinary inner run.
  func runHosted(_ outer: inout Outer, host: SubflowHost) async throws -> Ending? {
    guard holdsPositions, let limit = try? chart.validatedStepLimit(stepLimit) else {
      return nil
    }
    let resumed = ResumedPositions.current?.takeSubflow(self) as? NestedResume<Inner>
    var context = try resumed?.context ?? mapping.enter(outer)
    var cursor = Cursor<Inner>(at: resumed?.state ?? chart.startIndex, stepLimit: limit)
    if let resumed { cursor.path.append(resumed.path) }
    let root = host.parent.root
    let nested = NestedRun(
      root: root, place: host.parent.rootPlace ?? (host.flow, host.state), graph: chart.graph,
      entered: host.entered)
    host.parent.adopt(nested, flow: host.flow, position: host.position)
    defer { host.parent.release(nested, flow: host.flow) }
    let control = RunControl(monitor: nested)
    defer { root.unregister(control) }
    let interpreter = Interpreter(graph: chart.graph, stepLimit: limit)
    // An inner run that stood in a dispatch goes on from it as a retried one does: the
    // finished branches kept, the others from where they stood.
    let point = resumed.flatMap { resumed in
      resumed.dispatch.map {
        FlowResumePoint(
          state: resumed.state, context: resumed.context, path: resumed.path, dispatch: $0)
      }
    }
    let decision = try await SubflowHost.$current.withValue(nil) {
      try await InnerRun.$current.withValue(nested) {
        try await ResumedPositions.$current.withValue(resumed?.positions) {
          if let point {
            return try await interpreter.resume(
              point, cursor: &cursor, context: &context, topLevel: control)
          }
          return try await interpreter.run(cursor: &cursor, context: &context, topLevel: control)
        }
      }
    }
    try mapping.leave(&outer, context)
    return (decision, cursor.state)
  }

  /// Runs the chart as an ordinary inner run, apart from the live run the task may run
  /// (its subflow host, inner run and resumed positions belong to the outer chart).
  func runApart(_ outer: inout Outer) async throws -> Ending {
    try await SubflowHost.$current.withValue(nil) {
      try await InnerRun.$current.withValue(nil) {
        try await ResumedPositions.$current.withValue(nil) {
          let ending = try await chart.runToEnd(with: mapping.enter(outer), stepLimit: stepLimit)
          try mapping.leave(&outer, ending.context)
          return (ending.decision, ending.finalState)
        }
      }
    }
  }

  func resolveNested(_ nested: NestedSnapshot, subflow: String, who: String) -> Result<
    any CapturedSubflowRun, ResumeError
  > {
    NestedResume<Inner>.resolve(
      nested, on: chart, holdsPositions: holdsPositions, subflow: subflow, who: who,
      stepLimit: (try? chart.validatedStepLimit(stepLimit)) ?? .max)
  }
}

extension NestedResume {
  /// The inner run `nested` resolved on `chart`, the chart of the subflow (or of the map's
  /// elements, when `noun` is `"map"`) whose state key is `subflow`, or the positions that
  /// no longer fit; `who` names the flow that stands in it.
  static func resolve(
    _ nested: NestedSnapshot, on chart: Flowchart<Inner>, holdsPositions: Bool,
    subflow: String, who: String, noun: String = "subflow", stepLimit: Int = .max
  ) -> Result<any CapturedSubflowRun, ResumeError> {
    let structure = chart.graph.structure
    let unchanged = nested.fingerprint == structure.fingerprint
    let inside = "inside \(noun) \(DisplayText.quoted(name: subflow))"
    var misfits: [ResumeError.Misfit] = []
    func misfit(_ key: String, _ reason: String) {
      misfits.append(ResumeError.Misfit(position: "\(subflow) > \(key)", reason: reason))
    }
    func failure() -> Result<any CapturedSubflowRun, ResumeError> {
      .failure(ResumeError(summary: "", misfits: misfits))
    }
    guard let key = nested.position.key else { return failure() }
    guard holdsPositions else {
      misfit(
        key,
        "\(noun == "map" ? "Map" : "Subflow") \(DisplayText.quoted(name: subflow)), where \(who) stands, can no longer hold its inner run (its context is not Codable, or its step limit is invalid): resume on a chart whose \(noun) is as it was."
      )
      return failure()
    }
    let role: String =
      switch nested.position {
      case .waitingUntil: "waits for a time"
      case .entering where nested.inner != nil: "stands in the subflow"
      case .entering where nested.map != nil: "stands in the map"
      case .entering where nested.attempt > 1: "is between two attempts"
      case .entering, .waitingForInput, .dispatching, .finished, .notEntered: "goes on"
      }
    guard let state = structure.states[key] else {
      misfit(
        key,
        "\(DisplayText.quoted(name: key)), where \(who) \(role) \(inside), no longer exists in the subflow's chart: restore it, or resume on a chart whose subflow has it."
      )
      return failure()
    }
    if !unchanged, let old = nested.shapes[key] {
      let new = structure.shapes[Int(state)]
      if old != new {
        let what =
          old.kind != new.kind
          ? "was \(DisplayText.withArticle(typeName: old.kind)) and is now \(DisplayText.withArticle(typeName: new.kind))"
          : old.isFinal != new.isFinal
            ? (old.isFinal ? "was final and is not any more" : "was not final and is now")
            : "had the exits \(old.exits.isEmpty ? "none" : old.exits.joined(separator: ", ")) and now has \(new.exits.isEmpty ? "none" : new.exits.joined(separator: ", "))"
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where \(who) \(role) \(inside), \(what): the inner run cannot go on there; resume on a chart whose subflow has the state as it was."
        )
        return failure()
      }
    }
    var path: [Int32] = []
    for old in nested.path {
      guard let found = structure.states[old] else {
        misfit(
          old,
          "\(DisplayText.quoted(name: old)), which \(who) entered earlier \(inside) (its path holds it), no longer exists in the subflow's chart: restore it."
        )
        return failure()
      }
      path.append(found)
    }
    /// A context the snapshot holds for the inner chart, read as `Inner`; `nil` (with its
    /// misfit) when it cannot be.
    func innerContext(_ value: MailboxEntry.Value) -> Inner? {
      switch value {
      case .live(let value):
        guard let value = value as? Inner else {
          misfit(
            key,
            "The context of subflow \(DisplayText.quoted(name: subflow)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), and the subflow now runs on \(DisplayText.withArticle(typeName: "\(Inner.self)"))."
          )
          return nil
        }
        return value
      case .encoded(let encoded):
        do {
          guard let decodable = Inner.self as? any Decodable.Type,
            let value = try encoded.decode(decodable) as? Inner
          else {
            misfit(
              key,
              "The subflow \(DisplayText.quoted(name: subflow)) runs on \(DisplayText.withArticle(typeName: "\(Inner.self)")), which is not Decodable, so the context the snapshot holds for it cannot be read: make the type Codable."
            )
            return nil
          }
          return value
        } catch {
          misfit(
            key,
            "The context of subflow \(DisplayText.quoted(name: subflow)) does not decode as \(DisplayText.withArticle(typeName: "\(Inner.self)")): \(error)."
          )
          return nil
        }
      }
    }
    if nested.position.isDispatching || !nested.branches.isEmpty {
      // An inner run of several flows: resolved as a run's own flows are, on the inner chart.
      var flows: [FlowSnapshot<Inner>] = []
      for record in [nested.top] + nested.branches {
        guard let context = innerContext(record.context) else { return failure() }
        flows.append(
          FlowSnapshot(
            flow: record.flow, position: record.position, context: context, path: record.path,
            stepCount: record.stepCount, attempt: record.attempt, deadline: record.deadline,
            branch: record.branch.map {
              FlowSnapshot<Inner>.Branch(parent: $0.parent, dispatch: $0.dispatch, index: $0.index)
            }, nested: record.inner, map: record.map))
      }
      let run = RunSnapshot(
        id: RunID(), chart: "", fingerprint: nested.fingerprint, status: .running,
        updated: WallClockTime(nanosecondsSince1970: 0), stepLimit: stepLimit, flows: flows,
        mailbox: [], shapes: nested.shapes, formatVersion: 2)
      let resolved: ResolvedSnapshot<Inner>
      do {
        resolved = try run.resolve(on: chart.graph, chart: nil, migrating: [:])
      } catch {
        for found in error.misfits {
          misfits.append(
            ResumeError.Misfit(
              position: found.position.hasPrefix("\(subflow) > ")
                ? found.position : "\(subflow) > \(found.position)",
              reason:
                "Inside \(noun) \(DisplayText.quoted(name: subflow)), where \(who) stands: \(found.reason)"
            ))
        }
        if misfits.isEmpty {
          misfit(
            key,
            "Inside \(noun) \(DisplayText.quoted(name: subflow)), where \(who) stands: \(error.summary)"
          )
        }
        return failure()
      }
      let flow = resolved.flow
      return .success(
        NestedResume(
          source: nested, state: flow.state, context: flow.context,
          path: RecordedPath.restored(states: flow.path, count: flow.stepCount),
          positions: resolved.positions, dispatch: resolved.dispatch))
    }
    guard let context = innerContext(nested.context) else { return failure() }
    let positions = ResumedPositions()
    var count = nested.stepCount
    let record = chart.graph.records[Int(state)]
    switch nested.position {
    case .waitingUntil:
      guard let slot = record.attachment as? DelaySlot, let deadline = nested.deadline else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where \(who) waits for a time \(inside), is no longer a delay."
        )
        return failure()
      }
      positions.keep(delay: slot, until: deadline)
    case .entering where nested.inner != nil:
      guard let inner = nested.inner, let child = record.attachment as? any ResumableSubflow
      else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where \(who) stands in the subflow \(inside), is no longer a subflow that runs asynchronously."
        )
        return failure()
      }
      if let reason = chart.graph.attemptMisfit(inner.entered, at: state) {
        misfit(key, "\(DisplayText.quoted(name: key)), where \(who) stands \(inside), \(reason).")
        return failure()
      }
      switch child.resolveNested(
        inner, subflow: key, who: "\(who) \(inside)")
      {
      case .success(let resume):
        if let attachment = record.attachment { positions.keep(subflow: attachment, resume) }
      case .failure(let error):
        misfits.append(contentsOf: error.misfits)
        return failure()
      }
    case .entering where nested.map != nil:
      guard let map = nested.map, let child = record.attachment as? any ResumableMap else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where \(who) stands in the map \(inside), is no longer a map that runs asynchronously."
        )
        return failure()
      }
      if let reason = chart.graph.attemptMisfit(map.entered, at: state) {
        misfit(key, "\(DisplayText.quoted(name: key)), where \(who) stands \(inside), \(reason).")
        return failure()
      }
      switch child.resolveMap(map, key: key, who: "\(who) \(inside)") {
      case .success(let resume):
        if let attachment = record.attachment { positions.keep(subflow: attachment, resume) }
      case .failure(let error):
        misfits.append(
          contentsOf: error.misfits.map {
            ResumeError.Misfit(position: "\(subflow) > \($0.position)", reason: $0.reason)
          })
        return failure()
      }
    case .entering where nested.attempt > 1:
      guard let retries = chart.graph.retryCount(state), nested.attempt - 1 <= retries,
        let deadline = nested.deadline
      else {
        misfit(
          key,
          "\(DisplayText.quoted(name: key)), where \(who) is between two attempts \(inside), no longer retries that often: give it its retry back."
        )
        return failure()
      }
      positions.keep(ResumedRetry(state: state, attempt: nested.attempt, deadline: deadline))
    case .entering, .waitingForInput, .dispatching, .finished, .notEntered: break
    }
    let entered: Bool =
      switch nested.position {
      case .waitingUntil: true
      case .entering: nested.inner != nil || nested.map != nil || nested.attempt > 1
      case .waitingForInput, .dispatching, .finished, .notEntered: false
      }
    if entered {
      // The inner flow entered the state: it enters it again.
      guard path.last == state, count > 0 else {
        misfit(
          key,
          "The inner run \(inside) stands at \(DisplayText.quoted(name: key)) but its path does not end there: the snapshot is damaged."
        )
        return failure()
      }
      path.removeLast()
      count -= 1
    }
    return .success(
      NestedResume(
        source: nested, state: state, context: context,
        path: RecordedPath.restored(states: path, count: count),
        positions: positions.isEmpty ? nil : positions))
  }
}
