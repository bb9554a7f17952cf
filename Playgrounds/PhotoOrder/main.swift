// PhotoOrder: Task.framework's example app as a live run. An order is a graph of tasks, each
// started as soon as its prerequisites have finished: create the project; upload each photo
// once the project exists and the photo is available; submit the order once both photos are
// uploaded and the metadata is available. The photos and the metadata arrive from outside, at
// different times (the user picks photos, a server answers). The run's events print as they
// happen. The first upload of photo 1 fails and its retry rule tries again after a delay; the
// submission to the main server fails on purpose, and the run log shows where and why; the run
// is then retried from the failed submission, with the backup server: the uploads done are
// kept, nothing is sent again.
// Run it with `swift run PhotoOrder`.

import Flowchart

struct Photo: Sendable {
  var name: String
}

struct Metadata: Sendable {
  var title: String
}

struct PhotoOrder: Sendable {
  var project = ""
  var photos: [String: String] = [:]
  /// The photos uploaded, by number: a branch that starts after others holds their uploads
  /// too, so the merge takes the union rather than appending.
  var uploaded: [String: String] = [:]
  var title = ""
  var server = "main"
  var isSubmitted = false
}

struct UploadFailed: Error, CustomStringConvertible {
  let what: String
  var description: String { "\(what): the connection dropped" }
}

struct SubmitFailed: Error, CustomStringConvertible {
  let server: String
  var description: String { "the \(server) server answered 503" }
}

/// A network that drops the first upload of photo 1.
actor Network {
  private var hasDropped = false

  func upload(_ photo: String) async throws {
    try await Task.sleep(for: .milliseconds(10))
    if photo == "sunset.jpg" && !hasDropped {
      hasDropped = true
      throw UploadFailed(what: photo)
    }
  }
}

func makePhotoOrder(network: Network) throws(DefinitionError) -> Flowchart<PhotoOrder> {
  // swift-format-ignore
  try Flowchart<PhotoOrder> {
    Dispatch("Order", isFinal: true) { order, task in
      if !task.project.isEmpty { order.project = task.project }
      order.photos.merge(task.photos) { first, _ in first }
      order.uploaded.merge(task.uploaded) { first, _ in first }
      if !task.title.isEmpty { order.title = task.title }
      order.isSubmitted = order.isSubmitted || task.isSubmitted
    } branches: {
      Branch("Create project") {
        Action("Create project", isFinal: true) { $0.project = "Holidays 2026" }
      }
      Branch("Photo 1 available") {
        Wait("Photo 1 available", for: Photo.self, isFinal: true) { $0.photos["1"] = $1.name }
      }
      Branch("Photo 2 available") {
        Wait("Photo 2 available", for: Photo.self, isFinal: true) { $0.photos["2"] = $1.name }
      }
      Branch("Metadata available") {
        Wait("Metadata available", for: Metadata.self, isFinal: true) { $0.title = $1.title }
      }
      for number in ["1", "2"] {
        Branch("Upload photo \(number)", after: ["Create project", "Photo \(number) available"]) {
          Action("Upload photo \(number)", isFinal: true) { order in
            let photo = order.photos[number] ?? ""
            try await network.upload(photo)
            order.uploaded[number] = photo
          }
          .retry(2, backoff: .fixed(.milliseconds(20)))
        }
      }
      Branch("Submit order", after: ["Upload photo 1", "Upload photo 2", "Metadata available"]) {
        Action("Submit order", isFinal: true) { order in
          try await Task.sleep(for: .milliseconds(10))
          if order.server == "main" { throw SubmitFailed(server: order.server) }
          order.isSubmitted = true
        }
      }
    }
  }
}

/// Prints the events that tell the story: waits, decisions, failures and the end.
func printEvents(_ events: RunEventStream) async {
  for await event in events {
    switch event.kind {
    case .waitingForInput, .stateDecided, .stateFailed, .runStarted, .runFinished, .runFailed,
      .attemptFailed, .retrying:
      let flow = event.flow == 0 ? "" : "[branch flow \(event.flow)] "
      print("  \(flow)\(event.stateName): \(event.kind)")
    default:
      break
    }
  }
}

func showPhotoOrder() async throws {
  let chart = try makePhotoOrder(network: Network())
  print(chart)
  print()
  print("Order, uploading to the main server")
  let handle = chart.start(with: PhotoOrder(), isPaused: true, isLogged: true)
  let stream = handle.events()
  let events = Task { await printEvents(stream) }
  handle.resume()
  // The outside world: the metadata comes first, then the photos, at different times.
  try handle.send(Metadata(title: "Holidays"), to: "Metadata available")
  try await Task.sleep(for: .milliseconds(30))
  try handle.send(Photo(name: "beach.jpg"), to: "Photo 2 available")
  try await Task.sleep(for: .milliseconds(30))
  try handle.send(Photo(name: "sunset.jpg"), to: "Photo 1 available")
  // Sending to a state that does not wait is an error at the call; the run goes on.
  do {
    try handle.send(Photo(name: "extra.jpg"), to: "Submit order")
  } catch {
    print("  send refused: \(error)")
  }
  await events.value
  do {
    _ = try await handle.result
  } catch {
    print("  the run failed at '\(error.stateName)'; its log:")
    for line in handle.log.lines { print("    \(line)") }
  }
  print()

  print("The same run, retried from the failed submission with the backup server")
  let retried = try handle.retry(isPaused: true, isLogged: true) { $0.server = "backup" }
  let retriedStream = retried.events()
  let retriedEvents = Task { await printEvents(retriedStream) }
  retried.resume()
  await retriedEvents.value
  let result = try await retried.result
  print(
    "  submitted \(result.context.uploaded.sorted { $0.key < $1.key }.map(\.value)) for '\(result.context.project)',"
      + " titled '\(result.context.title)'")
  print("  path: \(result.path.map { chart[$0].name }.joined(separator: " → "))")
  print("  its log:")
  for line in retried.log.lines { print("    \(line)") }
  // Once a run has ended, input is refused at the call.
  do {
    try retried.send(Photo(name: "late.jpg"), to: "Photo 1 available")
  } catch {
    print("  send refused: \(error)")
  }
}

try await showPhotoOrder()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("Photo order") {
    try await showPhotoOrder()
  }
#endif
