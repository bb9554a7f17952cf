// Positions inside maps: a map's runs in a live run, held and captured by the run's
// snapshots, and resolved from a snapshot on resume. See `NestedRun.swift` for subflows,
// whose inner runs each running element's run is.
//
// A live run's flow that enters an asynchronous map (`Interpreter.runSubflowState`) runs
// the map's code with a `SubflowHost`. When the map can be held (`MapRun.holdsPositions`:
// its element type is `Codable`, its step limit is valid; a dispatch of its chart is held as
// a subflow's is, see `NestedRun.swift`), in any of the run's flows or in any flow of a
// subflow's or a map's inner run, a dispatch branch of the inner chart included (adopted by
// that inner run, as a subflow is), and with or without modifiers (the host brings the
// attempt and its timeout's deadline, `SubflowAttempt`), the map runs its elements as
// `NestedRun`s under a `MapHost`, which the run's barrier asks whether it stands: it does
// when every running element's inner run stands and no failure beyond the tolerance is
// stopping the map. It then holds the outputs of the elements done, the inner runs of those
// running, the failures the map tolerated (each as plain data, a `MapFailureRecord`: the
// error a state threw is of any type, so it crosses a snapshot as its type name and
// description, and comes back as a `RestoredError`), and, implicitly, which have not
// started (an element held before its first state is one). On resume the map's collector
// starts with the tolerated failures, which count toward the tolerance. Any other map runs
// as before: one state of its flow, which a snapshot waits for.

/// A map whose runs a snapshot can hold: resolves the runs a snapshot holds on the map's
/// element chart.
protocol ResumableMap: AnyObject, Sendable {
  /// The runs `map` resolved on the element chart (a ``MapResume``), or the positions that
  /// no longer fit; `key` is the map state's key, `who` names the flow that stands in it.
  func resolveMap(_ map: MapSnapshot, key: String, who: String) -> Result<
    any CapturedSubflowRun, ResumeError
  >
}

/// A map's runs in a live run: the outputs of the elements done, the failures it tolerated,
/// and the inner run of each element running, which the run's barrier asks whether they
/// stand.
final class MapHost<Element: Sendable>: StandingSubflow {
  private struct Kept {
    var done: [Int: Element]
    var running: [Int: NestedRun<Element>] = [:]
    /// The elements still to start, in the order they start.
    var pending: [Int]
    var next = 0
    /// The failures the map tolerated, as a snapshot holds them.
    var failed: [MapFailureRecord]
    /// Whether a failure the map does not tolerate stops it, or one could not be captured
    /// (its state is not in the element chart): the map does not stand then.
    var stopped = false
  }

  let root: any SnapshotRoot
  let place: (flow: Int32, state: Int32)
  let graph: Graph<Element>
  let count: Int
  /// The attempt of the map state, and its timeout's deadline.
  let entered: SubflowAttempt
  private let kept: Lock<Kept>

  init(
    root: any SnapshotRoot, place: (flow: Int32, state: Int32), graph: Graph<Element>,
    count: Int, done: [Int: Element], pending: [Int], failed: [MapFailureRecord] = [],
    entered: SubflowAttempt = .first
  ) {
    self.root = root
    self.place = place
    self.graph = graph
    self.count = count
    self.entered = entered
    kept = Lock(Kept(done: done, pending: pending, failed: failed))
  }

  /// The next element to start, with its inner run; `nil` when none is left.
  func claim() -> (index: Int, run: NestedRun<Element>)? {
    let claimed = kept.withLock { kept -> (Int, NestedRun<Element>)? in
      guard kept.next < kept.pending.count else { return nil }
      let index = kept.pending[kept.next]
      kept.next += 1
      let run = NestedRun(root: root, place: place, graph: graph)
      kept.running[index] = run
      return (index, run)
    }
    return claimed
  }

  /// Element `index`'s run ended with `output`.
  func ended(_ index: Int, output: Element) {
    kept.withLock { kept in
      kept.running[index] = nil
      kept.done[index] = output
    }
    root.snapshotMayStand()
  }

