/// Hooks for front ends of this package that declare charts from elsewhere than Swift source,
/// such as files (the FlowchartFiles module): they place a declaration at a location with a
/// column, and gather their own problems into a ``DefinitionError``. The DSL's own
/// initializers, locations and messages do not use them.

extension Declaration {
  /// This declaration, placed at `location`: a state or a `GoTo` with the same name, flags,
  /// code and blocks, declared at `location`.
  package func located(at location: SourceLocation) -> Declaration {
    switch node {
    case .state(let state):
      Declaration(.state(state.relocated(to: location)))
    case .goTo(let goTo):
      Declaration(.goTo(GoToDeclaration(name: goTo.name, location: location)))
    }
  }
}

extension Branch {
  /// This branch, placed at `location`.
  package func located(at location: SourceLocation) -> Branch {
    Branch(relocating: self, to: location)
  }

  private init(relocating branch: Branch, to location: SourceLocation) {
    declaration = BranchDeclaration(
      name: branch.declaration.name, prerequisites: branch.declaration.prerequisites,
      location: location, body: branch.declaration.body)
  }
}

extension Case {
  /// This exit, placed at `location`.
  package func located(at location: SourceLocation) -> Case {
    Case(relocating: self, to: location)
  }

  private init(relocating exit: Case, to location: SourceLocation) {
    self.exit = KeyedExit(key: exit.exit.key, location: location, body: exit.exit.body)
  }
}

extension Default {
  /// This exit, placed at `location`.
  package func located(at location: SourceLocation) -> Default {
    Default(relocating: self, to: location)
  }

  private init(relocating exit: Default, to location: SourceLocation) {
    self.location = location
    body = exit.body
  }
}

extension DefinitionError {
  /// An error of `problems`, about the chart at `location`, for a front end that finds
  /// problems of its own. The problems are kept in the order given.
  package init(collecting problems: [Problem], at location: SourceLocation) {
    self.init(problems: problems, location: location)
  }
}

extension DefinitionError.Problem {
  /// A problem found by a front end: `message` is a full sentence, worded for its source.
  package init(
    _ kind: DefinitionError.Kind, name: String?, at location: SourceLocation, message: String
  ) {
    self.init(kind: kind, name: name, location: location, message: message)
  }
}

extension Declaration {
  /// This state with one more catch route, written at `location` (a column included): to
  /// `target`, for the errors `filter` accepts, shown as `errorName`; `handle` stores what
  /// the target needs. What `.catch(goTo:_:)` adds, for a front end whose errors are named
  /// rather than typed. A `GoTo` is returned unchanged.
  package func addingCatch(
    goTo target: String, at location: SourceLocation, errorName: String?,
    if filter: @escaping @Sendable (any Error) -> Bool,
    _ handle: @escaping @Sendable (inout Context, any Error) -> Void
  ) -> Declaration {
    guard case .state(let state) = node else { return self }
    var values = ModifierValues(state.modifiers)
    values.catches.append(
      CatchRoute(
        target: GoToDeclaration(name: target, location: location), filter: filter,
        errorType: errorName, handler: CatchHandlerBox(handle)))
    return Declaration(.state(state.modified(with: StateModifiers(values))))
  }
}
