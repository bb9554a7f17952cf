// ImageUploads: Flow's `FlowArrayGroupDispatcher` demo as a `Map`. Five "images" are uploaded
// by one small chart each, at most two at a time; the fifth is not an image (the number 1)
// and its upload fails. Run strictly, that failure stops the map and the run; run with one
// failure tolerated, the map hands back the URLs of the four good images, in input order,
// whatever order the uploads finished in.
// Run it with `swift run ImageUploads`.

import Flowchart

/// One upload: what to upload, and the URL it got.
struct Upload: Sendable {
  var source: any Sendable
  var url: String?
}

/// The gallery: what to upload, and what came of it.
struct Gallery: Sendable {
  var images: [any Sendable]
  var urls: [String] = []
  var failures: [String] = []
}

/// Why an upload failed.
struct NotAnImage: Error, CustomStringConvertible {
  var source: any Sendable
  var description: String { "\(source) is not an image" }
}

/// Simulates an upload whose time depends on the image, so the uploads finish out of order.
func uploadImage(_ name: String) async throws -> String {
  try await Task.sleep(for: .milliseconds(10 * (5 - name.count % 5)))
  return "https://images.example/\(name).png"
}

/// The chart each element runs: check the element, then upload it.
let uploadChart = try Flowchart<Upload> {
  Action("Check image") { upload in
    guard upload.source is String else { throw NotAnImage(source: upload.source) }
  }
  Action("Upload", isFinal: true) { upload in
    guard let name = upload.source as? String else { throw NotAnImage(source: upload.source) }
    upload.url = try await uploadImage(name)
  }
}

/// The gallery chart, strict or tolerant of one failed upload.
func galleryChart(toleratedFailures: Int) throws -> Flowchart<Gallery> {
  try Flowchart<Gallery> {
    Map(
      "Upload images", over: { $0.images.map { Upload(source: $0) } }, running: uploadChart,
      maxConcurrency: 2, toleratedFailures: toleratedFailures
    ) { gallery, results in
      gallery.urls = results.outputs.compactMap(\.url)
      gallery.failures = results.failures.map { "image \($0.index): \($0.error.stateName)" }
    }
    Action("Publish", isFinal: true)
  }
}

let images: [any Sendable] = ["a", "bb", "ccc", "dddd", 1]

print("The chart, with the map's chart drawn below it:")
var tree = ""
try galleryChart(toleratedFailures: 0).printTree(to: &tree, expandingSubflows: true)
print(tree)

print("Failure stops the group:")
let strict = try galleryChart(toleratedFailures: 0)
do {
  _ = try await strict.run(with: Gallery(images: images))
  print("  published (unexpected)")
} catch {
  print("  \(error.kind) at \(error.stateName):")
  for line in error.description.split(separator: "\n") { print("  \(line)") }
}

print("\nFailures tolerated:")
let result = try await galleryChart(toleratedFailures: 1).run(with: Gallery(images: images))
print("  \(result.finalStateName), path \(result.pathNames)")
for url in result.context.urls { print("  \(url)") }
print("  failed: \(result.context.failures)")
