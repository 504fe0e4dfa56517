extension Wire {
    /// Per-file problems of a pass, capped: how many, how many of each kind, and the first few.
    ///
    /// A pass over 20,000 files can have thousands; a summary stays small. The full list is in the log with
    /// `--verbose`.
    public struct ProblemList: Sendable, Hashable, Codable {
        /// How many of each kind are listed in ``first``.
        public static let shownCount = 10

        /// Files concerned.
        public var count: Int
        /// Problems by kind (a file may have several).
        public var byKind: [String: Int]
        /// The first ``shownCount`` files, by path.
        public var first: [Problem]

        /// A value with these fields.
        public init(count: Int = 0, byKind: [String: Int] = [:], first: [Problem] = []) {
            self.count = count
            self.byKind = byKind
            self.first = first
        }

        /// A capped list of `problems` (sorted by path here).
        public init(_ problems: [Problem]) {
            let sorted = problems.sorted { ($0.path, $0.kind) < ($1.path, $1.kind) }
            count = Set(problems.map(\.path)).count
            byKind = Dictionary(problems.map { ($0.kind, 1) }, uniquingKeysWith: +)
            first = Array(sorted.prefix(Self.shownCount))
        }

        /// Whether there are more problems than ``first`` shows.
        public var isCapped: Bool { first.count < byKind.values.reduce(0, +) }
    }

    /// One problem with one file.
    public struct Problem: Sendable, Hashable, Codable {
        /// Relative to the folder of the pass (`.` for the folder itself).
        public var path: String
        /// A camel-case word naming the kind: for a file left out, `unreadable`, `unreadableDirectory`,
        /// `stillBeingWritten`, `vanished`, `symbolicLink`, `notRegularFile`, `notMedia`, `alreadyInLibrary`;
        /// for metadata, the media probe's kind (`truncated`, `implausibleDate`, `inconsistent`, …).
        public var kind: String
        /// What happened, for people.
        public var reason: String

        /// A value with these fields.
        public init(path: String, kind: String, reason: String) {
            self.path = path
            self.kind = kind
            self.reason = reason
        }

        /// The kinds of a file left out that make a pass partial: the file exists but could not be read
        /// now, so the library may miss it or hold an old version of it (exit code 5).
        public static let partialKinds: Set<String> = ["unreadable", "unreadableDirectory", "stillBeingWritten"]

        /// The kind of a sync worker's reason for leaving a file out.
        public static func kind(ofSkipReason reason: String) -> String {
            let prefixes: [(String, String)] = [
                ("directory unreadable", "unreadableDirectory"), ("unreadable", "unreadable"),
                ("still being written", "stillBeingWritten"), ("changed while being read", "stillBeingWritten"),
                ("vanished", "vanished"), ("symbolic link", "symbolicLink"), ("not a regular file", "notRegularFile"),
                ("not a photo or video", "notMedia"), ("already in the library", "alreadyInLibrary"),
            ]
            return prefixes.first { reason.hasPrefix($0.0) }?.1 ?? "other"
        }

        /// One problem per metadata problem of a file: the kind is the first word of the media probe's text
        /// (`truncated moov/trak: …`).
        public static func metadata(path: String, problems: [String]) -> [Problem] {
            problems.map { text in
                Problem(path: path, kind: String(text.prefix { $0 != " " && $0 != ":" }), reason: text)
            }
        }
    }
}
