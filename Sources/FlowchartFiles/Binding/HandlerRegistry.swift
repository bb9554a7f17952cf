import Flowchart

/// One piece of your code a chart file can name: an action, a condition, a multiple condition
/// or a dispatch's merge, synchronous or `async`, typed on the chart's context; or the part of
/// the context a subflow or a map runs its chart on.
///
/// ```swift
/// handlers["fetchConfig"] = .action { context in context.config = try await api.config() }
/// handlers["isSignedIn"] = .condition { $0.user != nil }
/// handlers["plan"] = .multipleCondition { $0.plan.rawValue }
/// handlers["keepProfile"] = .merge { context, branch in context.profile = branch.profile }
/// handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers)
/// handlers["photos"] = .collection(over: \.photos, into: \.uploaded, handlers: photoHandlers)
/// ```
public struct Handler<Context: Sendable>: Sendable {
  enum Code: Sendable {
    case action(@Sendable (inout Context) throws -> Void)
    case asyncAction(@Sendable (inout Context) async throws -> Void)
    case condition(@Sendable (inout Context) throws -> Bool)
    case asyncCondition(@Sendable (inout Context) async throws -> Bool)
    case multipleCondition(@Sendable (inout Context) throws -> String)
    case asyncMultipleCondition(@Sendable (inout Context) async throws -> String)
    case merge(@Sendable (inout Context, Context, Context) throws -> Void)
    /// Declares a waiting state that applies its typed input: given the state's name, its
    /// finality and its location.
    case input(@Sendable (String, Bool, SourceLocation) -> Declaration<Context>)
    case errorFilter(@Sendable (any Error) -> Bool)
    case catchHandler(@Sendable (inout Context, any Error) -> Void)
    /// Binds a subflow's chart with the registry of its context, and declares the subflow.
    case mapping(SubflowBinding<Context>)
    /// Binds a map's chart with the registry of its elements, and declares the map.
    case collection(MapBinding<Context>)
  }

  let code: Code

  /// What kind of handler this is.
  public var kind: HandlerKind {
    switch code {
    case .action, .asyncAction: .action
    case .condition, .asyncCondition: .condition
    case .multipleCondition, .asyncMultipleCondition: .multipleCondition
    case .merge: .merge
    case .input: .input
    case .errorFilter: .errorFilter
    case .catchHandler: .catchHandler
    case .mapping: .mapping
    case .collection: .collection
    }
  }

  /// Whether the handler is `async`.
  public var isAsynchronous: Bool {
    switch code {
    case .asyncAction, .asyncCondition, .asyncMultipleCondition: true
    case .action, .condition, .multipleCondition, .merge, .input, .errorFilter, .catchHandler,
      .mapping, .collection:
      false
    }
  }

  /// Synchronous work for an action.
  public static func action(_ perform: @escaping @Sendable (inout Context) throws -> Void) -> Self {
    Self(code: .action(perform))
  }

  /// Asynchronous work for an action.
  public static func action(
    _ perform: @escaping @Sendable (inout Context) async throws -> Void
  ) -> Self {
    Self(code: .asyncAction(perform))
  }

  /// A synchronous decision for a condition: `true` follows `yes`.
  public static func condition(
    _ decide: @escaping @Sendable (inout Context) throws -> Bool
  ) -> Self {
    Self(code: .condition(decide))
  }

  /// An asynchronous decision for a condition.
  public static func condition(
    _ decide: @escaping @Sendable (inout Context) async throws -> Bool
  ) -> Self {
    Self(code: .asyncCondition(decide))
  }

  /// A synchronous decision for a multiple condition: the key of the exit to follow.
  public static func multipleCondition(
    _ decide: @escaping @Sendable (inout Context) throws -> String
  ) -> Self {
    Self(code: .multipleCondition(decide))
  }

  /// An asynchronous decision for a multiple condition.
  public static func multipleCondition(
    _ decide: @escaping @Sendable (inout Context) async throws -> String
  ) -> Self {
    Self(code: .asyncMultipleCondition(decide))
  }

  /// A dispatch's merge: folds one branch's context into the running context (see
  /// `Dispatch`).
  public static func merge(
    _ merge: @escaping @Sendable (_ context: inout Context, _ branch: Context) throws -> Void
  ) -> Self {
    Self(code: .merge({ context, branch, _ in try merge(&context, branch) }))
  }