  /// Element `index`'s run failed with `error`, which the map tolerated or not.
  func failed(_ index: Int, error: RunError, tolerated: Bool) {
    // Made outside the lock: the record's strings are the error's.
    let record =
      tolerated ? MapFailureRecord(index: index, error: error, structure: graph.structure) : nil
    kept.withLock { kept in
      kept.running[index] = nil
      if let record { kept.failed.append(record) } else { kept.stopped = true }
    }
    root.snapshotMayStand()
  }

  func standing() -> (any CapturedSubflowRun)? {
    kept.withLock { kept -> (any CapturedSubflowRun)? in
      guard !kept.stopped else { return nil }
      // Every element ended: the map collects its outputs and its flow goes on, to the next
      // boundary where the snapshot takes it (as a dispatch whose branches all finished
      // joins first); held here, the flow would still decide at the map after the snapshot.
      guard !kept.running.isEmpty || kept.next < kept.pending.count else { return nil }
      var running: [(index: Int, run: CapturedInnerRun<Element>)] = []
      for (index, run) in kept.running {
        let standing = run.standing()
        // A branch of an element's dispatch failed, and the dispatch runs on: refused.
        if let refused = standing as? RefusedInnerRun { return refused }
        guard let inner = standing as? CapturedInnerRun<Element> else { return nil }
        // Held before its first state, an element has not started: its run starts afresh.
        if inner.flow.stepCount == 0 { continue }
        running.append((index, inner))
      }
      return CapturedMap(
        fingerprint: graph.structure.fingerprint, count: count,
        done: kept.done.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
        running: running.sorted { $0.index < $1.index },
        failed: kept.failed.sorted { $0.index < $1.index }, entered: entered)
    }
  }
}

/// A map's runs captured: the outputs of the elements done, the inner runs of those
/// running, the failures it tolerated.
struct CapturedMap<Element: Sendable>: CapturedSubflowRun {
  let fingerprint: String
  let count: Int
  let done: [(index: Int, output: Element)]
  let running: [(index: Int, run: CapturedInnerRun<Element>)]
  let failed: [MapFailureRecord]
  let entered: SubflowAttempt

  func snapshot() -> NestedSnapshot? { nil }

  func mapSnapshot() -> MapSnapshot? {
    var runs: [(index: Int, run: NestedSnapshot)] = []
    for (index, run) in running {
      guard let inner = run.snapshot() else { return nil }
      runs.append((index, inner))
    }
    return MapSnapshot(
      fingerprint: fingerprint, elements: count, done: done.map { ($0.index, .live($0.output)) },
      running: runs, failed: failed, entered: entered)
  }
}

/// A map's runs resolved from a snapshot: the outputs of the elements done, the failures
/// the map tolerated, and where each running element's run goes on from.
final class MapResume<Element: Sendable>: CapturedSubflowRun {
  /// The runs as the snapshot held them.
  let source: MapSnapshot
  let done: [Int: Element]
  let running: [Int: NestedResume<Element>]
  /// The tolerated failures, restored, in input order.
  let failures: [MapResults<Element>.Failure]
  /// The map state's key.
  let key: String

  init(
    source: MapSnapshot, done: [Int: Element], running: [Int: NestedResume<Element>],
    failures: [MapResults<Element>.Failure], key: String
  ) {
    self.source = source
    self.key = key
    self.done = done
    self.running = running
    self.failures = failures
  }

  func snapshot() -> NestedSnapshot? { nil }
  func mapSnapshot() -> MapSnapshot? { source }
  var entered: SubflowAttempt { source.entered }
}

/// Thrown by a resumed map whose context now holds another number of elements than the
/// snapshot's map took.
struct MapResumeMismatch: Error, CustomStringConvertible {
  let map: String
  let expected: Int
  let found: Int

  var description: String {
    "Map \(DisplayText.quoted(name: map)) was resumed with \(found) elements, but the snapshot's map took \(expected): the elements are taken from the context from before the map, which must give the same elements again."
  }
}

extension MapRun: ResumableMap {
  /// Whether the map's runs can be held by a snapshot: its element type is `Codable` and
  /// its step limit is valid. A dispatch of its chart is held as a subflow's is: its
  /// branches are the element's run's flows.
  var holdsPositions: Bool {
    Element.self is any Encodable.Type && Element.self is any Decodable.Type
      && stepLimitError == nil
  }

