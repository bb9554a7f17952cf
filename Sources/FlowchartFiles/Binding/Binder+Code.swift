// The binder's state code: each state's handler, found by name in the registry (or its
// fallback), or overridden for the state, or made from the built-in data (stores, values,
// waits' paths); a missing or mismatched name is recorded as a problem, with a close name
// suggested.

import Flowchart

extension Binder {
  /// The handler for `request`: an override for its state, a registered one, or the
  /// fallback's; `nil` (and a problem recorded) when there is none of the right kind.
  mutating func handler(_ request: HandlerRequest, what: String) -> Handler<Context>? {
    let found = handlers.handlers[request.name] ?? handlers.fallback?(request)
    guard let found else {
      problems.add(
        .unboundName,
        "\(what) '\(request.stateName)' names the \(request.kind) '\(request.name)', which is not registered. Register it (handlers[\"\(request.name)\"] = \(request.kind.registrationExample)), or fix the name\(suggestion(for: request)).",
        at: request.location, name: request.stateName)
      return nil
    }
    guard found.kind == request.kind else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(request.stateName)' names '\(request.name)' as its \(request.kind), but '\(request.name)' is registered as \(article(found.kind.rawValue)) \(found.kind). Name a registered \(request.kind), or register one under another name.",
        at: request.location, name: request.stateName)
      return nil
    }
    return found
  }

  /// ` (did you mean 'x'?)` when a registered handler of the kind has a close name.
  func suggestion(for request: HandlerRequest) -> String {
    let candidates = handlers.handlers.filter { $0.value.kind == request.kind }.keys.sorted()
    let limit = max(1, request.name.count / 3)
    let best =
      candidates
      .map { ($0, editDistance($0, request.name)) }
      .filter { $0.1 <= limit || ($0.0.hasPrefix(request.name) && request.name.count >= 3) }
      .min { $0.1 < $1.1 }
    return best.map { " (did you mean '\($0.0)'?)" } ?? ""
  }

  /// The code state `stateName` runs: its override when it has one of the right kind, else
  /// the handler `name` of `kind` (see ``handler(_:what:)``); `nil` when there is neither
  /// (each problem recorded).
  mutating func boundHandler(
    _ kind: HandlerKind, named name: String?, for stateName: String, what: String,
    at location: SourceLocation
  ) -> Handler<Context>? {
    if let found = override(stateName, kind: kind, what: what, at: location) { return found }
    guard let name else { return nil }
    return handler(
      HandlerRequest(kind: kind, name: name, stateName: stateName, location: location),
      what: what)
  }

  /// The override for the state, if its kind is right.
  mutating func override(
    _ name: String, kind: HandlerKind, what: String, at location: SourceLocation
  )
    -> Handler<Context>?
  {
    guard let override = handlers.overrides[name] else { return nil }
    guard override.kind == kind else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(name)' is overridden with \(article(override.kind.rawValue)) \(override.kind), not \(article(kind.rawValue)) \(kind).",
        at: location, name: name)
      return nil
    }
    return override
  }

  mutating func dataAccess(for what: String, _ name: String, at location: SourceLocation)
    -> DataAccess<Context>?
  {
    guard let data = handlers.data else {
      problems.add(
        .mismatchedHandler,
        "\(what) '\(name)' uses the built-in data, but the context \(Context.self) is not a ChartValue. Create the registry with HandlerRegistry(data: \\.yourChartValue), or bind a handler instead.",
        at: location, name: name)
      return nil
    }
    return data
  }

  mutating func actionDeclaration(_ action: ChartAction, at location: SourceLocation)
    -> Declaration<Context>
  {
    let handler = boundHandler(
      .action, named: action.handler, for: action.name, what: "Action", at: location)
    var store: (@Sendable (inout Context) -> Void)?
    if !action.stores.isEmpty, let data = dataAccess(for: "Action", action.name, at: location) {
      let stores = action.stores.map { ($0.path, $0.value) }
      store = { context in
        var value = data.read(context)
        for (path, stored) in stores { value[path: path] = stored }
        data.write(&context, value)
      }
    }
    let (name, isFinal) = (action.name, action.isFinal)
    if let message = action.failure {
      let failure = ChartFailure(stateName: name, message: message)
      let store = store
      switch handler?.code {
      case .asyncAction(let perform)?:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) async throws in
          store?(&context)
          try await perform(&context)
          throw failure
        }
      case .action(let perform)?:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) throws in
          store?(&context)
          try perform(&context)
          throw failure
        }
      default:
        return Lowering.action(name, isFinal: isFinal, at: location) {
          (context: inout Context) throws in
          store?(&context)
          throw failure
        }
      }
    }
    switch (handler?.code, store) {
    case (.action(let perform)?, let store?):
      return Lowering.action(name, isFinal: isFinal, at: location) { context in
        store(&context)
        try perform(&context)
      }
    case (.action(let perform)?, nil):
      return Lowering.action(name, isFinal: isFinal, at: location, perform)
    case (.asyncAction(let perform)?, let store):
      return Lowering.action(name, isFinal: isFinal, at: location) { context in
        store?(&context)
        try await perform(&context)
      }
    case (_, let store?):
      return Lowering.action(name, isFinal: isFinal, at: location, store)
    case (_, nil):
      return Lowering.action(name, isFinal: isFinal, at: location)
    }
  }

  mutating func conditionCode(_ condition: ChartCondition, at location: SourceLocation)
    -> Lowering<Context>.Decide<Bool>
  {
    var name: String?
    if case .handler(let handler) = condition.decision { name = handler }
    let handler = boundHandler(
      .condition, named: name, for: condition.name, what: "Condition", at: location)
    if handler == nil, case .test(let test) = condition.decision {
      guard let data = dataAccess(for: "Condition", condition.name, at: location),
        let evaluate = compile(test)
      else { return .synchronous { _ in false } }
      return .synchronous { evaluate(data.read($0)) }
    }
    switch handler?.code {
    case .condition(let decide)?: return .synchronous(decide)
    case .asyncCondition(let decide)?: return .asynchronous(decide)
    default: return .synchronous { _ in false }
    }
  }

  mutating func keyCode(_ condition: ChartMultipleCondition, at location: SourceLocation)
    -> Lowering<Context>.Decide<String>
  {
    var name: String?
    if case .handler(let handler) = condition.decision { name = handler }
    let handler = boundHandler(
      .multipleCondition, named: name, for: condition.name, what: "Multiple condition",
      at: location)
    if handler == nil, case .value(let path) = condition.decision {
      guard let data = dataAccess(for: "Multiple condition", condition.name, at: location)
      else { return .synchronous { _ in "" } }
      return .synchronous { (data.read($0)[path: path] ?? .null).keyText }
    }
    switch handler?.code {
    case .multipleCondition(let decide)?: return .synchronous(decide)
    case .asyncMultipleCondition(let decide)?: return .asynchronous(decide)
    default: return .synchronous { _ in "" }
    }
  }

  mutating func mergeCode(_ dispatch: ChartDispatch, at location: SourceLocation)
    -> (@Sendable (inout Context, Context, Context) throws -> Void)?
  {
    guard let name = dispatch.merge else { return nil }
    let handler = self.handler(
      HandlerRequest(kind: .merge, name: name, stateName: dispatch.name, location: location),
      what: "Dispatch")
    if case .merge(let merge)? = handler?.code { return merge }
    return nil
  }

  mutating func waitDeclaration(_ wait: ChartWait, at location: SourceLocation)
    -> Declaration<Context>
  {
    switch wait.input {
    case .handler(let name):
      let request = HandlerRequest(
        kind: .input, name: name, stateName: wait.name, location: location)
      if case .input(let declare)? = handler(request, what: "Wait")?.code {
        return declare(wait.name, wait.isFinal, location)
      }
    case .store(let path):
      if let data = dataAccess(for: "Wait", wait.name, at: location) {
        return Lowering.wait(wait.name, isFinal: wait.isFinal, at: location, for: ChartValue.self) {
          context, input in
          var value = data.read(context)
          value[path: path] = input
          data.write(&context, value)
        }
      }
    }
    return Lowering.wait(wait.name, isFinal: wait.isFinal, at: location, for: ChartValue.self) {
      _, _ in
    }
  }
}

