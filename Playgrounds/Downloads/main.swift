// Downloads: a dispatch running two asynchronous downloads concurrently, each in its own branch
// on its own copy of the context, folded back by a `merge:` closure before a final action —
// timed against the same two downloads awaited one after the other.
// Run it with `swift run Downloads`.

import Flowchart

/// What the downloads fill in, and what the final action makes of it.
struct Feed: Sendable {
  var avatar: String?
  var posts: [String] = []
  /// What happened, in the order the context saw it.
  var log: [String] = []
  var summary = ""
}

/// Simulates a slow download.
func downloadAvatar() async throws -> String {
  try await Task.sleep(for: .milliseconds(300))
  return "avatar.png"
}

/// Simulates a faster download.
func downloadPosts() async throws -> [String] {
  try await Task.sleep(for: .milliseconds(200))
  return ["Hello", "Flowcharts in Swift"]
}

/// Two downloads in parallel, then a final action. Each branch writes its own field and adds
/// to the log it started with; `merge` folds every branch's copy into the context in
/// declaration order, once both have ended. It takes from each branch only what the branch
/// added to the log: `original` is the context as it was before the dispatch, so the line
/// "feed opened" that every branch's copy starts with is not appended again.
func makeDownloadsChart() throws(DefinitionError) -> Flowchart<Feed> {
  try Flowchart<Feed> {
    Action("Open feed") { $0.log.append("feed opened") }
    Dispatch("Download") { context, branch, original in
      context.avatar = context.avatar ?? branch.avatar
      context.posts += branch.posts
      context.log += branch.log.dropFirst(original.log.count)
    } branches: {
      Branch {
        Action("Download avatar", isFinal: true) { feed in
          feed.avatar = try await downloadAvatar()
          feed.log.append("avatar downloaded")
        }
      }
      Branch {
        Action("Download posts", isFinal: true) { feed in
          feed.posts = try await downloadPosts()
          feed.log.append("posts downloaded")
        }
      }
    }
    Action("Show feed", isFinal: true) { feed in
      feed.summary = "\(feed.avatar ?? "no avatar"), \(feed.posts.count) posts"
    }
  }
}

/// A duration in whole milliseconds.
func milliseconds(_ duration: Duration) -> Int64 {
  let (seconds, attoseconds) = duration.components
  return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
}

func showDownloads() async throws {
  let chart = try makeDownloadsChart()
  print(chart)
  print()

  let clock = ContinuousClock()
  let start = clock.now
  let result = try await chart.run(with: Feed())
  let parallel = start.duration(to: clock.now)

  let sequentialStart = clock.now
  var sequential = Feed()
  sequential.avatar = try await downloadAvatar()
  sequential.posts = try await downloadPosts()
  let oneAfterTheOther = sequentialStart.duration(to: clock.now)

  print("Final state: \(result.finalStateName), decision: \(result.decision)")
  print("Path: \(result.path.map { chart[$0].name }.joined(separator: " → "))")
  print("Merged context:")
  print("  avatar: \(result.context.avatar ?? "nil")")
  print("  posts: \(result.context.posts)")
  print("  summary: \(result.context.summary)")
  // The posts finish first, yet the avatar's branch is merged first: merge follows the order
  // the branches are declared in, never the order they end in.
  print("  log: \(result.context.log)")
  print("Dispatch, in parallel: \(milliseconds(parallel)) ms")
  print("Same downloads, one after the other: \(milliseconds(oneAfterTheOther)) ms")
}

try await showDownloads()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("Downloads") {
    try await showDownloads()
  }
#endif
