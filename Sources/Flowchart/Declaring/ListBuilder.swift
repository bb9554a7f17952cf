/// The block rules every builder of the DSL shares: how the statements of a block become the
/// block's list, in order.
///
/// ``FlowBuilder`` (declarations), ``BranchBuilder`` (a dispatch's branches) and
/// ``ExitBuilder`` (a multiple condition's exits) differ only in what a statement may be:
/// each adds its `buildExpression` overloads, and takes the rest from this protocol's
/// extension. So every block supports the same syntax — `if`, `if`-`else`, `switch`, `for`,
/// `if #available`, and a list of elements built elsewhere, such as by a function marked
/// with the builder — and a statement costs no array of its own.
public protocol ListBuilder {
  /// What a block lists.
  associatedtype Element: Sendable
}

/// The elements of a block gathered so far, while a builder works through it.
///
/// You never use this type: a builder turns it into the block's `[Element]` once the block
/// is complete. It holds a single element without allocating, so a statement costs no array
/// of its own, and a block of any length costs one array.
public struct PartialList<Element: Sendable>: Sendable {
  @usableFromInline
  enum Storage: Sendable {
    case empty
    case one(Element)
    case many([Element])
  }

  @usableFromInline var storage: Storage

  @inlinable
  init(_ storage: Storage) {
    self.storage = storage
  }

  /// How many elements the partial list holds.
  @inlinable
  var count: Int {
    switch storage {
    case .empty: 0
    case .one: 1
    case .many(let elements): elements.count
    }
  }

  /// Appends `other`'s elements.
  @inlinable
  mutating func append(_ other: consuming PartialList) {
    if case .empty = other.storage { return }
    switch storage {
    case .empty:
      self = other
    case .one(let first):
      guard case .one(let second) = other.storage else {
        var elements: [Element] = []
        elements.reserveCapacity(1 + other.count)
        elements.append(first)
        other.add(to: &elements)
        storage = .many(elements)
        return
      }
      // Two statements, the most common block of more than one (a condition and the state
      // after it): the array made at its size in one step, as a literal is, rather than
      // reserved empty and appended to (issue 26: that took about 700 instructions a block,
      // most of them growing the empty array).
      storage = .many([first, second])
    case .many(var elements):
      // Emptied first, so that `elements` is the array's only reference and grows in place.
      storage = .empty
      other.add(to: &elements)
      storage = .many(elements)
    }
  }

  /// Appends the elements to `list`.
  @inlinable
  func add(to list: inout [Element]) {
    switch storage {
    case .empty: break
    case .one(let element): list.append(element)
    case .many(let elements): list.append(contentsOf: elements)
    }
  }

  /// Appends the elements to `list`, giving up this partial list's references to them.
  @inlinable
  consuming func move(to list: inout [Element]) {
    let storage = self.storage
    switch consume storage {
    case .empty: break
    case .one(let element): list.append(element)
    case .many(let elements): list.append(contentsOf: elements)
    }
  }

  /// The elements, as the block's final array.
  @inlinable
  consuming func elements() -> [Element] {
    switch storage {
    case .empty: []
    case .one(let element): [element]
    case .many(let elements): elements
    }
  }
}

extension ListBuilder {
  /// The elements of a block gathered so far.
  public typealias PartialBlock = PartialList<Element>

  /// Lifts one element into the block.
  @inlinable
  public static func buildExpression(_ element: Element) -> PartialBlock {
    PartialBlock(.one(element))
  }

  /// Splices a list of elements built elsewhere, such as by a function marked with the
  /// builder, into the block.
  @inlinable
  public static func buildExpression(_ elements: [Element]) -> PartialBlock {
    PartialBlock(elements.isEmpty ? .empty : .many(elements))
  }

  /// Makes an empty block.
  @inlinable
  public static func buildBlock() -> PartialBlock { PartialBlock(.empty) }

  /// Starts a block with its first statement's elements.
  @inlinable
  public static func buildPartialBlock(first: PartialBlock) -> PartialBlock {
    first
  }

  /// Adds a statement's elements to a block: appending, so a block costs one array whatever
  /// its length.
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

  /// Supports `for` loops: one array for all the iterations' elements.
  ///
  /// The iterations' parts are moved into it, not copied: a loop over thousands of states
  /// costs no retain and release of each. It has room for one more element, for the
  /// statement that usually follows a loop (a chart's final state), so that adding it does
  /// not copy the whole array into one twice as large.
  @inlinable
  public static func buildArray(_ parts: consuming [PartialBlock]) -> PartialBlock {
    var parts = parts
    var count = 0
    for index in parts.indices { count += parts[index].count }
    if count == 0 { return PartialBlock(.empty) }
    var elements: [Element] = []
    elements.reserveCapacity(count + 1)
    parts.withUnsafeMutableBufferPointer { parts in
      for index in parts.indices {
        var part = PartialBlock(.empty)
        swap(&part, &parts[index])
        part.move(to: &elements)
      }
    }
    return PartialBlock(.many(elements))
  }

  /// Supports `if #available` checks.
  @inlinable
  public static func buildLimitedAvailability(_ part: PartialBlock) -> PartialBlock {
    part
  }

  /// Ends a block: its elements, in order.
  @inlinable
  public static func buildFinalResult(_ block: PartialBlock) -> [Element] {
    block.elements()
  }
}
