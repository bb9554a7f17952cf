// FirstLaunch: the flow from STWorkflow's README — two conditions, final states and joins with
// GoTo — printed as a tree, then run synchronously down every path.
// Run it with `swift run FirstLaunch`.

import Flowchart

/// What the checks read and what the actions leave behind.
struct Launch: Sendable {
  var isFirstLaunch: Bool
  var passesOtherCheck: Bool
  var log: [String] = []
}

/// STWorkflow's sample flow. Both paths of "An other check" join "Final state" by name.
func makeFirstLaunchChart() throws(DefinitionError) -> Flowchart<Launch> {
  // Left unformatted so that each decision stays on its condition's line, like the tree.
  // swift-format-ignore
  try Flowchart<Launch> {
    Condition("Check first launch") { $0.isFirstLaunch } yes: {
      Action("Fetch something") { $0.log.append("fetched something") }
      Action("Final state", isFinal: true)
    } no: {
      Condition("An other check") { $0.passesOtherCheck } yes: {
        GoTo("Final state")
      } no: {
        Action("Log something") { $0.log.append("logged something") }
        GoTo("Final state")
      }
    }
  }
}

/// Prints one run: where it ended, what the final state decided, and the path it took.
func report(_ title: String, _ result: RunResult<Launch>, in chart: Flowchart<Launch>) {
  print(title)
  print("  final state: \(result.finalStateName), decision: \(result.decision)")
  print("  path: \(result.path.map { chart[$0].name }.joined(separator: " → "))")
  print("  log: \(result.context.log)")
}

func showFirstLaunch() throws {
  let chart = try makeFirstLaunchChart()
  print(chart)
  print()

  let runs: [(title: String, launch: Launch)] = [
    ("First launch", Launch(isFirstLaunch: true, passesOtherCheck: false)),
    ("Later launch, other check passes", Launch(isFirstLaunch: false, passesOtherCheck: true)),
    ("Later launch, other check fails", Launch(isFirstLaunch: false, passesOtherCheck: false)),
  ]
  for run in runs {
    // Every state is synchronous, so no `await` is needed.
    report(run.title, try chart.runSynchronously(with: run.launch), in: chart)
  }

  // A run may start at any top-level state, here skipping the first check.
  let resumed = try chart.runSynchronously(
    with: Launch(isFirstLaunch: false, passesOtherCheck: false), startingAt: "An other check")
  report("Started at \"An other check\"", resumed, in: chart)
}

try showFirstLaunch()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("First launch") {
    try showFirstLaunch()
  }
#endif
