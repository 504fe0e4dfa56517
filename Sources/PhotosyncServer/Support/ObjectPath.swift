import Foundation
import Hummingbird

/// The object a per-object route names, and what of it: `/v1/assets/{id}`, `/v1/assets/{id}/original`.
///
/// Identifiers hold slashes (`3F25…/L0/001`, PhotoKit's shape), so the routes take the rest of the path
/// and this type reads it: a client may send the identifier percent-encoded as one segment
/// (`3F25…%2FL0%2F001`) or with its slashes as they are. The identifier is only ever looked up in the
/// library — never used as a file path —, so `..`, encoded slashes and the like can only fail to match an
/// object (404); a NUL or a malformed percent-encoding is a 400.
struct ObjectPath {
    let identifier: String
    /// The action after the identifier (`original`), or nil for the object itself.
    let action: String?

    /// Reads the catch-all segments of a route, given the actions the route knows.
    init(_ context: APIRequestContext, actions: Set<String>) throws(APIError) {
        let segments = try Self.segments(context)
        var path = segments.joined(separator: "/")
        var action: String?
        if let last = segments.last, actions.contains(last), segments.count > 1 {
            action = last
            path = segments.dropLast().joined(separator: "/")
        }
        guard !path.isEmpty else { throw .notFound("no object identifier in the path") }
        identifier = path
        self.action = action
    }

    /// The catch-all segments of a route, percent-decoded (an encoded slash becomes a slash inside its
    /// segment).
    static func segments(_ context: APIRequestContext) throws(APIError) -> [String] {
        var segments: [String] = []
        for raw in context.parameters.getCatchAll() {
            guard let decoded = PercentEncoding.decode(raw) else {
                throw .invalidRequest("the path segment \"\(raw)\" is not valid percent-encoding")
            }
            guard !decoded.utf8.contains(0) else { throw .invalidRequest("the path holds a NUL character") }
            segments.append(decoded)
        }
        return segments
    }
}
