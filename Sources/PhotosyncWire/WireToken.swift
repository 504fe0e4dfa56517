extension Wire {
    /// A change token (`photosync token --json`): `{"token": T}`.
    public struct Token: Sendable, Hashable, Codable {
        /// The token's URL-safe string form.
        public var token: String

        /// A value with these fields.
        public init(token: String) { self.token = token }
    }

    /// A library's location and identity (`photosync init --json`).
    public struct Library: Sendable, Hashable, Codable {
        /// The library directory, absolute.
        public var library: String
        /// The library's identity (a UUID), carried by its change tokens.
        public var identity: String
        /// Whether this call created it.
        public var created: Bool

        /// A value with these fields.
        public init(library: String, identity: String, created: Bool) {
            self.library = library
            self.identity = identity
            self.created = created
        }
    }
}
