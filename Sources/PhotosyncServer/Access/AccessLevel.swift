/// What an API key may do.
///
/// - `read`: every `GET` of the API (the changes feed, queries, state, bytes, metrics).
/// - `add-only`: adding, nothing else — uploading assets (`POST /v1/assets`) and creating albums
///   (`POST /v1/albums`); it reads nothing, so a lost phone's uploader key exposes no photo.
/// - `read-write`: everything, edits and deletions included.
public enum AccessLevel: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case read
    case addOnly = "add-only"
    case readWrite = "read-write"

    /// What a route needs.
    public enum Permission: String, Sendable, Hashable {
        case read
        case add
        case modify
    }

    /// Whether a key of this level may do what `permission` names.
    public func allows(_ permission: Permission) -> Bool {
        switch (self, permission) {
        case (.readWrite, _), (.read, .read), (.addOnly, .add): true
        default: false
        }
    }

    public var description: String { rawValue }
}
