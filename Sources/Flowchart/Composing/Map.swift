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
/// is an asynchronous state and its runs go in child tasks of the outer run's task, at most
/// `maxConcurrency` of them, each taking the next element in input order as it finishes
/// one, so cancelling the outer run cancels them: the runs under way stop at their next
/// boundary and no element starts after that. The map counts as one step of the outer run;
/// each inner run has `stepLimit` of its own.
///
/// In a live run, a snapshot taken while the flow stands in an asynchronous map of `Codable`
/// elements holds the map's runs (the outputs of the elements done, where each running
/// element stands, which have not started, and the failures it tolerated, which `collect`
/// receives after a resume with a ``RestoredError`` as their underlying error) and resumes
/// them; see <doc:DurableRuns> for the maps it waits for instead.
///
/// A `maxConcurrency` below 1 or a negative `toleratedFailures` is a
/// ``DefinitionError/Kind/invalidMapOption`` at the map's line, as the same values are for a
/// ``Dispatch``.
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
  ///     Less than 1 is a ``DefinitionError/Kind/invalidMapOption`` error.
  ///   - toleratedFailures: How many runs may fail without failing the map; 0 or more (a
  ///     negative count is a ``DefinitionError/Kind/invalidMapOption`` error).
  ///   - stepLimit: A step limit for each inner run, or `nil` for none.
  ///   - fileID: The file of the declaration, for definition errors; keep the default.
  ///   - line: The line of the declaration, for definition errors; keep the default.
  ///   - collect: Writes the results back into the context once every run has ended (or
  ///     failed, within the tolerance).
  @inlinable
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
    // Inlinable, so that the runs are specialized for both types where they are known (as a
    // subflow's are): generic element runs cost more than the elements' own work.
    // Out-of-range options are reported by the compiler (see ``MapOptions``); the run's
    // values stay in range meanwhile.
    let run = MapRun(
      chart: chart, elements: elements, collect: collect,
      maxConcurrency: max(1, maxConcurrency ?? .max), toleratedFailures: max(0, toleratedFailures),
      stepLimit: stepLimit,
      declaredOptions: MapOptions(
        maxConcurrency: maxConcurrency, toleratedFailures: toleratedFailures))
    if chart.isSynchronous && run.maxConcurrency == 1 {
      self.init(
        name, isFinal: isFinal, fileID: fileID, line: line, run: run,
        synchronous: { context in try run.synchronously(&context) }, asynchronous: nil)
    } else {
      self.init(
        name, isFinal: isFinal, fileID: fileID, line: line, run: run, synchronous: nil,
        asynchronous: { context in try await run(&context) })
    }
  }

  /// The declaration of a map whose code the caller made, specialized: `synchronous` when
  /// the map runs inside the outer run's synchronous stretch, else `asynchronous`.
  @usableFromInline
  init<Element: Sendable>(
    _ name: String, isFinal: Bool, fileID: String, line: Int, run: MapRun<Context, Element>,
    synchronous: (@Sendable (inout Context) throws -> Void)?,
    asynchronous: (@Sendable (inout Context) async throws -> Void)?
  ) {
    let code =
      if let synchronous {
        DeclaredCode(.action, ActionBox<Context>(synchronous))
      } else {
        DeclaredCode(.asyncAction, AsyncActionBox<Context>(asynchronous!))
      }
    declaration = .state(
      name, isFinal: isFinal, fileID: fileID, line: line, kind: .map, body: .next, code: code,
      attachment: run)
  }
}

/// A map's options as declared, before they are kept in range: what the compiler checks
/// (see ``MapOptions/problems``), as it checks a dispatch's.
@usableFromInline
struct MapOptions: Sendable {
  @usableFromInline let maxConcurrency: Int?
  @usableFromInline let toleratedFailures: Int

  @inlinable
  init(maxConcurrency: Int?, toleratedFailures: Int) {
    self.maxConcurrency = maxConcurrency
    self.toleratedFailures = toleratedFailures
  }

