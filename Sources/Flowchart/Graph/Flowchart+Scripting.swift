// Scripting: a copy of a compiled chart in which chosen states run other code.
//
// Tools of this package (the FlowchartTesting library, the command-line tool) use it to
// force decisions and to observe which exits runs take. The copy has its own nodes, pointing
// at new boxes, and shares everything else with the original; the ordinary interpreter runs
// it, so a scripted run has the ordinary run semantics and result, and charts that nobody
// scripts pay nothing. The copy is made here; what a forced state decides is in
// `Flowchart+Forcing.swift`, how it fails or times out in `Flowchart+ScriptedFailures.swift`,
// the code it runs instead of (or as well as) deciding in `Flowchart+ScriptedCode.swift`;
// observing, in `Flowchart+Observing.swift`.

/// One forced choice of a state: a decision, the exit to take, or a failure.
package enum ForcedChoice: Sendable, Hashable {
  /// ``Decision/done`` for an action, ``Decision/yes`` or ``Decision/no`` for a condition,
  /// ``Decision/key(_:)`` for a multiple condition. A key leads to the exit whose text (as
  /// the printed tree shows it) is the key's text, or to the default exit when no exit has
  /// it.
  case decision(Decision)
  /// The exit of a non-final state with this label: `next` for an action, `yes` or `no`
  /// for a condition, a key's text or `default` for a multiple condition.
  case exit(Exit.Label)
  /// The attempt fails, without running the state's code: the state's modifiers (retry,
  /// catch routes) take the failure as they would take a thrown error.
  case failure(ForcedFailure)
}

/// A failure a script forces on one attempt of a state's code.
package enum ForcedFailure: Sendable, Hashable {
  /// The attempt throws a ``ScriptedFailure``: the state's retry, if any, retries it, and
  /// once the retries have run out the catch route at position `catchRoute` (the first when
  /// `nil`) takes it, whatever error types the retry and the routes are limited to; a state
  /// with no catch route fails the run.
  case error(catchRoute: Int?)
  /// The attempt times out at once, without waiting: it throws the state's
  /// ``StateTimeoutError``, which the state's retry and catch routes take as they would a
  /// real timeout (their error types apply). The state must have a timeout.
  case timeout
}

/// The error a failure forced by a script throws (``ForcedFailure/error(catchRoute:)``): a
/// catch route's handler receives it, and a run error tells it as its cause.
package struct ScriptedFailure: SelfExplainingError, Sendable {
  /// The name of the state whose attempt failed.
  package let stateName: String
  /// The position of the catch route the failure is for; `nil` for the first.
  package let catchRoute: Int?

  /// `its code failed, as the script forced it to`, a clause for a run error.
  package var description: String {
    "its code failed, as the script forced it to (a failure of \(DisplayText.quoted(name: stateName)) made by the script, not by its code)"
  }
}

/// The choices forced on one state of a scripted chart (see
/// ``Flowchart/scripted(forcing:observer:)``).
package struct ForcedDecision: Sendable {
  /// The choices, one per attempt of the state's code (one per visit, for a state without
  /// retries) in the order the runs of the scripted chart make them; a single choice is
  /// taken at every visit.
  package var choices: [ForcedChoice]
  /// Whether the state's own code still runs, for what it does to the context, before its
  /// decision is replaced; when `false`, the code does not run at all.
  package var runsCode: Bool
  /// Code that runs in place of the state's own, for what it does to the context, before
  /// the forced decision is taken: a `@Sendable (inout Context) throws -> Void` or a
  /// `@Sendable (inout Context) async throws -> Void` over the chart's context. It wins
  /// over ``runsCode``.
  package var replacement: (any Sendable)?
  /// Whether the attempts after the last choice take the last choice again, rather than
  /// being a ``ScriptProblem`` (a single choice is taken at every visit either way): the
  /// tool's `--fail`, after which a state goes on as it would.
  package var repeatsLastChoice = false

  /// Forces `choices`, one per visit, running the state's code first only when `runsCode`
  /// is `true`.
  package init(choices: [ForcedChoice], runsCode: Bool = false, replacement: (any Sendable)? = nil)
  {
    self.choices = choices
    self.runsCode = runsCode
    self.replacement = replacement
  }

  /// Forces `decisions`, one per visit, running the state's code first only when
  /// `runsCode` is `true`.
  package init(_ decisions: [Decision], runsCode: Bool = false) {
    self.init(choices: decisions.map(ForcedChoice.decision), runsCode: runsCode)
  }
}

