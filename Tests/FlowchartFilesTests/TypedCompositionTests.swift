import Flowchart
import FlowchartFiles
import Foundation
import Testing

/// A shop whose order and photos are Swift values: the context of the `shop` sample.
struct Shop: Sendable {
  var order: ShopOrder
  var photos: [ShopPhoto] = []
  var printed: [ShopPhoto] = []
  var log: [String] = []
}

/// The part of a ``Shop`` its checkout runs on.
struct ShopOrder: Sendable, Equatable {
  var total: Int
  var isPaid = false
}

/// One element of a shop's photos.
struct ShopPhoto: Sendable, Equatable {
  var name: String
  var isPrinted = false
}

/// The handlers of the checkout, typed on the order.
func orderHandlers() -> HandlerRegistry<ShopOrder> {
  var handlers = HandlerRegistry<ShopOrder>()
  handlers["charge"] = .action { $0.isPaid = $0.total <= 100 }
  handlers["isPaid"] = .condition { $0.isPaid }
  return handlers
}

/// A photo that cannot be printed.
struct Blurred: Error {}

/// The handlers run for each photo: a photo named `blurred.jpg` fails.
func photoHandlers() -> HandlerRegistry<ShopPhoto> {
  var handlers = HandlerRegistry<ShopPhoto>()
  handlers["print"] = .action { photo in
    guard photo.name != "blurred.jpg" else { throw Blurred() }
    photo.isPrinted = true
  }
  return handlers
}

/// The shop's handlers: actions, the order's mapping and the photos' collection.
func shopHandlers() -> HandlerRegistry<Shop> {
  var handlers = HandlerRegistry<Shop>()
  handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers())
  handlers["photos"] = .collection(over: \.photos, into: \.printed, handlers: photoHandlers())
  handlers["cancel"] = .action { $0.log.append("cancelled") }
  handlers["ship"] = .action { $0.log.append("shipped") }
  return handlers
}

/// Parses `files[main]`, reading the files it runs and includes from `files`.
func parse(_ files: [String: String], main: String) throws(DefinitionError) -> ChartFile {
  struct Missing: Error {}
  func syntax(_ path: String) -> ChartSyntax {
    ChartSyntax(pathExtension: String(path.split(separator: ".").last ?? "")) ?? .json
  }
  return try ChartFile.parse(
    Array((files[main] ?? "").utf8), syntax: syntax(main), path: main
  ) { path, _ in
    guard let text = files[path] else { throw Missing() }
    return (path, syntax(path), Array(text.utf8))
  }
}

/// Subflows and maps over a typed context, bound by name to mappings and collections
/// registered in Swift.
struct TypedCompositionTests {
  let checkout = """
    {"flowchart": [
      {"action": "Charge the card", "run": "charge"},
      {"condition": "Paid?", "final": true, "run": "isPaid"}
    ]}
    """

  // MARK: - The article's example

  @Test func theFileFormatArticlesExampleIsCopiedHere() throws {
    let article = try String(
      contentsOf: URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/FlowchartFiles/Documentation.docc/ChartFileFormat.md"),
      encoding: .utf8)
    let copies = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
      .split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    let blocks = article.components(separatedBy: "```swift\n").dropFirst()
      .map { $0.components(separatedBy: "```")[0] }
      .filter { $0.contains("ShopOrder") }
    #expect(blocks.count == 2)
    var rest = copies[...]
    for line in blocks.joined().split(separator: "\n") {
      let line = line.trimmingCharacters(in: .whitespaces)
      guard let found = rest.firstIndex(of: line) else {
        Issue.record("Article line not copied, in order, into this file: \(line)")
        break
      }
      rest = rest[(found + 1)...]
    }
  }

  @Test func theFileFormatArticlesExampleRuns() async throws {
    // The article's path is relative to the package's folder, where `swift test` runs.
    try #require(FileManager.default.fileExists(atPath: "Samples/shop.json"))
    var orderHandlers = HandlerRegistry<ShopOrder>()
    orderHandlers["charge"] = .action { $0.isPaid = $0.total <= 100 }
    orderHandlers["isPaid"] = .condition { $0.isPaid }

    var photoHandlers = HandlerRegistry<ShopPhoto>()
    photoHandlers["print"] = .action { $0.isPrinted = true }

    var handlers = HandlerRegistry<Shop>()
    handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers)
    handlers["photos"] = .collection(over: \.photos, into: \.printed, handlers: photoHandlers)
    handlers["cancel"] = .action { $0.log.append("cancelled") }
    handlers["ship"] = .action { $0.log.append("shipped") }

