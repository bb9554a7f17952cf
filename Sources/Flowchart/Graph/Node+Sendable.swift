// A `Node` is `Sendable`: it is a plain value (a kind, a flag, two indices) and one pointer to
// its state's code box, which it never writes through. Every code box is a final `Sendable`
// class whose closure is `@Sendable` (`Code/CodeBoxes.swift`), and the graph keeps it alive for
// as long as a run holds the graph (see `code`), so a copy of a node read on another executor
// calls the same immutable box safely. The run loop needs it when it is isolated to the caller's
// actor and calls an asynchronous state's box, which runs on the global concurrent executor.
extension Node: @unchecked Sendable {}
