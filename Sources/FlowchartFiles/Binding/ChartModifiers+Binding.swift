import Flowchart

/// A lowered declaration as a ``FlowComponent``, so that the DSL's modifier methods apply to
/// it.
struct LoweredState<Context: Sendable>: FlowComponent {
  let declaration: Declaration<Context>
}

extension Binder {
  /// The error names every chart knows without registering them: `timeout` (a
  /// `StateTimeoutError`) and `failure` (a ``ChartFailure``, a built-in `fail`'s error).
  static func builtInErrors(_ name: String) -> (@Sendable (any Error) -> Bool)? {
    switch name {
    case "timeout": { $0 is StateTimeoutError }
    case "failure": { $0 is ChartFailure }
    default: nil
    }
  }

  /// The filter `name` names: a registered error filter, else a built-in one; `nil` (and a
  /// problem recorded) when there is none.
  mutating func errorFilter(
    _ name: String, state: String, at location: SourceLocation
  ) -> (@Sendable (any Error) -> Bool)? {
    if handlers.handlers[name] == nil, let builtIn = Self.builtInErrors(name) { return builtIn }
    let request = HandlerRequest(
      kind: .errorFilter, name: name, stateName: state, location: location)
    if case .errorFilter(let accepts)? = handler(request, what: "State")?.code { return accepts }
    return nil
  }

  /// `declaration` with the file's timeout, retry and catch routes.
  mutating func modified(
    _ declaration: Declaration<Context>, with modifiers: ChartModifiers, of node: ChartNode
  ) -> Declaration<Context> {
    let state = node.stateName ?? ""
    let at = node.location
    var declaration = declaration
    if let timeout = modifiers.timeout {
      declaration =
        LoweredState(declaration: declaration)
        .timeout(.seconds(timeout), fileID: at.fileID, line: at.line).declaration
    }
    if let retry = modifiers.retry {
      var filter: @Sendable (any Error) -> Bool = { _ in true }
      if let name = retry.errors, let named = errorFilter(name, state: state, at: retry.location) {
        filter = named
      }
      declaration =
        LoweredState(declaration: declaration)
        .retry(
          retry.count, backoff: retry.backoff.backoff, if: filter, fileID: retry.location.fileID,
          line: retry.location.line
        ).declaration
    }
    for route in modifiers.catches {
      var filter: @Sendable (any Error) -> Bool = { _ in true }
      if let name = route.errors, let named = errorFilter(name, state: state, at: route.location) {
        filter = named
      }
      var handle: @Sendable (inout Context, any Error) -> Void = { _, _ in }
      if let path = route.storeAt {
        if let data = dataAccess(for: "State", state, at: route.location) {
          handle = { context, error in
            var value = data.read(context)
            value[path: path] = .string(String(describing: error))
            data.write(&context, value)
          }
        }
      } else if let name = route.handler {
        let request = HandlerRequest(
          kind: .catchHandler, name: name, stateName: state, location: route.location)
        if case .catchHandler(let registered)? = handler(request, what: "State")?.code {
          handle = registered
        }
      }
      declaration = declaration.addingCatch(
        goTo: route.target, at: route.location, errorName: route.errors, if: filter, handle)
    }
    return declaration
  }
}

extension HandlerRegistry {
  /// Registers the errors of type `type` under the type's name (`"NetworkError"`), so that a
  /// file's `retry` and `catch` routes can name them by type: the same as
  /// `handlers["NetworkError"] = .errors(NetworkError.self)`.
  ///
  /// ```swift
  /// handlers.registerErrors(NetworkError.self)
  /// // {"catch": [{"goTo": "Offline", "errors": "NetworkError"}]}
  /// ```
  public mutating func registerErrors<Failure: Error>(_ type: Failure.Type) {
    self[String(describing: type)] = .errors(type)
  }
}