  /// What is wrong with the options, each the end of a sentence about the map.
  var problems: [String] {
    var problems: [String] = []
    if let limit = maxConcurrency, limit < 1 {
      problems.append(
        "has a maxConcurrency of \(limit), which would never start a run. Give it 1 or more, or leave it out to run every element at once."
      )
    }
    if toleratedFailures < 0 {
      problems.append(
        "has toleratedFailures of \(toleratedFailures), which tolerates fewer than no failures. Give it 0 or more."
      )
    }
    return problems
  }
}

/// What a map's declaration keeps for the compiler, whatever its context and element
/// types.
protocol MapDeclaration: AnyObject {
  var declaredOptions: MapOptions { get }
}

extension MapRun: MapDeclaration {}

/// What the runs of a ``Map`` left: the outputs of those that ended, in input order, and
/// the failures it tolerated.
public struct MapResults<Element: Sendable>: Sendable {
  /// One tolerated failure: which element, and how its run failed.
  public struct Failure: Sendable {
    /// The element's position in the input, from 0.
    public let index: Int
    /// How the element's run failed.
    public let error: RunError

    @usableFromInline
    init(index: Int, error: RunError) {
      self.index = index
      self.error = error
    }
  }

  /// The final context of each run that ended at a final state, in input order.
  public let outputs: [Element]
  /// The input position of each output, in the same order.
  public let indices: [Int]
  /// The runs that failed, in input order; at most the map's tolerance.
  public let failures: [Failure]
  /// How many elements the map took from the context.
  public let elementCount: Int

  @usableFromInline
  init(outputs: [Element], indices: [Int], failures: [Failure], elementCount: Int) {
    self.outputs = outputs
    self.indices = indices
    self.failures = failures
    self.elementCount = elementCount
  }
}

/// Thrown by a map whose failures exceeded its tolerance: the element whose run failed.
@usableFromInline
struct MapElementFailure: Error {
  let index: Int
  let elementCount: Int
  let error: RunError

  @usableFromInline
  init(index: Int, elementCount: Int, error: RunError) {
    self.index = index
    self.elementCount = elementCount
    self.error = error
  }
}

/// What a map's code runs, and what its declaration keeps for printing its chart.
///
/// Its runs are specialized for the element type where the map is declared (its members
/// are inlinable). Asynchronously, at most ``maxConcurrency`` child tasks, the map's
/// workers, each take the next element from a shared counter (``MapClaims``) as they finish
/// one, so elements start in input order and a map of any size makes no more tasks than
/// its limit; each worker has one cancellation handler and one ``RunControl`` for all its
/// runs, and keeps its outputs until the map gathers them in input order.
@usableFromInline
final class MapRun<Context: Sendable, Element: Sendable>: NestedChart {
  @usableFromInline let chart: Flowchart<Element>
  @usableFromInline let elements: @Sendable (Context) throws -> [Element]
  @usableFromInline let collect: @Sendable (inout Context, MapResults<Element>) throws -> Void
  @usableFromInline let maxConcurrency: Int
  @usableFromInline let toleratedFailures: Int
  /// Every element's run, with the step limit validated once.
  @usableFromInline let interpreter: Interpreter<Element>
  /// The step limit's error, which every element's run fails with, when it is invalid.
  @usableFromInline let stepLimitError: RunError?
  @usableFromInline let start: Int32
  @usableFromInline let isSynchronous: Bool
  /// The options as declared, which the compiler checks.
  @usableFromInline let declaredOptions: MapOptions

  @inlinable
  init(
    chart: Flowchart<Element>, elements: @escaping @Sendable (Context) throws -> [Element],
    collect: @escaping @Sendable (inout Context, MapResults<Element>) throws -> Void,
    maxConcurrency: Int, toleratedFailures: Int, stepLimit: Int?, declaredOptions: MapOptions
  ) {
    self.declaredOptions = declaredOptions
    self.chart = chart
    self.elements = elements
    self.collect = collect
    self.maxConcurrency = maxConcurrency
    self.toleratedFailures = toleratedFailures
    var limit = Int.max
    var limitError: RunError? = nil
    do throws(RunError) {
      limit = try chart.validatedStepLimit(stepLimit)
    } catch {
      limitError = error
    }
    interpreter = Interpreter(graph: chart.graph, stepLimit: limit)
    stepLimitError = limitError
    start = chart.startIndex
    isSynchronous = chart.isSynchronous
  }

