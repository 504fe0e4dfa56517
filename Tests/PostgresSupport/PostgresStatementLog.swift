public import Foundation

/// The statements one database of the test cluster received, as the server logged them: what reached the
/// database, whatever connection or process sent it.
///
/// The database must log its statements: make it with `makeDatabase(settings: ["log_statement": "all"])`.
/// The log starts when this is made; ``statements()`` reads it up to now. Transaction blocks are followed
/// from there: start the log when no session of the database is inside one, or a statement of that block
/// reads as outside any.
///
/// ```swift
/// let log = try PostgresStatementLog(cluster: cluster, database: url)
/// // … work on the database …
/// let outside = try log.statements().filter { !$0.inTransaction }
/// ```
public struct PostgresStatementLog: Sendable {
    /// A statement the server received.
    public struct Statement: Sendable, CustomStringConvertible {
        /// The server process of the session that sent it (one per connection).
        public let pid: Int
        /// Its text, without parameters.
        public let sql: String
        /// Whether it ran inside a transaction block its session opened (`BEGIN` … `COMMIT`/`ROLLBACK`); a
        /// `BEGIN` counts as inside, and so does the `COMMIT` or `ROLLBACK` that ends the block.
        public let inTransaction: Bool

        public var description: String { "[\(pid)\(inTransaction ? " in transaction" : "")] \(sql)" }
    }

    let cluster: PostgresCluster
    let database: String
    private(set) var start: UInt64

    /// Starts the log of the database at `url` (a URL ``PostgresCluster/makeDatabase(prefix:settings:)`` made):
    /// from now on, or, with `fromTheStart`, from the database's creation.
    ///
    /// "Now" is a marker statement sent to the database: the server's collector writes its log a little
    /// after the fact, so the file's size at this instant could still leave out statements sent before.
    ///
    /// - Throws: ``PostgresClusterError`` when the marker can't be sent or is not in the log after 30 seconds.
    public init(cluster: PostgresCluster, database url: URL, fromTheStart: Bool = false) throws(PostgresClusterError) {
        self.cluster = cluster
        self.database = url.lastPathComponent
        self.start = 0
        if !fromTheStart { self.start = try mark().end }
    }

    /// The statements the database received since this log started, in the order the server received them.
    ///
    /// Everything sent before this call is there: it sends a marker statement and reads up to it.
    ///
    /// - Throws: ``PostgresClusterError`` when the marker can't be sent or is not in the log after 30 seconds.
    public func statements() throws(PostgresClusterError) -> [Statement] {
        Self.statements(in: try mark().before, database: database)
    }

    /// What every marker statement holds: markers are not statements of the log.
    static let markerPrefix = "photosync-log-marker-"

    /// Sends a marker statement to the database and waits until it is in the log: the log's lines from
    /// ``start`` up to the marker, and the offset in the file just past the marker's line.
    private func mark() throws(PostgresClusterError) -> (before: [Substring], end: UInt64) {
        let marker = "\(Self.markerPrefix)\(UUID().uuidString)"
        try cluster.runSQL("SELECT '\(marker)'", database: database)
        let deadline = Date().addingTimeInterval(30)
        while true {
            let text = readText()
            if let line = text.range(of: marker).map({ text.lineRange(for: $0) }) {
                let end = start + UInt64(text.utf8.distance(from: text.startIndex, to: line.upperBound))
                return (text[..<line.lowerBound].split(separator: "\n"), end)
            }
            guard Date() < deadline else {
                throw .commandFailed("reading \(cluster.statementLog.path)", output: "the marker statement was not logged in 30 s")
            }
            usleep(20_000)
        }
    }

    /// The log's text written since ``start``.
    private func readText() -> String {
        guard let handle = FileHandle(forReadingAtPath: cluster.statementLog.path) else { return "" }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: start)) != nil, let data = try? handle.readToEnd() else { return "" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The statements of `database` among the JSON log's `lines`, with the transaction block each was in.
    static func statements(in lines: [Substring], database: String) -> [Statement] {
        var open: [Int: Bool] = [:]
        var statements: [Statement] = []
        for line in lines {
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                entry["dbname"] as? String == database, let pid = entry["pid"] as? Int,
                let sql = (entry["message"] as? String).flatMap(Self.statementText), !sql.contains(markerPrefix)
            else { continue }
            // A simple query can hold several statements (`BEGIN …; SELECT …`): each one opens or ends a block.
            let keywords = sql.split(separator: ";").map(Self.keyword)
            let begins = keywords.first.map(Self.opensBlock) ?? false
            statements.append(Statement(pid: pid, sql: sql, inTransaction: begins || open[pid] == true))
            for keyword in keywords {
                if Self.opensBlock(keyword) { open[pid] = true }
                if ["COMMIT", "ROLLBACK", "END", "ABORT"].contains(keyword) { open[pid] = false }
            }
        }
        return statements
    }

    private static func keyword(_ statement: Substring) -> String {
        statement.drop(while: { $0.isWhitespace }).prefix(while: { $0.isLetter }).uppercased()
    }

    private static func opensBlock(_ keyword: String) -> Bool { keyword == "BEGIN" || keyword == "START" }

    /// The SQL of a statement's log message: `statement: SQL` (simple protocol) or `execute NAME: SQL`
    /// (extended protocol); nil for other messages.
    static func statementText(_ message: String) -> String? {
        if message.hasPrefix("statement: ") { return String(message.dropFirst("statement: ".count)) }
        guard message.hasPrefix("execute "), let colon = message.range(of: ": ") else { return nil }
        return String(message[colon.upperBound...])
    }
}
