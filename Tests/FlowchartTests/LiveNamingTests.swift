import Flowchart
import Testing

/// What a live run's events, log and handle show: branches by their names, positions by
/// their states' names, an optional by its value, and an action that finished as finished.
@Suite(.timeLimit(.minutes(5)))
struct LiveNamingTests {
  struct Order: Sendable {
    var reserved: Bool?
    var charged = false
  }

  // swift-format-ignore
  static func fulfil() throws -> Flowchart<Order> {
    try Flowchart<Order> {
      Dispatch("Fulfil", maxConcurrency: 1) { order, branch in
        order.reserved = order.reserved ?? branch.reserved
        order.charged = order.charged || branch.charged
      } branches: {
        Branch("Stock") { Action("Reserve stock", isFinal: true) { $0.reserved = true } }
        Branch { Action("Charge the card", isFinal: true) { $0.charged = true } }
      }
      Wait("Shipped?", for: Bool.self, isFinal: true) { _, _ in }
    }
  }

  @Test func theLogNamesANamedBranchPrintsOptionalsAsValuesAndSaysAnActionFinished()
    async throws
  {
    let handle = try Self.fulfil().start(with: Order(), clock: ManualClock(), isLogged: true)
    try handle.send(true, to: "Shipped?")
    _ = try await handle.result
    expectText(
      handle.log.description,
      """
        0.000s  run started at 'Fulfil'
        0.000s  entered 'Fulfil'
        0.000s  'Fulfil' started its branches
        0.000s  [1] branch 'Stock' of 'Fulfil' started
        0.000s  [1] entered 'Reserve stock'
        0.000s  [1] 'Reserve stock' finished in 0.000s
                  reserved: nil → true
        0.000s  [1] branch 'Stock' of 'Fulfil' ended
        0.000s  [2] branch 2 of 'Fulfil' started
        0.000s  [2] entered 'Charge the card'
        0.000s  [2] 'Charge the card' finished in 0.000s
                  charged: false → true
        0.000s  [2] branch 2 of 'Fulfil' ended
        0.000s  'Fulfil' joined its branches
        0.000s  'Fulfil' finished in 0.000s
                  reserved: nil → true
                  charged: false → true
        0.000s  entered 'Shipped?'
        0.000s  'Shipped?' finished in 0.000s
        0.000s  run finished at 'Shipped?', after 4 states
      """)
  }

  @Test func anEventNamesANamedBranchAndNumbersAnUnnamedOne() async throws {
    let handle = try Self.fulfil().start(with: Order(), isPaused: true)
    let events = handle.events()
    handle.resume()
    try handle.send(true, to: "Shipped?")
    var lines: [String] = []
    for await event in events {
      let text = "\(event)"
      // `0.000412s #0 'Fulfil' [flow 1] branch 'Stock' started`: without the time.
      lines.append(String(text.drop { $0 != "#" }))
    }
    #expect(lines.contains("#0 'Fulfil' [flow 1] branch 'Stock' started"))
    #expect(lines.contains("#0 'Fulfil' [flow 1] branch 'Stock' ended"))
    #expect(lines.contains("#0 'Fulfil' [flow 2] branch 2 started"))
    #expect(lines.contains("#1 'Reserve stock' [flow 1] finished"))
    #expect(lines.last == "#3 'Shipped?' run finished")
  }

  @Test func positionNamesAreTheNamesOfThePositions() async throws {
    let chart = try Self.fulfil()
    let handle = chart.start(with: Order(), isPaused: true)
    let waiting = handle.events()
    handle.resume()
    for await event in waiting {
      if case .waitingForInput = event.kind { break }
    }
    #expect(handle.positions == [chart.state(named: "Shipped?")])
    #expect(handle.positionNames == ["Shipped?"])
    try handle.send(false, to: "Shipped?")
    _ = try await handle.result
    #expect(handle.positionNames.isEmpty)
  }
}
