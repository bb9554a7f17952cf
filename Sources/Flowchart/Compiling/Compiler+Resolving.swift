// Pass 2: look names up, and check that every exit leads to a state of its own flow.

extension Compiler {
  /// Looks names up and reports each bad reference once.
  struct Resolver {
    /// The states of the names that `GoTo`s and entry points refer to.
    let names: NameTable
    /// Every state's record, for the names suggestions compare with.
    let records: [StateRecord]
    /// The references already reported. A `GoTo` that ends several blocks is resolved once
    /// per block; it is told apart from other references by its name and its location, so
    /// that two `GoTo`s written on one line are both reported.
    var reported: Set<Reference> = []
    /// Finds "did you mean" suggestions, within a bounded amount of work.
    var suggester = Suggester()
    /// The last name a `GoTo` found, and its state.
    var lastFound: (name: String, state: Int32)?

    /// A name as referenced at one place.
    struct Reference: Hashable {
      var name: String
      var location: SourceLocation
    }

    enum Outcome {
      case found(Int32)
      case unknown
      case ambiguous([Int32])
    }

    func resolve(_ name: String) -> Outcome {
      switch names.match(name) {
      case .none: return .unknown
      case .one(let state): return .found(state)
      case .several(let states): return .ambiguous(states)
      }
    }
  }

  /// Marks a `GoTo` of ``goToTargets`` not resolved yet.
  static var unresolved: Int32 { -2 }

  /// Resolves every exit, the start and the entry points; returns the start, if it is
  /// a state of the top level, and the entry points found.
  mutating func resolve(start startTarget: Target) -> (start: Int32?, entryPoints: [Int32]) {
    var resolver = Resolver(names: nameTable(), records: records)
    for index in states.indices {
      resolveExits(of: index, with: &resolver)
    }
    let start = resolveStart(startTarget, with: &resolver)
    let entryPoints = resolveEntryPoints(with: &resolver)
    // Names are checked even where no arrow takes the `GoTo`.
    for index in goTos.indices {
      _ = target(ofGoTo: Int32(index), with: &resolver)
    }
    fixedArrows = resolveFallbacks()
    return (start, entryPoints)
  }

  /// The table of the states whose names `GoTo`s and entry points refer to.
  ///
  /// A large chart's declarations are no longer in cache here, so it reads the name of a
  /// state only when it could equal some reference: an ASCII name only when its length is
  /// that of an ASCII reference, as long as every reference is ASCII (two ASCII strings
  /// are equal only if their bytes are); a name that is not ASCII always, since equal
  /// strings may differ in bytes (`"Caf\u{E9}"` and `"Cafe\u{301}"`). It hashes each run
  /// of equal `GoTo` names once.
  private func nameTable() -> NameTable {
    var referenced = Set(requestedEntryPoints)
    var previous: String?
    for (index, name) in goToNames.enumerated()
    where name != previous && goToTargets[index] == Self.unresolved {
      referenced.insert(name)
      previous = name
    }
    guard !referenced.isEmpty else { return NameTable([]) }
    // Bit `n` for a length of `n` bytes; bit 63 for 63 bytes or more.
    var lengths: UInt64 = 0
    for name in referenced {
      var name = name
      let isASCII = name.withUTF8 { bytes in bytes.allSatisfy { $0 < 0x80 } }
      // A reference that is not ASCII may equal an ASCII name of any length ("K" and the
      // Kelvin sign): read every name.
      lengths |= isASCII ? 1 << UInt64(min(name.utf8.count, 63)) : .max
    }
    // A few referenced names (the usual case: a shared final state, an entry point or two)
    // are compared with each candidate one by one, which costs less than hashing it: in a
    // chart whose names have the length of a referenced one, hashing them was a tenth of
    // compiling (issue 26). Candidates are taken in ID order either way.
    let names = referenced.count <= Self.namesComparedOneByOne ? Array(referenced) : nil
    var entries: [(name: String, state: Int32)] = []
    for index in states.indices {
      let state = states[index]
      guard !state.isASCII || lengths & (1 << UInt64(min(Int(state.nameLength), 63))) != 0
      else { continue }
      let name = records[index].name
      guard names?.contains(name) ?? referenced.contains(name) else { continue }
      entries.append((name, Int32(index)))
    }
    return NameTable(entries: entries)
  }

