/// A state that runs one chart once per element of a collection in the context, and
/// collects what each run left, in input order: a map.
///
/// Each element is the context of one run of `chart`. At most `maxConcurrency` runs go at
/// once, started in input order; whatever order they finish in, ``MapResults/outputs`` lists
/// the final contexts in the order of the input, and `collect` writes them back:
///
/// ```swift
/// struct Upload: Sendable { var source: any Sendable; var url: String? }
///
/// let upload = try Flowchart<Upload> {
///   Action("Upload", isFinal: true) { upload in
///     guard let name = upload.source as? String else { throw NotAnImage() }
///     upload.url = try await server.store(name)
///   }
/// }
/// let gallery = try Flowchart<Gallery> {
///   Map(
///     "Upload images", over: { $0.images.map { Upload(source: $0) } }, running: upload,
///     maxConcurrency: 4, toleratedFailures: 1
///   ) { gallery, results in
///     gallery.urls = results.outputs.compactMap(\.url)
///   }
///   Action("Publish", isFinal: true)
/// }
/// ```
///
/// A run that fails is a failure of its element. Up to `toleratedFailures` of them are
/// tolerated: the failed elements' outputs are left out and ``MapResults/failures`` says
/// which failed and why. One more failure stops the map: the runs under way are cancelled,
/// and the outer run fails at the map with the failed run's error kind, its ``RunError`` as
/// ``RunError/underlyingError``, and a message naming the element. An empty collection is
/// fine: `collect` gets empty results (``MapResults/elementCount`` is `0`).
///
/// A map whose chart ``Flowchart/isSynchronous`` and whose `maxConcurrency` is `1` runs its
/// elements one after another inside the outer run's synchronous stretch; otherwise the map
/// is an asynchronous state and its runs are child tasks of the outer run's task, so
/// cancelling the outer run cancels them. The map counts as one step of the outer run;
/// each inner run has `stepLimit` of its own.
///
/// The tree printer shows a map as one state with the letter `E` (for each); see
/// ``Flowchart/printTree(to:expandingSubflows:)`` to print its chart nested below it.
public struct Map<Context: Sendable>: FlowComponent, Sendable {
  /// The state, as a ``FlowBuilder`` block lists it.
  public let declaration: Declaration<Context>

  /// Declares a map.
  ///
  /// - Parameters:
  ///   - name: The label shown in printed trees, errors and results.
  ///   - isFinal: Whether the outer flow ends after the map.
  ///   - elements: Takes the elements from the context when the map starts. An error it
  ///     throws fails the outer run at the map.
  ///   - chart: The chart to run for each element, with the element as its context.
  ///   - maxConcurrency: How many runs may go at once, at least 1; `nil` for all at once.
  ///   - toleratedFailures: How many runs may fail without failing the map.
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - collect: Writes the results back into the context once every run has ended (or
  ///     failed, within the tolerance).
  public init<Element: Sendable>(
    _ name: String,
    isFinal: Bool = false,
    over elements: @escaping @Sendable (Context) throws -> [Element],
    running chart: Flowchart<Element>,
    maxConcurrency: Int? = nil,
    toleratedFailures: Int = 0,
    stepLimit: Int? = nil,
    fileID: String = #fileID,
    line: Int = #line,
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void
  ) {
    let run = MapRun(
      chart: chart, elements: elements, collect: collect,
      maxConcurrency: max(1, maxConcurrency ?? .max), toleratedFailures: max(0, toleratedFailures),
      stepLimit: stepLimit)
    let code =
      chart.isSynchronous && run.maxConcurrency == 1
      ? DeclaredCode(.action, ActionBox<Context> { context in try run.synchronously(&context) })
      : DeclaredCode(.asyncAction, AsyncActionBox<Context> { context in try await run(&context) })
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .map, body: .next, code: code,
      attachment: run)
  }
}

/// What the runs of a ``Map`` left: the outputs of those that ended, in input order, and
/// the failures it tolerated.
public struct MapResults<Element: Sendable>: Sendable {
  /// One tolerated failure: which element, and how its run failed.
  public struct Failure: Sendable {
    /// The element's position in the input, from 0.
    public let index: Int
    /// How the element's run failed.
    public let error: RunError
  }