  /// Runs the map with its runs held for the live run's snapshots, when the current task
  /// runs it as a live run's flow; `false` when it does not (the caller runs it as usual).
  @usableFromInline @inline(never)
  func runIfHosted(_ context: inout Context) async throws -> Bool {
    guard let host = SubflowHost.current, host.attachment === self else { return false }
    guard holdsPositions else {
      // Not held: one state of its flow, as before.
      try await SubflowHost.$current.withValue(nil) { try await self(&context) }
      return true
    }
    let resumed = ResumedPositions.current?.takeSubflow(self) as? MapResume<Element>
    let input = try elements(context)
    if let resumed, resumed.source.elements != input.count {
      throw MapResumeMismatch(
        map: resumed.key, expected: resumed.source.elements,
        found: input.count)
    }
    let done = resumed?.done ?? [:]
    let running = resumed?.running ?? [:]
    let failures = resumed?.failures ?? []
    let failed = Set(failures.map(\.index))
    let pending =
      running.keys.sorted()
      + input.indices.filter { done[$0] == nil && running[$0] == nil && !failed.contains($0) }
    let mapHost = MapHost(
      root: host.parent.root, place: host.parent.rootPlace ?? (host.flow, host.state),
      graph: chart.graph, count: input.count, done: done, pending: pending,
      failed: resumed?.source.failed ?? [], entered: host.entered)
    host.parent.adopt(mapHost, flow: host.flow, position: host.position)
    defer { host.parent.release(mapHost, flow: host.flow) }
    var results = MapCollector<Element>(count: input.count, toleratedFailures: toleratedFailures)
    for (index, output) in done { results.add(output, at: index) }
    // The failures tolerated before the snapshot count toward the tolerance, as they did.
    for failure in failures { results.add(tolerated: failure) }
    let claims = MapClaims()
    _ = claims.failures.wrappingAdd(failures.count, ordering: .relaxed)
    try await withThrowingTaskGroup(of: MapWork<Element>.self) { group in
      for _ in 0..<min(maxConcurrency, pending.count) {
        group.addTask {
          await self.workHosted(on: input, host: mapHost, resumed: running, claims: claims)
        }
      }
      while let work = try await group.next() {
        results.add(work)
        if let stop = work.stop {
          group.cancelAll()
          reportEnded(results, stoppedBy: 1, of: input.count)
          throw stop
        }
      }
    }
    reportEnded(results, stoppedBy: 0, of: input.count)
    if results.settled < input.count { throw CancellationError() }
    try collect(&context, results.finish())
    return true
  }

  /// One worker of a held map: takes the next element and runs it as a ``NestedRun`` until
  /// none is left, the map is cancelled, or a failure exceeds the tolerance.
  func workHosted(
    on input: [Element], host: MapHost<Element>, resumed: [Int: NestedResume<Element>],
    claims: MapClaims
  ) async -> MapWork<Element> {
    var done = MapWork<Element>()
    while !Task.isCancelled, let (index, nested) = host.claim().map({ ($0.index, $0.run) }) {
      let resume = resumed[index]
      var context = resume?.context ?? input[index]
      var cursor = Cursor<Element>(at: resume?.state ?? start, stepLimit: interpreter.stepLimit)
      if let resume { cursor.path.append(resume.path) }
      let control = RunControl(monitor: nested)
      let runner = interpreter
      // An element's run that stood in a dispatch goes on from it (see `runHosted`).
      let point = resume.flatMap { resume in
        resume.dispatch.map {
          FlowResumePoint(
            state: resume.state, context: resume.context, path: resume.path, dispatch: $0)
        }
      }
      let outcome = await SubflowHost.$current.withValue(nil) {
        await InnerRun.$current.withValue(nested) {
          await ResumedPositions.$current.withValue(resume?.positions) {
            () async -> RunError? in
            do throws(RunError) {
              if let point {
                _ = try await runner.resume(
                  point, cursor: &cursor, context: &context, topLevel: control)
              } else {
                _ = try await runner.run(cursor: &cursor, context: &context, topLevel: control)
              }
              return nil
            } catch {
              return error
            }
          }
        }
      }
      host.root.unregister(control)
      if let error = outcome {
        // Cut short by the map's own cancellation (its run is cancelled): no failure of the
        // element, which the map would tolerate and collect; the map ends cancelled.
        if error.kind == .cancelled, Task.isCancelled {
          host.failed(index, error: error, tolerated: false)
          return done
        }
        let failed = claims.failures.wrappingAdd(1, ordering: .relaxed).oldValue
        let tolerated = failed < toleratedFailures && !isScriptProblem(error)
        host.failed(index, error: error, tolerated: tolerated)
        guard tolerated else {
          done.stop = MapElementFailure(index: index, elementCount: input.count, error: error)
          return done
        }
        done.failures.append(MapResults.Failure(index: index, error: error))
      } else {
        host.ended(index, output: context)
        done.outputs.append((index, context))
      }
    }
    return done
  }

