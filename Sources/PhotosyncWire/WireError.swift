extension Wire {
    /// A failure, written to stderr with `--json` (stdout then stays empty):
    /// `{"error": CODE, "message": TEXT, "exitCode": N}`.
    public struct Error: Sendable, Hashable, Codable, Swift.Error {
        /// `usage`, `error`, `notFound`, `noLibrary`, `tokenExpired` or `tokenInvalid`.
        public var error: String
        /// What went wrong, for people.
        public var message: String
        /// The process's exit code.
        public var exitCode: Int32
        /// For `tokenExpired`: the oldest token the library still accepts (continuing from it skips the
        /// expired changes: resynchronise first).
        @Nullable public var oldestValidToken: String?

        /// A value with these fields.
        public init(error: String, message: String, exitCode: Int32, oldestValidToken: String? = nil) {
            self.error = error
            self.message = message
            self.exitCode = exitCode
            self.oldestValidToken = oldestValidToken
        }

    }
}
