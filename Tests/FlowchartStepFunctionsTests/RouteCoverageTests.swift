import Flowchart
import FlowchartFiles
import FlowchartTesting
import Foundation
import Testing

/// The contexts `.ci/stepfunctions.sh` runs on moto's Step Functions (`cases.json`) take
/// every route FlowchartTesting's `routes()` finds through each chart that no input can
/// avoid, so that "the same on Step Functions" covers every route: the routes no context
/// takes are listed here, each one no data can take.
struct RouteCoverageTests {
  /// The routes of `chart` the runs on `contexts` take none of, as text.
  private func untaken(_ path: String, _ contexts: [ChartValue]) async throws -> [String] {
    let chart = try fileChart(path)
    var taken: Set<[String]> = []
    for context in contexts {
      let names: [String]
      do {
        names = try await chart.run(with: context).pathNames
      } catch {
        names = error.pathNames
      }
      taken.insert(names.sorted())
    }
    return chart.routes().filter { !taken.contains($0.stateNames.sorted()) }.map(\.description)
  }

  @Test func motoCasesTakeEveryRouteDataCanTake() async throws {
    let url = repositoryRoot.appendingPathComponent(".ci/stepfunctions/cases.json")
    let cases = try ChartValue(jsonText: String(contentsOf: url, encoding: .utf8))
    guard case .object(let charts)? = cases[path: "charts"] else {
      Issue.record("cases.json has no charts")
      return
    }
    var report: [String] = []
    for (path, value) in charts.sorted(by: { $0.key < $1.key }) {
      guard case .array(let contexts) = value else { continue }
      // A case with values for waiting states is {"context": …, "send": …}; a live run
      // sends them, which `run(with:)` cannot.
      if contexts.contains(where: { $0[path: "send"] != nil }) { continue }
      for route in try await untaken(path, contexts) { report.append("\(path): \(route)") }
    }
    // Charge card always fails (its file says so), and no data makes Record order time out:
    // a script would force those, but a Step Functions execution takes only its input.
    #expect(
      report == [
        "Samples/payment.json: Record order → Card declined? [yes] → Charge card → Ship [done]",
        "Samples/payment.json: Record order [fails, retried] → Card declined? [yes] → Charge card → Ship [done]",
        "Samples/payment.json: Record order [fails 3×, run fails]",
        "Samples/payment.json: Record order [times out 3×, run fails]",
      ], "routes no moto case takes:\n\(report.joined(separator: "\n"))")
  }
}
