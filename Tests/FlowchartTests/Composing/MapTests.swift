import Flowchart
import Testing

/// Flow's `FlowArrayGroupDispatcher` demo and Step Functions' Map: one run per element,
/// outputs in input order, a concurrency limit and a failure tolerance.
@Suite(.timeLimit(.minutes(5)))
struct MapTests {
  struct Upload: Sendable {
    var source: any Sendable
    var url: String?
  }

  struct Gallery: Sendable {
    var images: [any Sendable]
    var urls: [String] = []
    var failed: [Int] = []
  }

  struct NotAnImage: Error {}

  /// Uploads a string; fails on anything else.
  static func upload() throws -> Flowchart<Upload> {
    try Flowchart<Upload> {
      Action("Upload", isFinal: true) { upload in
        guard let name = upload.source as? String else { throw NotAnImage() }
        upload.url = "https://images.example/\(name).png"
      }
    }
  }

  static func gallery(
    toleratedFailures: Int, maxConcurrency: Int? = 1
  ) throws -> Flowchart<Gallery> {
    let upload = try upload()
    return try Flowchart<Gallery> {
      Map(
        "Upload images", over: { $0.images.map { Upload(source: $0) } }, running: upload,
        maxConcurrency: maxConcurrency, toleratedFailures: toleratedFailures
      ) { gallery, results in
        gallery.urls = results.outputs.compactMap(\.url)
        gallery.failed = results.failures.map(\.index)
      }
      Action("Publish", isFinal: true)
    }
  }

  // MARK: - Flow's dispatcher demo

  @Test func aFailedElementStopsTheMap() throws {
    let chart = try Self.gallery(toleratedFailures: 0)
    #expect(chart.isSynchronous)
    let error = try #require(throws: RunError.self) {
      try chart.runSynchronously(with: Gallery(images: ["a", "b", "c", "d", 1]))
    }
    #expect(error.kind == .thrown)
    #expect(error.stateName == "Upload images")
    let inner = try #require(error.underlyingError as? RunError)
    #expect(inner.stateName == "Upload")
    #expect(inner.underlyingError is NotAnImage)
    #expect(
      error.description.hasPrefix(
        "The run stopped at map 'Upload images' (FlowchartTests/MapTests.swift:"))
    #expect(
      error.description.contains(
        "the run for element 4 (of 5, counted from 0) failed: The run stopped at action 'Upload'"
      ))
  }

  @Test(arguments: [1, 3, nil] as [Int?])
  func toleratedFailuresLeaveTheGoodOutputsInInputOrder(maxConcurrency: Int?) async throws {
    let chart = try Self.gallery(toleratedFailures: 1, maxConcurrency: maxConcurrency)
    let result = try await chart.run(with: Gallery(images: ["a", "b", "c", "d", 1]))
    #expect(
      result.context.urls == ["a", "b", "c", "d"].map { "https://images.example/\($0).png" })
    #expect(result.context.failed == [4])
    #expect(result.pathNames == ["Upload images", "Publish"])
  }

  @Test func anEmptyCollectionIsFine() throws {
    let upload = try Self.upload()
    let counts = Counts()
    let chart = try Flowchart<Gallery> {
      Map(
        "Upload images", isFinal: true, over: { $0.images.map { Upload(source: $0) } },
        running: upload, maxConcurrency: 1
      ) { gallery, results in
        counts.record(results.elementCount, results.outputs.count)
      }
    }
    let result = try chart.runSynchronously(with: Gallery(images: []))
    #expect(result.finalStateName == "Upload images")
    #expect(counts.values == [0, 0])
  }

  // MARK: - Order and concurrency

  @Test(arguments: 0..<8)
  func outputsKeepInputOrderWhateverOrderRunsFinishIn(seed: UInt64) async throws {
    let gates = Gates()
    let inner = try Flowchart<Int> {
      Action("Square", isFinal: true) { value in
        await gates.park(value)
        value *= value
      }
    }
    let count = 12
    let limit = 3
    let chart = try Flowchart<[Int]> {
      Map(
        "Square all", isFinal: true, over: { $0 }, running: inner, maxConcurrency: limit
      ) { values, results in
        values = results.outputs
      }
    }
    let run = Task { try await chart.run(with: Array(0..<count)) }
    var random = SeededGenerator(seed: seed)
    for finished in 0..<count {
      let parked = await gates.parked(count: min(limit, count - finished))
      await gates.open(parked.randomElement(using: &random)!)
    }
    let result = try await run.value
    #expect(result.context == (0..<count).map { $0 * $0 })
    #expect(await gates.mostParkedAtOnce == limit)
  }

  // MARK: - Cancellation

  @Test func cancellingTheOuterRunCancelsEveryElementRun() async throws {
    let gates = Gates()
    let inner = try Flowchart<Int> {
      Action("Wait", isFinal: true) { value in
        await gates.park(value)
        try await Task.sleep(for: .seconds(600))
      }
    }
    let chart = try Flowchart<[Int]> {
      Map("Wait for all", isFinal: true, over: { $0 }, running: inner) { _, _ in }
    }
    let run = Task { try await chart.run(with: [0, 1, 2]) }
    for index in await gates.parked(count: 3) { await gates.open(index) }
    run.cancel()
    let error = try await #require(throws: RunError.self) { try await run.value }
    #expect(error.kind == .cancelled)
    #expect(error.stateName == "Wait for all")
  }

  // MARK: - Printing

  @Test func theTreeShowsAMapAsOneStateOrItsChartNested() throws {
    let chart = try Self.gallery(toleratedFailures: 0)
    expectTree(
      chart,
      """
      Upload images (E)
      Publish (A) !
      """)
    var expanded = ""
    chart.printTree(to: &expanded, expandingSubflows: true)
    expectText(
      expanded,
      """
      Upload images (E)
      :  Upload (A) !
      Publish (A) !

      """)
    #expect(chart[chart.start].kind == .map)
  }
}

/// Values a map's `collect` reports, read after the run.
private final class Counts: Sendable {
  private let storage = Lock<[Int]>([])

  func record(_ values: Int...) { storage.withLock { $0 += values } }

  var values: [Int] { storage.withLock { $0 } }
}
