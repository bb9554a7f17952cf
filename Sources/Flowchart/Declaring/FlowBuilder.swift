/// Builds a block of declarations: the states of a chart, a branch or an exit, in order.
///
/// A block reads top to bottom: a state without an explicit exit goes on to the next
/// declaration in its block. `if`, `if`-`else`, `switch`, `for` and `if #available` choose or
/// repeat declarations while the chart is being declared (not while it runs), so charts
/// can be generated from data.
///
/// A function can build a block too, to split a large chart or generate part of it:
///
/// ```swift
/// @FlowBuilder<Order>
/// func shipping() -> [Declaration<Order>] {
///   Action("Pack") { $0.isPacked = true }
///   Action("Ship", isFinal: true)
/// }
/// ```
///
/// Its block rules (`if`, `switch`, `for`, `if #available`, splicing a list built
/// elsewhere) are those of every builder of the DSL; see ``ListBuilder``.
@resultBuilder
public enum FlowBuilder<Context: Sendable>: ListBuilder {
  /// A block lists declarations.
  public typealias Element = Declaration<Context>

  /// Lifts a state into the block: an ``Action``, a ``Condition``, a
  /// ``MultipleCondition``, a ``Dispatch``, or any other ``FlowComponent``.
  @inlinable
  public static func buildExpression<Component: FlowComponent>(
    _ component: consuming Component
  ) -> PartialBlock where Component.Context == Context {
    PartialBlock(.one(component.declaration))
  }

  /// Lifts a ``GoTo`` into the block.
  @inlinable
  public static func buildExpression(_ arrow: GoTo) -> PartialBlock {
    PartialBlock(
      .one(Declaration(.goTo(GoToDeclaration(name: arrow.name, location: arrow.location)))))
  }
}

/// A type that declares one state of a chart: what a ``FlowBuilder`` block accepts.
///
/// ``Action``, ``Condition``, ``MultipleCondition`` and ``Dispatch`` conform; so can a type of
/// yours that packages a state you declare often, by returning the declaration of one of
/// them:
///
/// ```swift
/// struct Checkpoint<Context: Sendable>: FlowComponent {
///   var name: String
///   var declaration: Declaration<Context> { Action(name).declaration }
/// }
///
/// let chart = try Flowchart<Order> {
///   Checkpoint(name: "Received")
///   Action("Ship", isFinal: true)
/// }
/// ```
///
/// A new kind of state that Flowchart itself adds conforms the same way, so the builder
/// needs no change for it.
public protocol FlowComponent<Context> {
  /// The context of the chart the state belongs to.
  associatedtype Context: Sendable
  /// The state, as a ``FlowBuilder`` block lists it.
  var declaration: Declaration<Context> { get }
}