  /// How many elements a synchronous map runs between two questions to its task.
  @inlinable static var checkInterval: Int { 1_024 }

  /// Runs the elements one after another, synchronously, each as a nested run (see
  /// ``Interpreter/runNested(from:context:control:)``); asks the task whether it was
  /// cancelled before the first element and every ``checkInterval`` elements after it.
  @inlinable
  func synchronously(_ context: inout Context) throws {
    let input = try elements(context)
    var results = MapCollector<Element>(
      count: input.count, toleratedFailures: toleratedFailures)
    let control = RunControl.inert
    for index in input.indices {
      if index % Self.checkInterval == 0, Task.isCancelled {
        reportEnded(results, stoppedBy: 0, of: input.count)
        throw CancellationError()
      }
      var element = input[index]
      do throws(RunError) {
        if let stepLimitError { throw stepLimitError }
        _ = try interpreter.runNested(from: start, context: &element, control: control)
        results.add(element, at: index)
      } catch {
        do {
          try results.add(error, at: index)
        } catch {
          reportEnded(results, stoppedBy: 1, of: input.count)
          throw error
        }
      }
    }
    reportEnded(results, stoppedBy: 0, of: input.count)
    try collect(&context, results.finish())
  }

  /// Runs one element's chart to its end under `control`, its worker's.
  @inlinable
  func run(_ element: Element, control: RunControl) async -> Result<Element, RunError> {
    var context = element
    do throws(RunError) {
      if let stepLimitError { throw stepLimitError }
      if isSynchronous {
        _ = try interpreter.runNested(from: start, context: &context, control: control)
      } else {
        var cursor = Cursor<Element>(at: start, stepLimit: interpreter.stepLimit)
        _ = try await interpreter.run(cursor: &cursor, context: &context, control: control)
      }
      return .success(context)
    } catch {
      return .failure(error)
    }
  }

  /// One worker: takes the next element and runs it until none is left, the map is
  /// cancelled, or a failure exceeds the tolerance.
  @inlinable
  func work(on input: [Element], claims: MapClaims) async -> MapWork<Element> {
    let control = RunControl()
    return await withTaskCancellationHandler {
      var done = MapWork<Element>()
      while !control.isCancelled {
        let index = claims.next.wrappingAdd(1, ordering: .relaxed).oldValue
        guard index < input.count else { break }
        switch await run(input[index], control: control) {
        case .success(let output):
          done.outputs.append((index, output))
        case .failure(let error):
          // Cut short by the map's own cancellation: no failure of the element, which the
          // map would tolerate and collect; the map ends cancelled (elements unsettled).
          if error.kind == .cancelled, control.isCancelled { return done }
          let failed = claims.failures.wrappingAdd(1, ordering: .relaxed).oldValue
          guard failed < toleratedFailures, !isScriptProblem(error) else {
            done.stop = MapElementFailure(index: index, elementCount: input.count, error: error)
            return done
          }
          done.failures.append(MapResults.Failure(index: index, error: error))
        }
      }
      return done
    } onCancel: {
      control.cancel()
    }
  }

  /// Runs the elements in at most ``maxConcurrency`` child tasks.
  @inlinable
  func callAsFunction(_ context: inout Context) async throws {
    // In a live run, the map's runs are held for its snapshots when they can be (see
    // `MapRun+Nested.swift`): one task-local read per map, never per element.
    if try await runIfHosted(&context) { return }
    let input = try elements(context)
    var results = MapCollector<Element>(
      count: input.count, toleratedFailures: toleratedFailures)
    let claims = MapClaims()
    try await withThrowingTaskGroup(of: MapWork<Element>.self) { group in
      for _ in 0..<min(maxConcurrency, input.count) {
        group.addTask { await self.work(on: input, claims: claims) }
      }
      while let done = try await group.next() {
        results.add(done)
        if let stop = done.stop {
          group.cancelAll()
          reportEnded(results, stoppedBy: 1, of: input.count)
          throw stop
        }
      }
    }
    reportEnded(results, stoppedBy: 0, of: input.count)
    // Cancelled while elements were left: they never started.
    if results.settled < input.count { throw CancellationError() }
    try collect(&context, results.finish())
  }