extension Binder {
  /// A delay: for its seconds, or until the RFC 3339 time at its path of the data (a
  /// data-only chart's context), which a run reads when it enters the state.
  mutating func delayDeclaration(_ delay: ChartDelay, at location: SourceLocation)
    -> Declaration<Context>
  {
    let (name, isFinal) = (delay.name, delay.isFinal)
    switch delay.timing {
    case .seconds(let seconds):
      return Lowering.one(
        Delay(
          name, for: .seconds(seconds), isFinal: isFinal, fileID: location.fileID,
          line: location.line))
    case .until(let path):
      guard let data = dataAccess(for: "Delay", name, at: location) else {
        return Lowering.one(
          Delay(name, for: .zero, isFinal: isFinal, fileID: location.fileID, line: location.line))
      }
      return Lowering.one(
        Delay(
          name, untilTimeAt: path, isFinal: isFinal, fileID: location.fileID, line: location.line
        ) { context in
          let value = data.read(context)[path: path]
          guard case .string(let text)? = value, let time = WallClockTime(rfc3339: text) else {
            throw DelayTimeMissing(path: path, value: value)
          }
          return time
        })
    }
  }
}

/// What a chart file's delay throws when its data holds no RFC 3339 time at its path: a
/// clause of its own, so the run error tells it as its cause.
struct DelayTimeMissing: SelfExplainingError {
  let path: String
  let value: ChartValue?

  var description: String {
    "it waits until the time at '\(path)' of the data, which holds \(value.map { "\($0)" } ?? "nothing"), not an RFC 3339 time such as \"2026-01-04T00:00:00Z\": store the time there before the delay"
  }
}

/// The number of single-character edits that turn `a` into `b`.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.unicodeScalars)
  let b = Array(b.unicodeScalars)
  guard !a.isEmpty else { return b.count }
  guard !b.isEmpty else { return a.count }
  var previous = Array(0...b.count)
  var current = [Int](repeating: 0, count: b.count + 1)
  for i in 1...a.count {
    current[0] = i
    for j in 1...b.count {
      current[j] = min(
        previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    swap(&previous, &current)
  }
  return previous[b.count]
}
