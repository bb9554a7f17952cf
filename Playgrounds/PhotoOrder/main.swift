// PhotoOrder: Task.framework's example app as a live run. An order waits for two photos and
// their metadata, which arrive from outside at different times (the user picks photos, a
// server answers); each photo is filtered as soon as it is there, in parallel; then the order
// is uploaded. The run's events print as they happen. The upload fails on purpose, and the
// run log shows where and why; a new run with the server back then uploads it.
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
  var isUploaded = false
}

struct UploadFailed: Error, CustomStringConvertible {
  var description: String { "the server answered 503" }
}

func makePhotoOrder(failingUpload: Bool) throws(DefinitionError) -> Flowchart<PhotoOrder> {
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
      if failingUpload { throw UploadFailed() }
      order.isUploaded = true
    }
  }
}

func showPhotoOrder() async throws {
  for failingUpload in [true, false] {
    let chart = try makePhotoOrder(failingUpload: failingUpload)
    if failingUpload {
      print(chart)
      print()
    }
    print(
      failingUpload
        ? "Order, with a failing upload"
        : "A new run of the order, with the server back (retrying from the failed state is not built yet)"
    )
    let handle = chart.start(with: PhotoOrder(), isPaused: true, isLogged: true)
    let events = handle.events()
    handle.resume()
    // The outside world: the metadata comes first, then the photos, at different times.
    let outside = Task {
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
    }
    for await event in events {
      switch event.kind {
      case .waitingForInput, .stateDecided, .stateFailed, .runFinished, .runFailed:
        let flow = event.flow == 0 ? "" : "[branch flow \(event.flow)] "
        print("  \(flow)\(event.stateName): \(event.kind)")
      default:
        break
      }
    }
    try await outside.value
    do {
      let result = try await handle.result
      print("  uploaded \(result.context.photos) titled '\(result.context.title)'")
    } catch {
      print("  the run failed at '\(error.stateName)'; its log:")
      for line in handle.log.lines { print("    \(line)") }
    }
    print()
  }
}

try await showPhotoOrder()

#if canImport(Playgrounds)
  import Playgrounds

  #Playground("Photo order") {
    try await showPhotoOrder()
  }
#endif
