import Flowchart

extension Handler {
  /// The part of the context a subflow runs its chart on, by a name its file gives
  /// (`<subflow name="…" chart="…" mapping="order"/>`), as `Subflow`'s `context:` does; the
  /// subflow's chart is bound with `handlers`, typed on the inner context.
  ///
  /// ```swift
  /// var orderHandlers = HandlerRegistry<Order>()
  /// orderHandlers["charge"] = .action { $0.isPaid = true }
  ///
  /// var handlers = HandlerRegistry<Shop>()
  /// handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers)
  /// handlers["receipt"] = .mapping(
  ///   ContextMapping(enter: { Receipt(total: $0.order.total) }, leave: { $0.receipt = $1 }),
  ///   handlers: receiptHandlers)
  /// ```
  ///
  /// - Parameters:
  ///   - mapping: How the inner context is taken from the outer one and written back.
  ///   - handlers: The registry the subflow's chart is bound with.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  public static func mapping<Inner: Sendable>(
    _ mapping: ContextMapping<Context, Inner>, handlers: HandlerRegistry<Inner>,
    stepLimit: Int? = nil
  ) -> Self {
    Self.mapping(mapping, stepLimit: stepLimit) { _ in handlers }
  }

  /// A part of the context of the chart's own type, for a subflow whose chart is bound with
  /// the same registry as the chart that runs it.
  ///
  /// ```swift
  /// handlers["fresh"] = .mapping(
  ///   ContextMapping(enter: { _ in Launch() }, leave: { $0.log += $1.log }))
  /// handlers["same"] = .mapping(.whole)  // what a subflow without `mapping` does
  /// ```
  ///
  /// - Parameters:
  ///   - mapping: How the inner context is taken from the outer one and written back.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  public static func mapping(
    _ mapping: ContextMapping<Context, Context>, stepLimit: Int? = nil
  ) -> Self {
    Self.mapping(mapping, stepLimit: stepLimit) { outer in outer }
  }

  /// A mapping whose subflow's chart is bound with the registry `registry` gives, from the
  /// registry of the chart that runs it.
  static func mapping<Inner: Sendable>(
    _ mapping: ContextMapping<Context, Inner>, stepLimit: Int?,
    boundWith registry: @escaping @Sendable (HandlerRegistry<Context>) -> HandlerRegistry<Inner>
  ) -> Self {
    Self(
      code: .mapping(
        SubflowBinding { chart, outer, site in
          site.declaration(running: chart, handlers: registry(outer), mapping: mapping, stepLimit)
        }))
  }

  /// The elements a map runs its chart on, by a name its file gives
  /// (`<map name="…" over="photos" chart="…"/>`), as `Map`'s `over:` and `collect:` do; the
  /// map's chart is bound with `handlers`, typed on the element.
  ///
  /// ```swift
  /// handlers["photos"] = .collection(over: \.photos, handlers: photoHandlers) {
  ///   album, results in album.uploaded = results.outputs.compactMap(\.url)
  /// }
  /// ```
  ///
  /// The file's `maxConcurrency` and `toleratedFailures` apply; a file that also gives `into`
  /// is reported, since `collect` says where the results go.
  ///
  /// - Parameters:
  ///   - elements: Takes the elements from the context when the map starts. An error it
  ///     throws fails the run at the map.
  ///   - handlers: The registry the map's chart is bound with.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  ///   - collect: Writes the results back into the context once every run has ended (or
  ///     failed, within the tolerance).
  public static func collection<Element: Sendable>(
    over elements: @escaping @Sendable (Context) throws -> [Element],
    handlers: HandlerRegistry<Element>,
    stepLimit: Int? = nil,
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void
  ) -> Self {
    collection(over: elements, stepLimit: stepLimit, collect: collect) { _ in handlers }
  }

  /// The array at `elements`, whose elements a map runs its chart on; the final contexts of
  /// the runs that ended go to `results`, in input order (those of runs that failed within
  /// the tolerance are left out, as in `MapResults.outputs`).
  ///
  /// ```swift
  /// handlers["photos"] = .collection(over: \.photos, into: \.uploaded, handlers: photoHandlers)
  /// ```
  ///
  /// - Parameters:
  ///   - elements: The array the map runs over.
  ///   - results: Where the runs' final contexts go.
  ///   - handlers: The registry the map's chart is bound with.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  public static func collection<Element: Sendable>(
    over elements: KeyPath<Context, [Element]> & Sendable,
    into results: WritableKeyPath<Context, [Element]> & Sendable,
    handlers: HandlerRegistry<Element>,
    stepLimit: Int? = nil
  ) -> Self {
    collection(over: { $0[keyPath: elements] }, handlers: handlers, stepLimit: stepLimit) {
      context, mapped in context[keyPath: results] = mapped.outputs
    }
  }

  /// The array at `elements`, whose elements a map runs its chart on, and which the final
  /// contexts of the runs replace, in input order (those of runs that failed within the
  /// tolerance are left out).
  ///
  /// ```swift
  /// handlers["items"] = .collection(over: \.items, handlers: itemHandlers)
  /// ```
  ///
  /// - Parameters:
  ///   - elements: The array the map runs over and writes back.
  ///   - handlers: The registry the map's chart is bound with.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  public static func collection<Element: Sendable>(
    over elements: WritableKeyPath<Context, [Element]> & Sendable,
    handlers: HandlerRegistry<Element>,
    stepLimit: Int? = nil
  ) -> Self {
    collection(over: elements, into: elements, handlers: handlers, stepLimit: stepLimit)
  }

  /// Elements of the chart's own context type, for a map whose chart is bound with the same
  /// registry as the chart that runs it.
  ///
  /// ```swift
  /// handlers["children"] = .collection(over: \.children) { node, results in
  ///   node.children = results.outputs
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - elements: Takes the elements from the context when the map starts.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  ///   - collect: Writes the results back into the context.
  public static func collection(
    over elements: @escaping @Sendable (Context) throws -> [Context],
    stepLimit: Int? = nil,
    collect: @escaping @Sendable (inout Context, MapResults<Context>) throws -> Void
  ) -> Self {
    collection(over: elements, stepLimit: stepLimit, collect: collect) { outer in outer }
  }

  /// A collection whose map's chart is bound with the registry `registry` gives, from the
  /// registry of the chart that runs it.
  static func collection<Element: Sendable>(
    over elements: @escaping @Sendable (Context) throws -> [Element], stepLimit: Int?,
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void,
    boundWith registry: @escaping @Sendable (HandlerRegistry<Context>) -> HandlerRegistry<Element>
  ) -> Self {
    Self(
      code: .collection(
        MapBinding { chart, outer, site in
          site.declaration(
            running: chart, handlers: registry(outer), over: elements, stepLimit,
            collect: collect)
        }))
  }
}