  /// The final context of each run that ended at a final state, in input order.
  public let outputs: [Element]
  /// The input position of each output, in the same order.
  public let indices: [Int]
  /// The runs that failed, in input order; at most the map's tolerance.
  public let failures: [Failure]
  /// How many elements the map took from the context.
  public let elementCount: Int
}

/// Thrown by a map whose failures exceeded its tolerance: the element whose run failed.
struct MapElementFailure: Error {
  let index: Int
  let elementCount: Int
  let error: RunError
}

/// What a map's code runs, and what its declaration keeps for printing its chart.
final class MapRun<Context: Sendable, Element: Sendable>: NestedChart {
  let chart: Flowchart<Element>
  let elements: @Sendable (Context) throws -> [Element]
  let collect: @Sendable (inout Context, MapResults<Element>) throws -> Void
  let maxConcurrency: Int
  let toleratedFailures: Int
  let stepLimit: Int?

  init(
    chart: Flowchart<Element>, elements: @escaping @Sendable (Context) throws -> [Element],
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void,
    maxConcurrency: Int, toleratedFailures: Int, stepLimit: Int?
  ) {
    self.chart = chart
    self.elements = elements
    self.collect = collect
    self.maxConcurrency = maxConcurrency
    self.toleratedFailures = toleratedFailures
    self.stepLimit = stepLimit
  }

  /// Runs the elements one after another, synchronously.
  func synchronously(_ context: inout Context) throws {
    let input = try elements(context)
    var results = Collector(count: input.count, toleratedFailures: toleratedFailures)
    for (index, element) in input.enumerated() {
      do {
        try results.add(chart.runSynchronously(with: element, stepLimit: stepLimit), at: index)
      } catch {
        try results.add(error, at: index)
      }
    }
    try collect(&context, results.finish())
  }

  /// Runs the elements as child tasks, at most ``maxConcurrency`` at once.
  func callAsFunction(_ context: inout Context) async throws {
    let input = try elements(context)
    var results = Collector(count: input.count, toleratedFailures: toleratedFailures)
    let chart = chart
    let stepLimit = stepLimit
    try await withThrowingTaskGroup(of: (Int, Result<RunResult<Element>, RunError>).self) {
      group in
      var next = 0
      func startNext() {
        guard next < input.count else { return }
        let index = next
        let element = input[index]
        next += 1
        group.addTask {
          do {
            return (index, .success(try await chart.run(with: element, stepLimit: stepLimit)))
          } catch let error as RunError {
            return (index, .failure(error))
          }
        }
      }
      while next < min(maxConcurrency, input.count) { startNext() }
      while let (index, outcome) = try await group.next() {
        switch outcome {
        case .success(let result): results.add(result, at: index)
        case .failure(let error):
          do {
            try results.add(error, at: index)
          } catch {
            group.cancelAll()
            throw error
          }
        }
        startNext()
      }
    }
    try collect(&context, results.finish())
  }

  func writeTree(to text: inout String) { chart.printTree(to: &text, expandingSubflows: true) }

  /// Gathers the runs' outcomes in input order, whatever order they come in.
  private struct Collector {
    private var outputs: [Element?]
    private var failures: [MapResults<Element>.Failure] = []
    private let toleratedFailures: Int

    init(count: Int, toleratedFailures: Int) {
      outputs = [Element?](repeating: nil, count: count)
      self.toleratedFailures = toleratedFailures
    }

    mutating func add(_ result: RunResult<Element>, at index: Int) {
      outputs[index] = result.context
    }

    /// Records a failure; throws when it is one more than the tolerance.
    mutating func add(_ error: RunError, at index: Int) throws {
      guard failures.count < toleratedFailures else {
        throw MapElementFailure(index: index, elementCount: outputs.count, error: error)
      }
      failures.append(MapResults.Failure(index: index, error: error))
    }

    func finish() -> MapResults<Element> {
      var kept: [Element] = []
      var indices: [Int] = []
      kept.reserveCapacity(outputs.count - failures.count)
      indices.reserveCapacity(outputs.count - failures.count)
      for (index, output) in outputs.enumerated() {
        if let output {
          kept.append(output)
          indices.append(index)
        }
      }
      return MapResults(
        outputs: kept, indices: indices, failures: failures.sorted { $0.index < $1.index },
        elementCount: outputs.count)
    }
  }
}
