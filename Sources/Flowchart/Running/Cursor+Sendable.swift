// A `Cursor` is `Sendable`, so that the asynchronous loop can lend it (`inout`) to a stretch
// of synchronous states that runs on the actor a run was started from
// (`Interpreter+Isolation.swift`). It is safe because the cursor is noncopyable: it has one
// owner at a time, and lending it `inout` gives the callee exclusive access until it returns,
// so no two executors ever touch it at once. What it holds is either `Sendable` (its state and
// flow numbers; its pending joins' contexts, which are `Sendable`, and their recorded paths,
// `@unchecked Sendable` and never written again) or owned by it alone (its `PathRecorder`,
// itself noncopyable, whose ring no other value points to).
extension Cursor: @unchecked Sendable {}
