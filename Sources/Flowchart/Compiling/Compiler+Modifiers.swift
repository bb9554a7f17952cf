// Modifiers across the passes: pass 1 notes each modified state and lists its catch routes
// with the `GoTo`s, so that pass 2 looks their names up like any arrow's; pass 2 checks that
// each route stays in its flow and counts it as an arrow for pass 3's reachability; pass 4
// points the state's node at a ``ModifiedCode`` that holds the node it would have had.

extension Compiler {
  /// A state with modifiers, as the passes carry it.
  struct ModifiedEntry {
    var state: Int32
    var flow: Int32
    /// Where the state's catch routes are in ``Compiler/goTos``, one after another.
    var firstRoute: Int32
    var modifiers: StateModifiers
    /// The state each catch route leads to, once resolved; ``Node/none`` for a bad one.
    var targets: [Int32] = []
  }

  /// Pass 1: notes the modifiers of `state`, numbered `id`, and reports those that cannot
  /// apply.
  mutating func note(
    _ modifiers: StateModifiers, of state: StateDeclaration, id: Int32, flow: Int32
  ) {
    for problem in modifiers.problems {
      findings.append(.invalidModifier(facts(state), problem: problem))
    }
    if case .branches = state.body {
      findings.append(
        .invalidModifier(
          facts(state),
          problem:
            "has modifiers, which a dispatch does not take: its branches run the code. Put the timeout, retries or catch routes on the states of its branches, and tolerate a branch's failure with a join policy."
        ))
      return
    }
    let first = Int32(goTos.count)
    for route in modifiers.catches {
      // The modifiers hold the route, and the declaration holds the modifiers.
      goTos.append(Unmanaged.passUnretained(route.target))
      goToNames.append(route.target.name)
      goToTargets.append(Self.unresolved)
    }
    modifiedStates.append(
      ModifiedEntry(state: id, flow: flow, firstRoute: first, modifiers: modifiers))
  }

  /// Whether the `index`-th of ``goTos`` is a catch route: for the wording of a bad name.
  func isCatchRoute(goTo index: Int32) -> Bool {
    modifiedStates.contains {
      index >= $0.firstRoute && index < $0.firstRoute + Int32($0.modifiers.catches.count)
    }
  }

  /// Pass 2, once every name is resolved: checks that each catch route leads to a state of
  /// its own flow, and adds it to the arrows pass 3 follows, so its target is reachable.
  mutating func resolveCatchRoutes() {
    for position in modifiedStates.indices {
      let entry = modifiedStates[position]
      var targets: [Int32] = []
      for offset in entry.modifiers.catches.indices {
        let goTo = entry.firstRoute + Int32(offset)
        let target = goToTargets[Int(goTo)]
        guard target >= 0 else {
          // Reported when resolving the name; where it would lead once fixed:
          switch goToFixes[goTo] {
          case .states(let fixed):
            for state in fixed where states[Int(state)].flow == entry.flow {
              fixedArrows.append((entry.state, state))
            }
          case .anywhere: excusedFlows.insert(entry.flow)
          case nil: break
          }
          targets.append(Node.none)
          continue
        }
        let targetFlow = states[Int(target)].flow
        guard targetFlow == entry.flow else {
          excusedRoots.append(target)
          findings.append(
            .catchCrossesBranchBoundary(
              facts(ofState: Int(entry.state)), name: goToNames[Int(goTo)],
              location: location(ofGoTo: goTo), from: facts(ofFlow: entry.flow),
              to: facts(ofFlow: targetFlow)))
          targets.append(Node.none)
          continue
        }
        fixedArrows.append((entry.state, target))
        targets.append(target)
      }
      modifiedStates[position].targets = targets
    }
  }

  /// Pass 4, once every node is complete: gives each modified state's node the kind
  /// ``CodeKind/modified`` and a ``ModifiedCode`` holding the node it had, which the chart
  /// keeps alive. A state whose modifiers wait (a timeout, a retry delay) counts as
  /// asynchronous: a synchronous run has no clock.
  mutating func attachModifiers() {
    for entry in modifiedStates {
      let index = Int(entry.state)
      let inner = nodes[index]
      let code = ModifiedCode(
        inner: inner, modifiers: entry.modifiers, catchTargets: entry.targets)
      var node = inner
      node.kind = .modified
      node.code = UnsafeRawPointer(Unmanaged.passUnretained(code).toOpaque())
      codeBoxes.append(code)
      nodes[index] = node
      if entry.modifiers.waits && !inner.kind.suspends { asynchronousStates.append(entry.state) }
    }
  }
}