  func resolveMap(_ map: MapSnapshot, key: String, who: String) -> Result<
    any CapturedSubflowRun, ResumeError
  > {
    func failure(_ reason: String, at position: String? = nil) -> Result<
      any CapturedSubflowRun, ResumeError
    > {
      .failure(
        ResumeError(
          summary: "",
          misfits: [
            ResumeError.Misfit(position: position.map { "\(key) > \($0)" } ?? key, reason: reason)
          ]))
    }
    guard holdsPositions else {
      return failure(
        "Map \(DisplayText.quoted(name: key)), where \(who) stands, can no longer hold its runs (its elements are not Codable, or its step limit is invalid): resume on a chart whose map is as it was."
      )
    }
    var done: [Int: Element] = [:]
    for (index, output) in map.done {
      switch output {
      case .live(let value):
        guard let value = value as? Element else {
          return failure(
            "The output of element \(index) of map \(DisplayText.quoted(name: key)) is \(DisplayText.withArticle(typeName: "\(type(of: value))")), and the map's elements are now \(DisplayText.withArticle(typeName: "\(Element.self)"))."
          )
        }
        done[index] = value
      case .encoded(let encoded):
        do {
          guard let decodable = Element.self as? any Decodable.Type,
            let value = try encoded.decode(decodable) as? Element
          else {
            return failure(
              "The map \(DisplayText.quoted(name: key)) runs on \(DisplayText.withArticle(typeName: "\(Element.self)")), which is not Decodable: make the type Codable."
            )
          }
          done[index] = value
        } catch {
          return failure(
            "The output of element \(index) of map \(DisplayText.quoted(name: key)) does not decode as \(DisplayText.withArticle(typeName: "\(Element.self)")): \(error)."
          )
        }
      }
    }
    var running: [Int: NestedResume<Element>] = [:]
    var misfits: [ResumeError.Misfit] = []
    for (index, run) in map.running {
      switch NestedResume<Element>.resolve(
        run, on: chart, holdsPositions: true, subflow: key,
        who: "element \(index) of \(who)", noun: "map", stepLimit: interpreter.stepLimit)
      {
      case .success(let resume):
        if let resume = resume as? NestedResume<Element> { running[index] = resume }
      case .failure(let error):
        misfits.append(contentsOf: error.misfits)
      }
    }
    guard misfits.isEmpty else { return .failure(ResumeError(summary: "", misfits: misfits)) }
    guard map.failed.count <= toleratedFailures else {
      return failure(
        "Map \(DisplayText.quoted(name: key)), where \(who) stands, had tolerated \(map.failed.count) failed elements, and now tolerates \(toleratedFailures): resume on a chart whose map tolerates at least \(map.failed.count)."
      )
    }
    var failures: [MapResults<Element>.Failure] = []
    for record in map.failed {
      switch record.runError(on: chart.graph.structure) {
      case .success(let error):
        failures.append(MapResults.Failure(index: record.index, error: error))
      case .failure(let missing):
        return failure(
          "Element \(record.index) of map \(DisplayText.quoted(name: key)) failed at or after \(DisplayText.quoted(name: missing.key)), which no longer exists in the element chart: resume on a chart whose map's chart still has it.",
          at: missing.key)
      }
    }
    return .success(
      MapResume(source: map, done: done, running: running, failures: failures, key: key))
  }
}