  /// The most referenced names ``nameTable()`` compares with each candidate rather than
  /// look up in a set.
  private static var namesComparedOneByOne: Int { 4 }

  /// The state the `index`-th walked `GoTo` leads to, or ``Node/none``: resolved on first
  /// use, so that bad names are reported in the order arrows use them, and once per `GoTo`
  /// however many arrows it ends. A run of `GoTo`s to one name, such as many branches
  /// ending at a shared final state, is looked up once.
  mutating func target(ofGoTo index: Int32, with resolver: inout Resolver) -> Int32 {
    let known = goToTargets[Int(index)]
    guard known == Self.unresolved else { return known }
    let name = goToNames[Int(index)]
    var target = Node.none
    if let found = resolver.lastFound, found.name == name {
      target = found.state
    } else if case .found(let state) = resolver.resolve(name) {
      target = state
      resolver.lastFound = (name, state)
    } else {
      // Only a bad name needs the GoTo's location, which means reading its declaration.
      var fix = Fix.anywhere
      _ = resolveName(
        name, at: location(ofGoTo: index),
        referrer: isCatchRoute(goTo: index) ? .catchRoute : .goTo, with: &resolver, fix: &fix)
      goToFixes[index] = fix
    }
    goToTargets[Int(index)] = target
    return target
  }

  /// Where the `index`-th walked `GoTo` was declared.
  func location(ofGoTo index: Int32) -> SourceLocation {
    goTos[Int(index)]._withUnsafeGuaranteedRef { $0.location }
  }

  /// Looks `name` up; reports it once when it names no state or several, and sets `fix`
  /// to where it would lead once fixed.
  private mutating func resolveName(
    _ name: String, at location: SourceLocation, referrer: Referrer,
    with resolver: inout Resolver, fix: inout Fix
  ) -> Int32? {
    switch resolver.resolve(name) {
    case .found(let target):
      return target
    case .unknown:
      let isNew = resolver.reported.insert(Resolver.Reference(name: name, location: location))
        .inserted
      // A suggestion compares the name with every declared name, within a bounded budget.
      let suggestion =
        isNew
        ? resolver.suggester.closestName(to: name, in: resolver.records.lazy.map(\.name)) : nil
      if let suggestion {
        fix = .states([Int32(suggestion.offset)])
      } else {
        fix = .anywhere
      }
      if isNew {
        findings.append(
          .unknownName(referrer, name: name, location: location, suggestion: suggestion?.name))
      }
      return nil
    case .ambiguous(let matches):
      fix = .states(matches)
      if resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted {
        let lines = matches.map { records[Int($0)].location.line }.sorted()
        findings.append(.ambiguousName(referrer, name: name, location: location, lines: lines))
      }
      return nil
    }
  }

  /// `target`, with a block replaced by its entry.
  func entry(_ target: Target) -> Target {
    guard case .block(let block) = target else { return target }
    return blockEntries[Int(block)]
  }

  private mutating func resolveExits(of index: Int, with resolver: inout Resolver) {
    let flow = states[index].flow
    for position in exitRange(of: index) {
      let exit = exits[position]
      switch entry(exitTargets[position]) {
      case .state(let target):
        exits[position].target = target
      case .block:
        preconditionFailure("a block's entry is never a block")
      case .broken:
        break  // Reported already.
      case .end:
        reportNowhere(index, exit.label)
      case .name(let goTo):
        // A branch's entry is written inside the branch: a GoTo there belongs to its flow.
        var flow = flow
        if case .branch(let branch) = exit.label, let first = firstBranchFlow[Int32(index)] {
          flow = first + Int32(branch)
        }
        let target = self.target(ofGoTo: goTo, with: &resolver)
        guard target != Node.none else {
          // Reported when resolving the GoTo; where it would lead once fixed:
          fallbacks.append((Int32(index), .name(goTo), flow))
          continue
        }
        if states[Int(target)].flow != flow {
          reportCrossing(goTo: goTo, from: flow, to: target, fromStart: false, with: &resolver)
          continue
        }
        exits[position].target = target
      }
    }
  }

