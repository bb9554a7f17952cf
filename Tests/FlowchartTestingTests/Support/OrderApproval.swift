import Flowchart

/// One line of an order: what the map over an order's lines packs.
struct OrderLine: Sendable, Equatable {
  var sku: String
  var quantity: Int
  var isPacked = false
}

/// The context of the order-approval chart.
struct Order: Sendable {
  var lines: [OrderLine] = [OrderLine(sku: "mug", quantity: 2)]
  var amount = 40
  var isStockReserved = false
  var isCharged = false
  var isApproved: Bool?
  var rejection: String?
  var log: [String] = []
}

/// What the amount decides: orders above 1,000 need a manager's approval.
enum AmountBand: Sendable, CaseIterable {
  case small, large
}

/// What validation throws for an order without lines.
struct InvalidOrder: Error {}

/// The order-approval chart a new user writes: validation with a catch route, a keyed choice
/// on the amount, a deciding `Wait` for a manager's approval, a dispatch that reserves stock
/// and charges a card (the charge retried), a map over the order's lines, final states.
func orderApproval() throws -> Flowchart<Order> {
  let packLine = try Flowchart<OrderLine> {
    Action("Pack line", isFinal: true) { $0.isPacked = true }
  }
  // swift-format-ignore
  return try Flowchart<Order> {
    Action("Validate order") { order in
      guard !order.lines.isEmpty else { throw InvalidOrder() }
      order.log.append("validated")
    }
    .catch(goTo: "Reject invalid order") { order, error in order.rejection = "\(error)" }
    MultipleCondition("Amount?") { $0.amount > 1000 ? AmountBand.large : .small } exits: {
      Case(AmountBand.small) { GoTo("Fulfil") }
      Case(.large) {
        Wait("Manager approval", for: Bool.self) { order, approved in
          order.isApproved = approved
          return approved
        } yes: {
          GoTo("Fulfil")
        } no: {
          Action("Decline order", isFinal: true) { $0.log.append("declined") }
        }
      }
    }
    Dispatch("Fulfil") { order, branch in
      order.isStockReserved = order.isStockReserved || branch.isStockReserved
      order.isCharged = order.isCharged || branch.isCharged
    } branches: {
      Branch("Stock") {
        Action("Reserve stock", isFinal: true) { $0.isStockReserved = true }
      }
      Branch("Payment") {
        Action("Charge card", isFinal: true) { $0.isCharged = true }
          .retry(2)
      }
    }
    Map("Pack lines", over: { $0.lines }, running: packLine) { order, results in
      order.lines = results.outputs
    }
    Action("Ship", isFinal: true) { $0.log.append("shipped") }
    Action("Reject invalid order", isFinal: true) { $0.log.append("rejected") }
  }
}