  /// A dispatch's merge that also receives the context as it was before the dispatch.
  public static func merge(
    _ merge:
      @escaping @Sendable (_ context: inout Context, _ branch: Context, _ original: Context)
      throws -> Void
  ) -> Self {
    Self(code: .merge(merge))
  }

  /// Which errors a retry retries or a catch route catches (`"errors": "…"`,
  /// `errors="…"`).
  ///
  /// ```swift
  /// handlers["offline"] = .errors { ($0 as? URLError)?.code == .notConnectedToInternet }
  /// ```
  public static func errors(_ accepts: @escaping @Sendable (any Error) -> Bool) -> Self {
    Self(code: .errorFilter(accepts))
  }

  /// The errors of type `type`, for a retry or a catch route.
  ///
  /// ```swift
  /// handlers["networkError"] = .errors(NetworkError.self)
  /// ```
  public static func errors<Failure: Error>(_ type: Failure.Type) -> Self {
    Self(code: .errorFilter { $0 is Failure })
  }

  /// What a catch route stores in the context before it goes to its target (`"run": "…"`
  /// of a catch route).
  ///
  /// ```swift
  /// handlers["noteFailure"] = .catch { context, error in context.failure = "\(error)" }
  /// ```
  public static func `catch`(
    _ handle: @escaping @Sendable (_ context: inout Context, _ error: any Error) -> Void
  ) -> Self {
    Self(code: .catchHandler(handle))
  }

  /// How a waiting state applies the value a live run is sent (see `Wait`): a chart file's
  /// `wait` with `run` naming this handler waits for a value of type `Input`.
  ///
  /// ```swift
  /// handlers["addPhoto"] = .input(Photo.self) { order, photo in order.photos.append(photo) }
  /// ```
  public static func input<Input: Sendable>(
    _ type: Input.Type,
    _ apply: @escaping @Sendable (_ context: inout Context, _ input: Input) throws -> Void
  ) -> Self {
    Self(
      code: .input { name, isFinal, location in
        Lowering<Context>.wait(name, isFinal: isFinal, at: location, for: type, apply)
      })
  }
}

/// The kinds of ``Handler``.
public enum HandlerKind: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
  /// Work for an action (`run` of an action).
  case action
  /// A yes-or-no decision (`run` of a condition).
  case condition
  /// A key decision (`run` of a multiple condition).
  case multipleCondition
  /// A dispatch's merge (`merge` of a dispatch).
  case merge
  /// How a waiting state applies its input (`run` of a wait).
  case input
  /// Which errors a retry or a catch route takes (`errors` of a retry or a catch).
  case errorFilter
  /// What a catch route stores before it goes on (`run` of a catch).
  case catchHandler
  /// The part of the context a subflow runs its chart on (`mapping` of a subflow).
  case mapping
  /// The elements a map runs its chart on, and where their results go (`over` of a map).
  case collection

  /// The kind in words: `action`, `condition`, `multiple condition`, `merge`.
  public var description: String {
    switch self {
    case .action: "action"
    case .condition: "condition"
    case .multipleCondition: "multiple condition"
    case .merge: "merge"
    case .input: "input"
    case .errorFilter: "error filter"
    case .catchHandler: "catch handler"
    case .mapping: "mapping"
    case .collection: "collection"
    }
  }
}

extension HandlerKind {
  /// The name of the ``Handler`` function that makes a handler of the kind.
  var registration: String {
    switch self {
    case .errorFilter: "errors"
    case .catchHandler: "catch"
    case .action, .condition, .multipleCondition, .merge, .input, .mapping, .collection: rawValue
    }
  }

  /// How a registration of the kind is written: `.condition { … }`,
  /// `.mapping(.keyPath(\.…), handlers: …)`.
  var registrationExample: String {
    switch self {
    case .mapping: ".mapping(.keyPath(\\.…), handlers: …)"
    case .collection: ".collection(over: \\.…, handlers: …)"
    case .action, .condition, .multipleCondition, .merge, .input, .errorFilter, .catchHandler:
      ".\(registration) { … }"
    }
  }
}

