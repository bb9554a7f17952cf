/// Builds a block of declarations: the states of a chart, a branch or an exit, in order.
///
/// A block reads top to bottom: a state without an explicit exit goes on to the next
/// declaration in its block. `if`, `if`-`else`, `switch` and `for` statements choose or
/// repeat declarations while the chart is being declared (not while it runs), so charts
/// can be generated from data.
@resultBuilder
public enum FlowBuilder<Context: Sendable> {
  /// Lifts an ``Action`` into the block.
  @inlinable
  public static func buildExpression(_ state: Action<Context>) -> [Declaration<Context>] {
    [state.declaration]
  }

  /// Lifts a ``Condition`` into the block.
  @inlinable
  public static func buildExpression(_ state: Condition<Context>) -> [Declaration<Context>] {
    [state.declaration]
  }

  /// Lifts a ``MultipleCondition`` into the block.
  @inlinable
  public static func buildExpression<Key>(
    _ state: MultipleCondition<Context, Key>
  ) -> [Declaration<Context>] {
    [state.declaration]
  }

  /// Lifts a ``Dispatch`` into the block.
  @inlinable
  public static func buildExpression(_ state: Dispatch<Context>) -> [Declaration<Context>] {
    [state.declaration]
  }

  /// Lifts a ``GoTo`` into the block.
  @inlinable
  public static func buildExpression(_ arrow: GoTo) -> [Declaration<Context>] {
    [Declaration(.goTo(GoToDeclaration(name: arrow.name, location: arrow.location)))]
  }

  /// Splices a list of declarations built elsewhere into the block.
  @inlinable
  public static func buildExpression(_ declarations: [Declaration<Context>]) -> [Declaration<
    Context
  >] {
    declarations
  }

  /// Makes an empty block.
  @inlinable
  public static func buildBlock() -> [Declaration<Context>] { [] }

  /// Starts a block with its first statement's declarations.
  @inlinable
  public static func buildPartialBlock(first: [Declaration<Context>]) -> [Declaration<Context>] {
    first
  }

  /// Adds a statement's declarations to a block: appending, so a block costs one array
  /// whatever its length.
  @inlinable
  public static func buildPartialBlock(
    accumulated: consuming [Declaration<Context>], next: [Declaration<Context>]
  ) -> [Declaration<Context>] {
    var block = accumulated
    block.append(contentsOf: next)
    return block
  }

  /// Supports `if` without `else`.
  @inlinable
  public static func buildOptional(_ part: [Declaration<Context>]?) -> [Declaration<Context>] {
    part ?? []
  }

  /// Supports the first branch of `if`-`else` and `switch`.
  @inlinable
  public static func buildEither(first part: [Declaration<Context>]) -> [Declaration<Context>] {
    part
  }

  /// Supports the second branch of `if`-`else` and `switch`.
  @inlinable
  public static func buildEither(second part: [Declaration<Context>]) -> [Declaration<Context>] {
    part
  }

  /// Supports `for` loops.
  @inlinable
  public static func buildArray(_ parts: [[Declaration<Context>]]) -> [Declaration<Context>] {
    var block: [Declaration<Context>] = []
    block.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    for part in parts {
      block.append(contentsOf: part)
    }
    return block
  }
}