/// A registered mapping: binds a subflow's chart with the registry of the inner context
/// (given the registry of the outer one, for a mapping that binds with it), and declares the
/// subflow; or returns the chart's problems.
struct SubflowBinding<Context: Sendable>: Sendable {
  let bind:
    @Sendable (_ chart: ChartFile, _ outer: HandlerRegistry<Context>, _ site: SubflowSite<Context>)
      -> Result<Declaration<Context>, DefinitionError>
}

/// A registered collection: binds a map's chart with the registry of its elements, and
/// declares the map; or returns the chart's problems.
struct MapBinding<Context: Sendable>: Sendable {
  let bind:
    @Sendable (_ chart: ChartFile, _ outer: HandlerRegistry<Context>, _ site: MapSite)
      -> Result<Declaration<Context>, DefinitionError>
}

/// What a file says of a subflow bound through a mapping.
struct SubflowSite<Context: Sendable> {
  let name: String
  let isFinal: Bool
  let location: SourceLocation
  let exits: Lowering<Context>.SubflowExits
  /// The binding this subflow is part of, and its name for the registration's registry.
  let session: BindingSession
  let scope: String

  /// The subflow running `chart`, bound with `handlers`, on the inner context `mapping`
  /// makes.
  func declaration<Inner: Sendable>(
    running chart: ChartFile, handlers: HandlerRegistry<Inner>,
    mapping: ContextMapping<Context, Inner>, _ stepLimit: Int?
  ) -> Result<Declaration<Context>, DefinitionError> {
    session.compiledChart(chart, handlers: handlers, scope: scope, at: location).map { inner in
      Lowering.subflow(
        name, isFinal: isFinal, at: location, chart: inner, mapping: mapping,
        stepLimit: stepLimit, exits: exits)
    }
  }
}

/// What a file says of a map bound through a collection.
struct MapSite {
  let name: String
  let isFinal: Bool
  let location: SourceLocation
  let maxConcurrency: Int?
  let toleratedFailures: Int
  /// The binding this map is part of, and its name for the registration's registry.
  let session: BindingSession
  let scope: String

  /// The map running `chart`, bound with `handlers`, over `elements`.
  func declaration<Context: Sendable, Element: Sendable>(
    running chart: ChartFile, handlers: HandlerRegistry<Element>,
    over elements: @escaping @Sendable (Context) throws -> [Element], _ stepLimit: Int?,
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void
  ) -> Result<Declaration<Context>, DefinitionError> {
    session.compiledChart(chart, handlers: handlers, scope: scope, at: location).map { inner in
      Lowering.map(
        name, isFinal: isFinal, at: location, over: elements, running: inner,
        maxConcurrency: maxConcurrency, toleratedFailures: toleratedFailures,
        stepLimit: stepLimit, collect: collect)
    }
  }
}