/// What a chart file asks of a registry: a handler of a kind, by name, for a state.
public struct HandlerRequest: Hashable, Sendable {
  /// The kind of handler the state needs.
  public var kind: HandlerKind
  /// The name the file gives (`run="…"`, `merge="…"`, `mapping="…"`, `over="…"`).
  public var name: String
  /// The name of the state that needs it.
  public var stateName: String
  /// Where the state was written.
  public var location: SourceLocation
}

/// Your code, by the names chart files use for it: actions, conditions, multiple conditions,
/// merges, and the parts of the context subflows and maps run on, typed on the chart's
/// context.
///
/// ```swift
/// var handlers = HandlerRegistry<Subject>()
/// handlers["isWilling"] = .condition { $0.isWillingToExercise }
/// handlers["liftWeights"] = .action { _ in try await Task.sleep(for: .seconds(1)) }
/// let chart = try file.flowchart(handlers: handlers)
/// ```
///
/// Binding a file reports every name the registry lacks, and every handler of the wrong
/// kind, with the file, line and column that names it.
///
/// A data-only chart's built-in tests and stores read and write a ``ChartValue``: the whole
/// context when it is a `ChartValue`, or the part of it that ``init(data:)`` names.
public struct HandlerRegistry<Context: Sendable>: Sendable {
  var handlers: [String: Handler<Context>] = [:]
  var overrides: [String: Handler<Context>] = [:]
  let data: DataAccess<Context>?

  /// The registry's fallback: what a name that is not registered binds to. `nil` (the
  /// default) reports the name as unbound; a tool that walks a chart without its code can
  /// answer every request with a stand-in.
  public var fallback: (@Sendable (HandlerRequest) -> Handler<Context>?)?

  /// An empty registry. When `Context` is ``ChartValue``, built-in tests and stores use the
  /// whole context; otherwise a file that uses them is reported (see ``init(data:)``).
  public init() {
    data = (DataAccess<ChartValue>.whole as? DataAccess<Context>)
  }

  /// An empty registry whose built-in tests and stores read and write the context's
  /// `ChartValue` at `data`.
  public init(data: WritableKeyPath<Context, ChartValue> & Sendable) {
    self.data = DataAccess(
      read: { $0[keyPath: data] }, write: { context, value in context[keyPath: data] = value })
  }

  /// The handler registered as `name`; setting `nil` removes it.
  public subscript(name: String) -> Handler<Context>? {
    get { handlers[name] }
    set { handlers[name] = newValue }
  }

  /// The names registered, sorted.
  public var names: [String] { handlers.keys.sorted() }

  /// Binds every name the registry lacks to a stand-in, through ``fallback``: an action that
  /// does nothing, a condition that decides `false`, a multiple condition that decides the
  /// empty key (its `default` exit, if it has one), a merge that keeps the running context,
  /// an input of type `ChartValue` that changes nothing, a mapping that runs the subflow's
  /// chart on the whole context (`.mapping(.whole)`, bound with this registry), a collection
  /// with no elements.
  ///
  /// For checking a file's structure, or walking it with overrides, without its code.
  public mutating func useStandIns() {
    fallback = { request in
      switch request.kind {
      case .action: .action { (_: inout Context) in }
      case .condition: .condition { (_: inout Context) in false }
      case .multipleCondition: .multipleCondition { (_: inout Context) in "" }
      case .merge: .merge { (_: inout Context, _: Context) in }
      case .input: .input(ChartValue.self) { (_: inout Context, _: ChartValue) in }
      case .errorFilter: .errors { (_: any Error) in true }
      case .catchHandler: .catch { (_: inout Context, _: any Error) in }
      case .mapping: .mapping(.whole)
      case .collection: .collection(over: { (_: Context) in [] }, collect: { _, _ in })
      }
    }
  }

  /// Makes the state named `stateName` run `handler` instead of what its file says: an
  /// action's work, or a condition's or multiple condition's decision, whether the file
  /// binds it by name or to a built-in test. How a tool forces decisions by state name.
  public mutating func override(state stateName: String, with handler: Handler<Context>) {
    overrides[stateName] = handler
  }
}

/// How built-in tests and stores reach the data of a context.
struct DataAccess<Context>: Sendable {
  let read: @Sendable (Context) -> ChartValue
  let write: @Sendable (inout Context, ChartValue) -> Void
}

extension DataAccess<ChartValue> {
  static let whole = DataAccess(read: { $0 }, write: { $0 = $1 })
}
