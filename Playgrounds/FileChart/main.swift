// FileChart: charts read from files. The Health workflow from `Samples/health.json`, its names
// bound to Swift closures and run down every route; then the data-only form of
// `Samples/form.xml`, which needs no Swift: its answers decide the route. Then a file with
// mistakes, and what binding it reports. Last, the files that compose: `Samples/review.json`
// runs another file as a subflow and declares outcomes, `Samples/gallery.xml` maps a chart over
// an array of photos, and a waiting state takes its input from a live run.
// Run it from the package's folder with `swift run FileChart`.

import Flowchart
import FlowchartFiles
import Foundation

/// The test subject: the answers the decisions read, and what the exercises leave behind.
struct Subject: Sendable {
  var isWillingToExercise: Bool
  var isInjured: Bool
  var log: [String] = []
}

/// The Health workflow's code, by the names its file gives.
func healthHandlers() -> HandlerRegistry<Subject> {
  var handlers = HandlerRegistry<Subject>()
  handlers["isWillingToExercise"] = .condition { $0.isWillingToExercise }
  handlers["isInjured"] = .condition { $0.isInjured }
  handlers["liftWeights"] = .action { subject in
    try await Task.sleep(for: .milliseconds(30))
    subject.log.append("lifted weights")
  }
  handlers["doSitUps"] = .action { subject in
    try await Task.sleep(for: .milliseconds(10))
    subject.log.append("did sit-ups")
  }
  return handlers
}

func showHealth() async throws {
  let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/health.json"))
  let health = try file.flowchart(handlers: healthHandlers())
  print(health)
  for subject in [
    Subject(isWillingToExercise: true, isInjured: false),
    Subject(isWillingToExercise: false, isInjured: true),
    Subject(isWillingToExercise: false, isInjured: false),
  ] {
    let result = try await health.run(with: subject)
    print(
      "\(result.finalStateName) \(result.decision): \(result.pathNames.joined(separator: " → "))")
  }
  print()
}

func showForm() throws {
  let file = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/form.xml"))
  let form = try file.flowchart(handlers: HandlerRegistry<ChartValue>())
  print(form)
  let answers: [ChartValue] = [
    [
      "answers": [
        "name": "Ada", "age": 36, "email": "ada@example.com", "plan": "team", "seats": 80,
      ]
    ],
    ["answers": ["name": "Bo", "age": 15, "email": "bo@example.com", "plan": "pro"]],
    ["answers": ["name": "Cy", "age": 40, "email": "cy@example.com", "plan": "basic"]],
    ["answers": ["name": "Di"]],
  ]
  for context in answers {
    let result = try form.runSynchronously(with: context)
    let name = context[path: "answers.name"]?.keyText ?? "?"
    let status = result.context[path: "status"]?.keyText ?? "?"
    print("\(name) → \(result.finalStateName): \(status)")
  }
  print()
}

func showMistakes() {
  let text = """
    <flowchart>
      <condition name="Willing to exercise?" run="isWilling">
        <yes>
          <action name="Lift weights" run="isInjured"/>
          <goTo state="Do sit-up"/>
        </yes>
      </condition>
      <action name="Do sit-ups" final="true" run="doSitUps"/>
    </flowchart>
    """
  do throws(DefinitionError) {
    let file = try ChartFile.parse(text, syntax: .xml, path: "mistakes.xml")
    _ = try file.flowchart(handlers: healthHandlers())
  } catch {
    print(error)
  }
}

func showComposed() async throws {
  let review = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/review.json"))
    .flowchart(handlers: HandlerRegistry<ChartValue>())
  for answers: ChartValue in [["name": "Ann", "email": "ann@example.com"], ["name": "Bo"]] {
    let result = try review.runSynchronously(with: ["answers": answers])
    print("\(result.finalStateName): \(result.outcome(as: String.self) ?? "no outcome")")
  }
  let gallery = try ChartFile.read(contentsOf: URL(fileURLWithPath: "Samples/gallery.xml"))
    .flowchart(handlers: HandlerRegistry<ChartValue>())
  print(gallery.mermaidDescription)
  let photos = try await gallery.run(with: ["photos": [["width": 4000], ["width": 800]]])
  print("resized: \(photos.context[path: "resized"] ?? nil)")
  let approval = try ChartFile.parse(
    #"{"flowchart": [{"wait": "Approval", "storeAt": "approvedBy"}, {"action": "Ship", "final": true}]}"#,
    syntax: .json, path: "approval.json"
  ).flowchart(handlers: HandlerRegistry<ChartValue>())
  let handle = approval.start(with: [:])
  try handle.send(ChartValue.string("Ann"), to: "Approval")
  print("approved by: \(try await handle.result.context[path: "approvedBy"] ?? nil)")
}

try await showHealth()
try showForm()
showMistakes()
try await showComposed()