    let file = try ChartFile.read(contentsOf: URL(filePath: "Samples/shop.json"))
    let shop = try file.flowchart(handlers: handlers)
    let photos = [ShopPhoto(name: "beach.jpg"), ShopPhoto(name: "dunes.jpg")]
    let result = try await shop.run(with: Shop(order: ShopOrder(total: 40), photos: photos))
    // The article's `print` writes here, not to standard output.
    var printed: [String] = []
    func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
    print(result.finalStateName, result.context.printed.count)  // Ship 2
    #expect(printed == ["Ship 2"])
    #expect(result.context.printed.map(\.name) == ["beach.jpg", "dunes.jpg"])
    #expect(result.context.order.isPaid)
  }

  // MARK: - Subflows

  @Test(arguments: ChartSyntax.allCases)
  func theShopSampleRunsItsSubflowAndMapOnSwiftValues(syntax: ChartSyntax) async throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("shop", syntax))
      .flowchart(handlers: shopHandlers())
    let paid = try await chart.run(
      with: Shop(order: ShopOrder(total: 40), photos: [ShopPhoto(name: "a.jpg")]))
    #expect(paid.finalStateName == "Ship")
    #expect(paid.context.order == ShopOrder(total: 40, isPaid: true))
    #expect(paid.context.printed == [ShopPhoto(name: "a.jpg", isPrinted: true)])
    #expect(paid.context.log == ["shipped"])
    let declined = try await chart.run(with: Shop(order: ShopOrder(total: 400)))
    #expect(declined.finalStateName == "Cancel")
    #expect(declined.context.log == ["cancelled"])
  }

  @Test func aSubflowBoundByAMappingPrintsItsInnerChart() throws {
    let chart = try ChartFile.read(contentsOf: sampleURL("shop", .json))
      .flowchart(handlers: shopHandlers())
    var tree = ""
    chart.printTree(to: &tree, expandingSubflows: true)
    expectText(
      tree,
      """
      Check out (F)
      :  Charge the card (A)
      :  Paid? (S) !
      Y- Print each photo (E)
      |  :  Print (A) !
      |  Ship (A) !
      N- Cancel (A) !

      """)
  }

  @Test func aMappingByClosuresMakesTheInnerContextAndWritesItBack() throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["total"] = .mapping(
      ContextMapping(
        enter: { ShopOrder(total: $0.order.total * 2) },
        leave: { shop, order in shop.log.append("charged \(order.total): \(order.isPaid)") }),
      handlers: orderHandlers())
    let file = try parse(
      [
        "main.xml": """
        <flowchart>
          <subflow name="Double" chart="checkout.json" mapping="total" final="true"/>
        </flowchart>
        """,
        "checkout.json": checkout,
      ], main: "main.xml")
    let chart = try file.flowchart(handlers: handlers)
    let result = try chart.runSynchronously(with: Shop(order: ShopOrder(total: 60)))
    #expect(result.context.log == ["charged 120: false"])
    #expect(result.context.order == ShopOrder(total: 60))
  }

  @Test func aKeyedSubflowTakesTheInnerFinalStateAsItsKey() throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers())
    let file = try parse(
      [
        "main.json": """
        {"flowchart": [
          {"subflow": "Check out", "chart": "checkout.json", "mapping": "order", "exits": [
            {"case": "Paid?", "states": [{"action": "Done", "final": true}]}
          ]}
        ]}
        """,
        "checkout.json": checkout,
      ], main: "main.json")
    let result = try file.flowchart(handlers: handlers)
      .runSynchronously(with: Shop(order: ShopOrder(total: 1)))
    #expect(result.pathNames == ["Check out", "Done"])
    #expect(result.context.order.isPaid)
  }

  @Test func aMappingOfTheSameContextBindsTheInnerChartWithTheSameRegistry() throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["note"] = .action { $0.log.append("inner") }
    handlers["fresh"] = .mapping(
      ContextMapping(
        enter: { Shop(order: $0.order) }, leave: { shop, inner in shop.log += inner.log }))
    let file = try parse(
      [
        "main.json": """
        {"flowchart": [
          {"action": "Before", "run": "note"},
          {"subflow": "Again", "chart": "inner.json", "mapping": "fresh", "final": true}
        ]}
        """,
        "inner.json": #"{"flowchart": [{"action": "Note", "run": "note", "final": true}]}"#,
      ], main: "main.json")
    let result = try file.flowchart(handlers: handlers)
      .runSynchronously(with: Shop(order: ShopOrder(total: 1)))
    #expect(result.context.log == ["inner", "inner"])
  }

  // MARK: - Maps

  @Test(arguments: ChartSyntax.allCases)
  func aMapOverACollectionRunsTheElementsChartAndCollectsInInputOrder(syntax: ChartSyntax)
    async throws
  {
    let text =
      syntax == .json
      ? """
      {"flowchart": [
        {"map": "Print each", "over": "photos", "chart": "print.xml", "toleratedFailures": 1},
        {"action": "Done", "final": true}
      ]}
      """
      : """
      <flowchart>
        <map name="Print each" over="photos" chart="print.xml" toleratedFailures="1"/>
        <action name="Done" final="true"/>
      </flowchart>
      """
    let file = try parse(
      [
        "main.\(syntax.rawValue)": text,
        "print.xml": #"<flowchart><action name="Print" run="print" final="true"/></flowchart>"#,
      ], main: "main.\(syntax.rawValue)")
    let chart = try file.flowchart(handlers: shopHandlers())
    let photos = ["a.jpg", "blurred.jpg", "c.jpg"].map { ShopPhoto(name: $0) }
    let result = try await chart.run(with: Shop(order: ShopOrder(total: 1), photos: photos))
    #expect(result.context.printed.map(\.name) == ["a.jpg", "c.jpg"])
    #expect(result.context.printed.allSatisfy { $0.isPrinted })
    #expect(result.context.photos == photos)
  }

  @Test func aCollectionWithoutIntoWritesTheResultsBackOverTheArray() throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["photos"] = .collection(over: \.photos, handlers: photoHandlers())
    let chart = try parse(
      """
      {"flowchart": [
        {"map": "Print each", "over": "photos", "maxConcurrency": 1, "final": true,
         "states": [{"action": "Print", "run": "print", "final": true}]}
      ]}
      """, .json
    ).flowchart(handlers: handlers)
    #expect(chart.isSynchronous)
    let result = try chart.runSynchronously(
      with: Shop(order: ShopOrder(total: 1), photos: [ShopPhoto(name: "a.jpg")]))
    #expect(result.context.photos == [ShopPhoto(name: "a.jpg", isPrinted: true)])
  }

  @Test func aCollectionsCollectSeesTheFailuresItTolerated() async throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["photos"] = .collection(over: \.photos, handlers: photoHandlers()) { shop, results in
      shop.log = results.failures.map { "failed: \(shop.photos[$0.index].name)" }
      shop.printed = results.outputs
    }
    let chart = try parse(
      """
      <flowchart>
        <map name="Print each" over="photos" toleratedFailures="2">
          <action name="Print" run="print" final="true"/>
        </map>
        <action name="Done" final="true"/>
      </flowchart>
      """, .xml
    ).flowchart(handlers: handlers)
    let photos = ["blurred.jpg", "b.jpg"].map { ShopPhoto(name: $0) }
    let result = try await chart.run(with: Shop(order: ShopOrder(total: 1), photos: photos))
    #expect(result.context.log == ["failed: blurred.jpg"])
    #expect(result.context.printed == [ShopPhoto(name: "b.jpg", isPrinted: true)])
  }

  @Test func aRegisteredCollectionComesBeforeAPathOfTheData() async throws {
    struct Album: Sendable {
      var data: ChartValue = ["photos": ["not", "these"]]
      var photos: [ShopPhoto] = [ShopPhoto(name: "a.jpg")]
    }
    var handlers = HandlerRegistry<Album>(data: \.data)
    handlers["photos"] = .collection(over: \.photos, handlers: photoHandlers())
    let file = try parse(
      """
      {"flowchart": [
        {"map": "Print each", "over": "photos", "final": true,
         "states": [{"action": "Print", "run": "print", "final": true}]}
      ]}
      """, .json)
    let result = try await file.flowchart(handlers: handlers).run(with: Album())
    #expect(result.context.photos == [ShopPhoto(name: "a.jpg", isPrinted: true)])
    #expect(result.context.data == ["photos": ["not", "these"]])
  }

  @Test func aCollectionOfTheSameContextBindsTheInnerChartWithTheSameRegistry() async throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["note"] = .action { $0.log.append("noted \($0.order.total)") }
    handlers["orders"] = .collection(
      over: { shop in shop.photos.indices.map { Shop(order: ShopOrder(total: $0)) } },
      collect: { shop, results in shop.log = results.outputs.flatMap(\.log) })
    let chart = try parse(
      """
      <flowchart>
        <map name="Each" over="orders" final="true">
          <action name="Note" run="note" final="true"/>
        </map>
      </flowchart>
      """, .xml
    ).flowchart(handlers: handlers)
    let photos = [ShopPhoto(name: "a.jpg"), ShopPhoto(name: "b.jpg")]
    let result = try await chart.run(with: Shop(order: ShopOrder(total: 9), photos: photos))
    #expect(result.context.log == ["noted 0", "noted 1"])
  }

  @Test func aRegistrationsStepLimitBoundsEachInnerRun() throws {
    var handlers = HandlerRegistry<Shop>()
    handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers(), stepLimit: 1)
    let file = try parse(
      [
        "main.json": """
        {"flowchart": [{"subflow": "Check out", "chart": "checkout.json", "mapping": "order", "final": true}]}
        """,
        "checkout.json": checkout,
      ], main: "main.json")
    let chart = try file.flowchart(handlers: handlers)
    #expect(throws: RunError.self) {
      try chart.runSynchronously(with: Shop(order: ShopOrder(total: 1)))
    }
    handlers["order"] = .mapping(.keyPath(\.order), handlers: orderHandlers(), stepLimit: 2)
    let bounded = try file.flowchart(handlers: handlers)
    #expect(
      try bounded.runSynchronously(with: Shop(order: ShopOrder(total: 1))).context.order.isPaid)
  }

  // MARK: - Problems

  @Test func unboundAndMistypedNamesAreReportedTogetherWithSuggestions() throws {
    var handlers = shopHandlers()
    handlers["print"] = .action { _ in }
    let file = try parse(
      [
        "main.json": """
        {"flowchart": [
          {"subflow": "Check out", "chart": "checkout.json", "mapping": "ordr"},
          {"subflow": "Print", "chart": "checkout.json", "mapping": "print"},
          {"map": "Print each", "over": "order", "states": [{"action": "P", "final": true}]},
          {"map": "Print all", "over": "photo", "states": [{"action": "P", "final": true}]},
          {"map": "Print some", "over": "photos", "into": "printed",
           "states": [{"action": "P", "final": true}]},
          {"goTo": "Nowhere"}
        ]}
        """,
        "checkout.json": checkout,
      ], main: "main.json")
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: handlers)
    }
    #expect(
      found == [
        #"main.json:2:3: unbound name: Subflow 'Check out' names the mapping 'ordr', which is not registered. Register it (handlers["ordr"] = .mapping(.keyPath(\.…), handlers: …)), or fix the name (did you mean 'order'?)."#,
        "main.json:3:3: mismatched handler: Subflow 'Print' names 'print' as its mapping, but 'print' is registered as an action. Name a registered mapping, or register one under another name.",
        "main.json:4:3: mismatched handler: Map 'Print each' names 'order' as its collection, but 'order' is registered as a mapping. Name a registered collection, or register one under another name.",
        #"main.json:5:3: unbound name: Map 'Print all' runs over 'photo', which is not a registered collection, and the context Shop has no data to read it from. Register it (handlers["photo"] = .collection(over: \.…, handlers: …)), create the registry with HandlerRegistry(data: \.yourChartValue) to read it from the data, or fix the name (did you mean 'photos'?)."#,
        "main.json:6:3: mismatched handler: Map 'Print some' runs over the registered collection 'photos', which says where its results go: remove the map's into, or collect them elsewhere in the registration.",
        "main.json:8:3: unknown name: GoTo 'Nowhere' refers to no state. Declare a state named 'Nowhere', or use one of the declared names.",
      ])
  }

  @Test func theInnerChartsProblemsAreLocatedInItsFileWithTheInnerContext() throws {
    let file = try parse(
      [
        "main.xml": """
        <flowchart>
          <subflow name="Check out" chart="checkout.json" mapping="order"/>
          <map name="Print each" over="photos">
            <condition name="Wide?">
              <greater path="width" value="2000" type="number"/>
            </condition>
          </map>
          <action name="Done" final="true"/>
        </flowchart>
        """,
        "checkout.json": """
        {"flowchart": [
          {"action": "Charge the card", "run": "chrge"},
          {"condition": "Paid?", "final": true, "run": "isPaid"}
        ]}
        """,
      ], main: "main.xml")
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: shopHandlers())
    }
    #expect(
      found == [
        #"checkout.json:2:3: unbound name: Action 'Charge the card' names the action 'chrge', which is not registered. Register it (handlers["chrge"] = .action { … }), or fix the name (did you mean 'charge'?)."#,
        "main.xml:4:5: mismatched handler: Condition 'Wide?' uses the built-in data, but the context ShopPhoto is not a ChartValue. Create the registry with HandlerRegistry(data: \\.yourChartValue), or bind a handler instead.",
        "main.xml:4:5: missing exits: Condition 'Wide?' has no exits. Give it <yes> and <no> blocks, or declare it final (final=\"true\") if the run ends with its decision.",
      ])
  }

  @Test(arguments: [
    (
      ChartSyntax.json,
      #"{"flowchart": [{"subflow": "S", "chart": "c.json", "context": "a", "mapping": "b"}]}"#,
      #"test.json:1:16: malformed file: Subflow 'S' has both "context" (a path of the data) and "mapping" (a registered mapping): keep one."#
    ),
    (
      ChartSyntax.xml,
      #"<flowchart><subflow name="S" chart="c.xml" context="a" mapping="b"/></flowchart>"#,
      #"test.xml:1:12: malformed file: Subflow 'S' has both context="…" (a path of the data) and mapping="…" (a registered mapping): keep one."#
    ),
    (
      ChartSyntax.json,
      #"{"flowchart": [{"subflow": "S", "chart": "c.json", "mapping": 3}]}"#,
      #"test.json:1:63: malformed file: "mapping" takes a string, not a number."#
    ),
  ])
  func aSubflowWithBothAPathAndAMappingIsRefused(
    syntax: ChartSyntax, text: String, expected: String
  ) {
    let found = problems { () throws(DefinitionError) in _ = try parse(text, syntax) }
    #expect(found == [expected])
  }

  @Test func aModelWithBothAPathAndAMappingIsReportedWhenBound() throws {
    let at = SourceLocation(fileID: "model.json", line: 1, column: 1)
    let file = ChartFile(
      path: "model.json",
      states: [
        ChartNode(
          .subflow(
            ChartSubflow(
              name: "S", isFinal: true, chart: "c.json", contextPath: "a", mapping: "order")),
          at: at)
      ],
      includedFiles: ["c.json": try parse(checkout, .json)])
    let found = problems { () throws(DefinitionError) in
      _ = try file.flowchart(handlers: shopHandlers())
    }
    #expect(
      found == [
        "model.json:1:1: malformed file: Subflow 'S' has both a context path and the mapping 'order': keep one."
      ])
  }

  // MARK: - Stand-ins, writing back

  @Test func standInsBindMappingsAndCollectionsForACheckWithoutCode() async throws {
    var handlers = HandlerRegistry<Shop>()
    handlers.useStandIns()
    let file = try ChartFile.read(contentsOf: sampleURL("shop", .xml))
    let chart = try file.flowchart(handlers: handlers)
    let result = try await chart.run(
      with: Shop(order: ShopOrder(total: 1), photos: [ShopPhoto(name: "a.jpg")]))
    // The stand-in condition decides no; the stand-in collection has no elements.
    #expect(result.pathNames == ["Check out", "Cancel"])
    #expect(result.context.printed.isEmpty)
  }

  @Test func aDataOnlyRegistryWithStandInsRunsAMappedSubflowOnTheWholeContext() async throws {
    var handlers = HandlerRegistry<ChartValue>()
    handlers.useStandIns()
    let chart = try ChartFile.read(contentsOf: sampleURL("shop", .json))
      .flowchart(handlers: handlers)
    let result = try await chart.run(with: ["photos": [["name": "a.jpg"]]])
    #expect(result.pathNames == ["Check out", "Cancel"])
    #expect(result.context[path: "photos.0.name"] == "a.jpg")
  }

  @Test(arguments: ChartSyntax.allCases)
  func aMappingIsWrittenBackInBothSyntaxes(syntax: ChartSyntax) throws {
    let file = try ChartFile.read(contentsOf: sampleURL("shop", syntax))
    guard case .subflow(let subflow) = file.states[0].kind else {
      Issue.record("not a subflow")
      return
    }
    #expect(subflow.mapping == "order")
    #expect(subflow.contextPath == nil)
    let written = file.text(in: syntax)
    #expect(written.contains(syntax == .json ? #""mapping": "order""# : #"mapping="order""#))
    let reread = try ChartFile.parse(written, syntax: syntax, path: file.path)
    for other in ChartSyntax.allCases {
      #expect(reread.text(in: other) == file.text(in: other))
    }
  }
}
