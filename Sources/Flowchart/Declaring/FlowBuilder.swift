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

  /// Lifts an ``Action`` into the block.
  @inlinable
  public static func buildExpression(_ state: Action<Context>) -> PartialBlock {
    PartialBlock(.one(state.declaration))
  }

  /// Lifts a ``Condition`` into the block.
  @inlinable
  public static func buildExpression(_ state: Condition<Context>) -> PartialBlock {
    PartialBlock(.one(state.declaration))
  }

  /// Lifts a ``MultipleCondition`` into the block.
  @inlinable
  public static func buildExpression<Key>(
    _ state: MultipleCondition<Context, Key>
  ) -> PartialBlock {
    PartialBlock(.one(state.declaration))
  }

  /// Lifts a ``Dispatch`` into the block.
  @inlinable
  public static func buildExpression(_ state: Dispatch<Context>) -> PartialBlock {
    PartialBlock(.one(state.declaration))
  }

  /// Lifts a ``GoTo`` into the block.
  @inlinable
  public static func buildExpression(_ arrow: GoTo) -> PartialBlock {
    PartialBlock(
      .one(Declaration(.goTo(GoToDeclaration(name: arrow.name, location: arrow.location)))))
  }
}