/// What a script may force on a state with modifiers, for routes: the ways its attempts can
/// fail and where each leads.
package struct ScriptableModifiers: Sendable {
  /// The state's timeout, if any.
  package let timeout: Duration?
  /// How many times a failed attempt is retried; 0 without a retry.
  package let retries: Int
  /// Whether a timed-out attempt is retried (the retry accepts a ``StateTimeoutError``).
  package let retriesTimeouts: Bool
  /// Where each catch route leads, in declaration order.
  package let catchTargets: [StateID]
  /// Whether each catch route, in declaration order, takes only timeouts (it is limited to
  /// ``StateTimeoutError``): only a timeout leads there.
  package let catchesOnlyTimeouts: [Bool]
  /// The position of the first catch route that takes a ``StateTimeoutError``; `nil` when
  /// none does (or there is no timeout).
  package let timeoutCatch: Int?
}

/// What an observer of a scripted chart is told about one state of a run.
package enum ObservedStep: Sendable, Hashable {
  /// The state's code is about to run. A dispatch has no code, so it reports no entry:
  /// its branches' first states report theirs.
  case entered
  /// The state took its exit at this position in its ``StateInfo/exits``. A dispatch
  /// reports its `next` exit after each of its branches' contexts is folded back.
  case tookExit(Int)
  /// The state, a final one, ended its flow with this decision.
  case ended(Decision)
}

/// Why a chart cannot be scripted as asked: a sentence that names the state, says what is
/// wrong and what to do.
package struct ScriptProblem: Error, Sendable, CustomStringConvertible {
  /// The name the script used, or the name of the state it is about.
  package let stateName: String
  /// The problem in full.
  package let message: String

  /// The message.
  package var description: String { message }
}

/// Whether `error` is a script's own problem (the script is wrong, not the state it forces),
/// or a failure one caused in a branch, a subflow or a map's element: no retry, catch route
/// or tolerating policy takes it, so that the run fails at once. Asked only of an error a run
/// already met.
@usableFromInline
func isScriptProblem(_ error: any Error) -> Bool {
  var error = error
  while true {
    if error is ScriptProblem { return true }
    if let failure = error as? MapElementFailure {
      error = failure.error
    } else if let run = error as? RunError, let underlying = run.underlyingError {
      error = underlying
    } else {
      return false
    }
  }
}

extension Flowchart {
  /// The one state named `name`, for a script.
  ///
  /// - Throws: A ``ScriptProblem`` when no state has the name (suggesting a close name, if
  ///   one is declared) or several states have it.
  package func scriptedState(named name: String) throws(ScriptProblem) -> StateID {
    switch graph.names.match(name) {
    case .one(let state):
      return StateID(state)
    case .several(let states):
      let places = states.map { "\(graph.records[Int($0)].location)" }
      throw ScriptProblem(
        stateName: name,
        message:
          "\(counted(states.count, "state")) are named \(DisplayText.quoted(name: name)) (declared at \(places.joined(separator: ", "))), so a script cannot tell which one it means. Rename them so that each name is unique."
      )
    case .none:
      var suggester = Suggester()
      let close = suggester.closestName(to: name, in: graph.records.lazy.map(\.name))
      let hint = close.map { " (did you mean \(DisplayText.quoted(name: $0.name))?)" } ?? ""
      throw ScriptProblem(
        stateName: name,
        message:
          "No state is named \(DisplayText.quoted(name: name)). Use the name of one of the chart's \(counted(graph.records.count, "state"))\(hint)."
      )
    }
  }

