// PhotoOrder: Task.framework's example app as a live run. An order waits for two photos and
// their metadata, which arrive from outside at different times (the user picks photos, a
// server answers); each photo is filtered as soon as it is there, in parallel; then the order
// is uploaded. The run's events print as they happen. The upload to the main server fails on
// purpose, and the run log shows where and why; the run is then retried from the failed
// upload, with the backup server: the photos and metadata gathered are kept, nothing is sent
// again.
// Run it with `swift run PhotoOrder`.

import Flowchart

struct Photo: Sendable {
  var name: String
}

struct Metadata: Sendable {
  var title: String
}

struct PhotoOrder: Sendable {
  var photos: [String] = []
  var title = ""
  var server = "main"
  var isUploaded = false
}

struct UploadFailed: Error, CustomStringConvertible {
  let server: String
  var description: String { "the \(server) server answered 503" }
}

func makePhotoOrder() throws(DefinitionError) -> Flowchart<PhotoOrder> {
  // swift-format-ignore
  try Flowchart<PhotoOrder> {
    Dispatch("Gather") { order, branch, original in
      order.photos += branch.photos.dropFirst(original.photos.count)
      if !branch.title.isEmpty { order.title = branch.title }
    } branches: {
      Branch {
        Wait("Photo 1 available", for: Photo.self) { $0.photos.append($1.name) }
        Action("Filter photo 1", isFinal: true) { order in
          try await Task.sleep(for: .milliseconds(20))
          order.photos[0] += " (sepia)"
        }
      }
      Branch {
        Wait("Photo 2 available", for: Photo.self) { $0.photos.append($1.name) }
        Action("Filter photo 2", isFinal: true) { order in
          try await Task.sleep(for: .milliseconds(20))
          order.photos[0] += " (mono)"
        }
      }
      Branch {
        Wait("Metadata available", for: Metadata.self, isFinal: true) { $0.title = $1.title }
      }
    }
    Action("Upload order", isFinal: true) { order in
      try await Task.sleep(for: .milliseconds(10))
      if order.server == "main" { throw UploadFailed(server: order.server) }
      order.isUploaded = true
    }
  }
}

/// Prints the events that tell the story: waits, decisions, failures and the end.
func printEvents(_ events: AsyncStream<RunEvent>) async {
  for await event in events {
    switch event.kind {
    case .waitingForInput, .stateDecided, .stateFailed, .runStarted, .runFinished, .runFailed:
      let flow = event.flow == 0 ? "" : "[branch flow \(event.flow)] "
      print("  \(flow)\(event.stateName): \(event.kind)")
    default:
      break
    }
  }
}

func showPhotoOrder() async throws {
  let chart = try makePhotoOrder()
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
    try handle.send(Photo(name: "extra.jpg"), to: "Upload order")
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

  print("The same run, retried from the failed upload with the backup server")
  let retried = try handle.retry(isPaused: true, isLogged: true) { $0.server = "backup" }
  let retriedStream = retried.events()
  let retriedEvents = Task { await printEvents(retriedStream) }
  retried.resume()
  await retriedEvents.value
  let result = try await retried.result
  print("  uploaded \(result.context.photos) titled '\(result.context.title)'")
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
