import Foundation
import Synchronization

/// Records responses with the operation of the OpenAPI document they answer, for
/// `validate_responses.py`.
final class SampleRecorder: Sendable {
    struct Sample: Codable {
        let operation: String
        let status: Int
        let contentType: String
        let body: String
    }

    private let samples = Mutex<[Sample]>([])

    func record(method: String, path: String, reply: Reply) {
        let sample = Sample(
            operation: "\(method) \(Self.template(path))", status: reply.status, contentType: reply.header("Content-Type") ?? "",
            body: reply.header("Content-Type")?.hasPrefix("image/") == true || reply.header("Content-Type") == "application/octet-stream"
                ? "" : reply.text)
        samples.withLock { $0.append(sample) }
    }

    var all: [Sample] { samples.withLock { $0 } }

    /// The document's path template of a request path.
    static func template(_ path: String) -> String {
        let bare = String(path.prefix { $0 != "?" })
        if bare.hasPrefix("/v1/renditions/") { return "/v1/renditions/{id}/{hash}/{file}" }
        if bare.hasPrefix("/gallery/") { return "/gallery/{version}/{name}" }
        for (prefix, actions) in [("/v1/assets/", ["original", "thumbnail"]), ("/v1/albums/", ["assets"])] where bare.hasPrefix(prefix) {
            let rest = bare.dropFirst(prefix.count)
            for action in actions where rest.hasSuffix("/" + action) { return prefix + "{id}/" + action }
            return prefix + "{id}"
        }
        return bare
    }
}
