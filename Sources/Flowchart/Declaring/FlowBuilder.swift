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
@resultBuilder
public enum FlowBuilder<Context: Sendable> {
  /// The declarations of a block gathered so far, while the builder works through it.
  ///
  /// You never use this type: the builder turns it into the block's `[Declaration]` once
  /// the block is complete. It holds a single declaration without allocating, so a
  /// statement costs no array of its own, and a block of any length costs one array.
  public struct PartialBlock: Sendable {
    @usableFromInline
    enum Storage: Sendable {
      case empty
      case one(Declaration<Context>)
      case many([Declaration<Context>])
    }

    @usableFromInline var storage: Storage

    @inlinable
    init(_ storage: Storage) {
      self.storage = storage
    }

    /// How many declarations the partial block holds.
    @inlinable
    var count: Int {
      switch storage {
      case .empty: 0
      case .one: 1
      case .many(let declarations): declarations.count
      }
    }

    /// Appends `other`'s declarations.
    @inlinable
    mutating func append(_ other: consuming PartialBlock) {
      if case .empty = other.storage { return }
      switch storage {
      case .empty:
        self = other
      case .one(let first):
        var block: [Declaration<Context>] = []
        block.reserveCapacity(1 + other.count)
        block.append(first)
        other.add(to: &block)
        storage = .many(block)
      case .many(var block):
        // Emptied first, so that `block` is the array's only reference and grows in place.
        storage = .empty
        other.add(to: &block)
        storage = .many(block)
      }
    }

    /// Appends the declarations to `block`.
    @inlinable
    func add(to block: inout [Declaration<Context>]) {
      switch storage {
      case .empty: break
      case .one(let declaration): block.append(declaration)
      case .many(let declarations): block.append(contentsOf: declarations)
      }
    }

    /// The declarations, as the block's final array.
    @inlinable
    consuming func declarations() -> [Declaration<Context>] {
      switch storage {
      case .empty: []
      case .one(let declaration): [declaration]
      case .many(let declarations): declarations
      }
    }
  }

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

  /// Splices a list of declarations built elsewhere, such as by a `@FlowBuilder` function,
  /// into the block.
  @inlinable
  public static func buildExpression(_ declarations: [Declaration<Context>]) -> PartialBlock {
    PartialBlock(declarations.isEmpty ? .empty : .many(declarations))
  }

  /// Makes an empty block.
  @inlinable
  public static func buildBlock() -> PartialBlock { PartialBlock(.empty) }

  /// Starts a block with its first statement's declarations.
  @inlinable
  public static func buildPartialBlock(first: PartialBlock) -> PartialBlock {
    first
  }

  /// Adds a statement's declarations to a block: appending, so a block costs one array
  /// whatever its length.
  @inlinable
  public static func buildPartialBlock(
    accumulated: consuming PartialBlock, next: PartialBlock
  ) -> PartialBlock {
    var block = accumulated
    block.append(next)
    return block
  }

  /// Supports `if` without `else`.
  @inlinable
  public static func buildOptional(_ part: PartialBlock?) -> PartialBlock {
    part ?? PartialBlock(.empty)
  }

  /// Supports the first branch of `if`-`else` and `switch`.
  @inlinable
  public static func buildEither(first part: PartialBlock) -> PartialBlock {
    part
  }

  /// Supports the second branch of `if`-`else` and `switch`.
  @inlinable
  public static func buildEither(second part: PartialBlock) -> PartialBlock {
    part
  }

  /// Supports `for` loops: one array for all the iterations' declarations.
  @inlinable
  public static func buildArray(_ parts: [PartialBlock]) -> PartialBlock {
    var block: [Declaration<Context>] = []
    block.reserveCapacity(parts.reduce(0) { $0 + $1.count })
    for part in parts {
      part.add(to: &block)
    }
    return PartialBlock(block.isEmpty ? .empty : .many(block))
  }

  /// Supports `#available` checks.
  @inlinable
  public static func buildLimitedAvailability(_ part: PartialBlock) -> PartialBlock {
    part
  }

  /// Ends a block: its declarations, in order.
  @inlinable
  public static func buildFinalResult(_ block: PartialBlock) -> [Declaration<Context>] {
    block.declarations()
  }
}
