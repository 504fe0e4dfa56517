public import Foundation
public import PhotoLibrary

extension Wire {
    /// The retained range of a library's history (in `status --json`, and the head of `history --json`).
    public struct HistorySummary: Sendable, Hashable, Codable {
        /// The oldest token `changes --since` accepts.
        public var oldestValidToken: String
        public var currentToken: String
        /// Transactions retained.
        public var transactions: Int
        /// Object changes retained (over all transactions).
        public var objectChanges: Int
        /// The automatic retention: days, and transactions.
        public var retentionDays: Double
        public var retentionTransactions: Int

        /// The wire form of a library's ``HistoryStatus``.
        public init(_ status: HistoryStatus) {
            oldestValidToken = status.oldestValidToken.stringValue
            currentToken = status.currentToken.stringValue
            transactions = status.transactionCount
            objectChanges = status.recordCount
            retentionDays = status.retention.maximumAge / 86_400
            retentionTransactions = status.retention.maximumTransactions
        }
    }

    /// The retained transactions (`photosync history --json`).
    public struct History: Sendable, Hashable, Codable {
        public var summary: HistorySummary
        /// Oldest first, at most `--limit` of them.
        public var transactions: [Transaction]
        /// Whether more retained transactions follow the list.
        public var hasMore: Bool
        /// Transactions this call expired (`--expire-before`, `--keep-days`); nil when it expired nothing
        /// because it wasn't asked to.
        @Nullable public var expired: Int?

        /// A value with these fields.
        public init(summary: HistorySummary, transactions: [Transaction], hasMore: Bool, expired: Int?) {
            self.summary = summary
            self.transactions = transactions
            self.hasMore = hasMore
            self.expired = expired
        }

    }

    /// One retained transaction: its sequence number, when, who, and how many objects of each type it
    /// inserted, updated and deleted.
    public struct Transaction: Sendable, Hashable, Codable {
        public var seq: Int64
        /// The token just after it.
        public var token: String
        public var date: Timestamp
        public var author: String
        public var asset: Counts
        public var assetCollection: Counts
        public var collectionList: Counts

        /// A value with these fields.
        public init(seq: Int64, token: String, date: Timestamp, author: String, asset: Counts, assetCollection: Counts, collectionList: Counts) {
            self.seq = seq
            self.token = token
            self.date = date
            self.author = author
            self.asset = asset
            self.assetCollection = assetCollection
            self.collectionList = collectionList
        }

        /// Inserted, updated and deleted objects of one type.
        public struct Counts: Sendable, Hashable, Codable {
            public var inserted: Int
            public var updated: Int
            public var deleted: Int

            /// A value with these fields.
            public init(inserted: Int, updated: Int, deleted: Int) {
                self.inserted = inserted
                self.updated = updated
                self.deleted = deleted
            }

            public var total: Int { inserted + updated + deleted }
        }
    }
}

extension Wire.Transaction {
    /// The wire form of one transaction of the history.
    public init(_ change: PersistentChange, timeZone: TimeZone) throws(PhotoLibraryError) {
        func counts(_ type: ObjectType) throws(PhotoLibraryError) -> Counts {
            let details = try change.changeDetails(for: type)
            return Counts(
                inserted: details.insertedLocalIdentifiers.count, updated: details.updatedLocalIdentifiers.count,
                deleted: details.deletedLocalIdentifiers.count)
        }
        self.init(
            seq: change.changeToken.sequence, token: change.changeToken.stringValue,
            date: Wire.Timestamp(change.date, timeZone: timeZone), author: change.author, asset: try counts(.asset),
            assetCollection: try counts(.assetCollection), collectionList: try counts(.collectionList))
    }
}
