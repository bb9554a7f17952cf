import Foundation
import Testing

@testable import Flowchart

/// The context of the charts whose runs are drawn.
struct Trip: Sendable {
  var isBooked = true
  var visits = 0
}

/// What the failing branch throws.
struct SoldOut: Error {}

/// Charts whose runs the diagram draws, each timed by a manual clock so that the times in
/// the goldens are exact.
enum RunDiagramCharts {
  /// A retry loop and a dispatch whose two branches both finish.
  // swift-format-ignore
  static func trip(_ clock: ManualClock, failing: Bool = false) throws -> Flowchart<Trip> {
    try Flowchart<Trip> {
      Action("Plan") { trip in
        clock.advance(by: .milliseconds(100))
        trip.visits += 1
      }
      Condition("Booked?") { $0.visits >= 2 } yes: {
        Dispatch("Book", maxConcurrency: 1) {
          Branch("Hotel") {
            Action("Reserve room", isFinal: true) { _ in clock.advance(by: .milliseconds(200)) }
          }
          Branch("Flight", after: ["Hotel"]) {
            Action("Buy ticket", isFinal: true) { _ in
              clock.advance(by: .milliseconds(300))
              if failing { throw SoldOut() }
            }
          }
          Branch("Car", after: ["Flight"]) {
            Action("Rent car", isFinal: true)
          }
        }
        Action("Pack", isFinal: true)
      } no: {
        Condition("Give up?") { _ in false } yes: {
          Action("Cancel trip", isFinal: true)
        } no: {
          GoTo("Plan")
        }
      }
    }
  }
}

struct RunDiagramTests {
  @Test func dumpEvents() async throws {
    for failing in [false, true] {
      let clock = ManualClock()
      let chart = try RunDiagramCharts.trip(clock, failing: failing)
      let handle = chart.start(with: Trip(), clock: clock, isLogged: true)
      _ = try? await handle.result
      print(handle.log)
      let run = RunOverlay(log: handle.log)
      print(chart.mermaidDescription(showing: run))
      print(chart.dotDescription(showing: run))
    }
  }
}