  /// A copy of the chart whose states in `forced` decide as told, and whose every state
  /// reports to `observer`, if any, what it did.
  ///
  /// The copy shares the original's declarations and structure; only its nodes are new.
  /// A state forced without its code whose code is asynchronous becomes synchronous, so a
  /// chart whose asynchronous states are all forced runs with
  /// ``runSynchronously(with:stepLimit:)``; an asynchronous replacement makes a state
  /// asynchronous. A forced waiting state takes no value and never parks. A forced state
  /// keeps its retry and catch routes, which take its forced failures; its retry does not
  /// wait between attempts, and its timeout goes unless its own code (or a replacement)
  /// still runs.
  ///
  /// - Throws: A ``ScriptProblem`` when a state cannot make the decision forced on it (a
  ///   yes or no for an action, a key no exit has when there is no default, any decision
  ///   for a dispatch), when a forced failure does not fit it (a timeout without a timeout,
  ///   a catch route it does not have), when a replacement is not code over the chart's
  ///   context, or when an ID is not one of the chart's.
  /// - Complexity: O(*n*) in the number of states.
  package func scripted(
    forcing forced: [StateID: ForcedDecision],
    observer: (@Sendable (StateID, ObservedStep) -> Void)? = nil
  ) throws(ScriptProblem) -> Flowchart<Context> {
    let buffer = NodeBuffer(capacity: graph.records.count)
    for node in graph.nodes { buffer.append(node) }
    var boxes = graph.codeBoxes
    func replace(_ index: Int, with kind: Node.Kind, _ box: any AnyObject & Sendable) {
      buffer[index].kind = kind
      buffer[index].code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
      boxes.append(box)
    }
    for (id, force) in forced.sorted(by: { $0.key < $1.key }) {
      guard graph.records.indices.contains(id.index) else {
        throw ScriptProblem(
          stateName: "\(id)",
          message:
            "A script cannot force \(id): the chart has \(counted(graph.records.count, "state")). Pass an ID from this chart, such as one `state(named:)` returns."
        )
      }
      let node = graph.nodes[id.index]
      if node.kind == .modified {
        // The state's modifiers stay, so that forced failures are retried and caught; only
        // what the forced code cannot need goes (see `scriptedModifiers`).
        let modified = ModifiedCode.of(node)
        var inner = modified.inner
        let (kind, box) = try forcedCode(
          for: id.index, node: inner, force, modifiers: modified.modifiers, observer: observer)
        inner.kind = kind
        inner.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
        boxes.append(box)
        let modifiers = scriptedModifiers(
          modified.modifiers, keepsTimeout: force.runsCode || force.replacement != nil)
        replace(
          id.index, with: .modified,
          ModifiedCode(
            inner: inner, modifiers: modifiers, catchTargets: modified.catchTargets))
      } else {
        let (kind, box) = try forcedCode(
          for: id.index, node: node, force, modifiers: nil, observer: observer)
        replace(id.index, with: kind, box)
      }
      // A forced waiting state takes no value from outside, so it never parks, unless its
      // own code still runs.
      buffer[id.index].waitsForInput = node.waitsForInput && force.runsCode
    }
    var dispatches = graph.dispatches
    if let observer {
      for index in graph.records.indices where forced[StateID(index)] == nil {
        let node = buffer[index]
        if node.kind == .dispatch {
          let plan = Int(node.alternative)
          dispatches[plan].merge = observedMerge(of: index, dispatches[plan], observer)
        } else if node.kind == .modified {
          // Observe each attempt of the state's own code; its modifiers stay.
          let modified = ModifiedCode.of(node)
          var inner = modified.inner
          let (kind, box) = observedCode(for: index, node: inner, observer)
          inner.kind = kind
          inner.code = UnsafeRawPointer(Unmanaged.passUnretained(box).toOpaque())
          boxes.append(box)
          replace(
            index, with: .modified,
            ModifiedCode(
              inner: inner, modifiers: modified.modifiers, catchTargets: modified.catchTargets))
        } else {
          let (kind, box) = observedCode(for: index, node: node, observer)
          replace(index, with: kind, box)
        }
      }
    }
    // Forcing changes which states are asynchronous both ways: forced code without the
    // state's own is synchronous, and an asynchronous replacement makes a state asynchronous.
    var asynchronous: [Int32] = []
    for index in graph.records.indices {
      let node = buffer[index]
      let isAsynchronous: Bool
      if node.kind == .modified {
        // A modified state is asynchronous when its code is, or when its modifiers wait.
        let modified = ModifiedCode.of(node)
        isAsynchronous = modified.inner.kind.suspends || modified.modifiers.waits
      } else {
        isAsynchronous = node.kind.isAsynchronous
      }
      if isAsynchronous { asynchronous.append(Int32(index)) }
    }
    return Flowchart(
      graph: Graph(
        CompiledChart(
          declarations: graph.declarations, nodes: buffer, codeBoxes: boxes,
          dispatches: dispatches, callSites: graph.callSites, records: graph.records,
          exits: graph.exits,
          keyLabels: graph.keyLabels, start: graph.start, entryPoints: graph.entryPoints,
          asynchronousStates: asynchronous, outcomes: graph.outcomes)))
  }
}