  private mutating func reportCrossing(
    goTo: Int32, from flow: Int32, to target: Int32, fromStart: Bool,
    with resolver: inout Resolver
  ) {
    let (name, location) = (goToNames[Int(goTo)], self.location(ofGoTo: goTo))
    // Moving the state into the flow would fix it: the state is then reached.
    excusedRoots.append(target)
    guard resolver.reported.insert(Resolver.Reference(name: name, location: location)).inserted
    else { return }
    findings.append(
      .crossesBranchBoundary(
        name: name, location: location, from: facts(ofFlow: flow),
        to: facts(ofFlow: states[Int(target)].flow), fromStart: fromStart))
  }

  private mutating func reportNowhere(_ index: Int, _ label: StoredExit.Label) {
    let state = facts(ofState: index)
    let flow = facts(ofFlow: states[index].flow)
    switch label {
    case .next:
      findings.append(.lastStateNotFinal(state, flow: flow))
    case .yes, .no, .default, .key, .branch:
      findings.append(
        .emptyExit(state, exit: "\(label.label(keyLabels: keyLabels))", flow: flow))
    }
  }

  private mutating func resolveStart(_ target: Target, with resolver: inout Resolver) -> Int32? {
    switch entry(target) {
    case .state(let index): return index
    case .block: preconditionFailure("a block's entry is never a block")
    case .end, .broken: return nil
    case .name(let goTo):
      let index = self.target(ofGoTo: goTo, with: &resolver)
      guard index != Node.none else { return nil }  // Reported when resolving the GoTo.
      let flow = states[Int(index)].flow
      guard flow == 0 else {
        reportCrossing(goTo: goTo, from: 0, to: index, fromStart: true, with: &resolver)
        return nil
      }
      return index
    }
  }

  private mutating func resolveEntryPoints(with resolver: inout Resolver) -> [Int32] {
    var result: [Int32] = []
    for name in requestedEntryPoints {
      var unique = Resolver(names: resolver.names, records: resolver.records)
      unique.suggester = resolver.suggester
      var fix = Fix.anywhere
      let index = resolveName(name, at: location, referrer: .entryPoint, with: &unique, fix: &fix)
      resolver.suggester = unique.suggester
      guard let index else {
        switch fix {
        case .states(let states): excusedRoots += states
        case .anywhere: excusedFlows.insert(0)
        }
        continue
      }
      if states[Int(index)].flow != 0 {
        findings.append(
          .entryPointInBranch(
            name: name, chart: location, flow: facts(ofFlow: states[Int(index)].flow)))
        continue
      }
      if !result.contains(index) { result.append(index) }
    }
    return result
  }

  /// The arrows that fixing each reported mistake would add, resolved without reporting
  /// anything more, for pass 3.
  private mutating func resolveFallbacks() -> [(from: Int32, to: Int32)] {
    var arrows: [(from: Int32, to: Int32)] = []
    for (state, target, flow) in fallbacks {
      var targets: [Int32] = []
      switch entry(target) {
      case .state(let index):
        targets = [index]
      case .block:
        preconditionFailure("a block's entry is never a block")
      case .end, .broken:
        break
      case .name(let goTo):
        let index = goToTargets[Int(goTo)]
        if index >= 0 {
          targets = [index]
        } else {
          switch goToFixes[goTo] {
          case .states(let fixed): targets = fixed
          case .anywhere: excusedFlows.insert(flow)
          case nil: break  // A GoTo no arrow takes: reported as such.
          }
        }
      }
      for index in targets where states[Int(index)].flow == flow {
        arrows.append((state, index))
      }
    }
    return arrows
  }
}