  func treeWriter() -> any TreeWriting { TreeWriter(expanding: chart) }

  /// Tells a live run, if the map runs in one, how its elements ended: those `results`
  /// holds finished or failed (with `stopping` more failures that stopped the map), and the
  /// rest of the `count` were skipped (never started, or cancelled). A run started with
  /// `run(with:)` or `runSynchronously` lends its states no live run: this is one task-local
  /// read per map, never per element.
  @usableFromInline
  func reportEnded(_ results: MapCollector<Element>, stoppedBy stopping: Int, of count: Int) {
    guard let reporting = LiveInbox.current as? any MapReporting else { return }
    let failed = results.failures.count + stopping
    let finished = results.settled - results.failures.count
    reporting.mapEnded(
      self, finished: finished, failed: failed, skipped: max(0, count - finished - failed))
  }
}

/// What a live run lends a map's code, through the task-local that lends its waiting states
/// their mailbox (``LiveInbox``): where the map reports how its elements ended, as a
/// ``RunEvent/Kind/mapEnded(finished:failed:skipped:)`` of the flow at the map.
protocol MapReporting: Sendable {
  /// The map whose record's attachment is `map` ended its elements so.
  func mapEnded(_ map: AnyObject, finished: Int, failed: Int, skipped: Int)
}

/// The counters a map's workers share: the next element to take, and the failures so far.
@usableFromInline
final class MapClaims: Sendable {
  @usableFromInline let next = AtomicWord<Int>(0)
  @usableFromInline let failures = AtomicWord<Int>(0)

  @inlinable
  init() {}
}

/// What one of a map's workers did: its outputs and tolerated failures, with their input
/// positions, and the failure that stopped the map, if it met one.
@usableFromInline
struct MapWork<Element: Sendable>: Sendable {
  @usableFromInline var outputs: [(Int, Element)] = []
  @usableFromInline var failures: [MapResults<Element>.Failure] = []
  @usableFromInline var stop: MapElementFailure?

  @inlinable
  init() {}
}

/// Gathers a map's outcomes in input order, whatever order they come in.
@usableFromInline
struct MapCollector<Element: Sendable> {
  @usableFromInline var outputs: [Element?]
  @usableFromInline var failures: [MapResults<Element>.Failure] = []
  @usableFromInline let toleratedFailures: Int
  /// How many elements ended, in success or failure.
  @usableFromInline var settled = 0

  @inlinable
  init(count: Int, toleratedFailures: Int) {
    outputs = [Element?](repeating: nil, count: count)
    self.toleratedFailures = toleratedFailures
  }

  @inlinable
  mutating func add(_ output: Element, at index: Int) {
    outputs[index] = output
    settled += 1
  }

  /// Records a failure; throws when it is one more than the tolerance.
  @inlinable
  mutating func add(_ error: RunError, at index: Int) throws {
    guard failures.count < toleratedFailures, !isScriptProblem(error) else {
      throw MapElementFailure(index: index, elementCount: outputs.count, error: error)
    }
    failures.append(MapResults.Failure(index: index, error: error))
    settled += 1
  }

  /// Records a failure tolerated before the run was captured (see `MapResume`).
  mutating func add(tolerated failure: MapResults<Element>.Failure) {
    failures.append(failure)
    settled += 1
  }

  /// Takes a worker's outcomes, whose failures the worker already held to the tolerance.
  @inlinable
  mutating func add(_ work: MapWork<Element>) {
    for (index, output) in work.outputs { outputs[index] = output }
    failures += work.failures
    settled += work.outputs.count + work.failures.count
  }

  @inlinable
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
