extension Wire {
    /// A failed HTTP request's body: `{"error": CODE, "message": TEXT, "oldestToken": T or null}`.
    ///
    /// The status code says what kind of failure it is; `error` names it for programs, in the command line's
    /// vocabulary where one exists (`tokenExpired`, `tokenInvalid`, `notFound`). A token error is always a
    /// status of its own (410, 400), never an error inside a 200.
    public struct APIError: Sendable, Hashable, Codable {
        /// `invalidRequest`, `invalidPredicate`, `invalidCursor`, `tokenInvalid`, `tokenExpired`,
        /// `unauthorized`, `forbidden`, `notFound`, `methodNotAllowed`, `conflict`, `preconditionFailed`,
        /// `payloadTooLarge`, `unsupportedMediaType`, `rangeNotSatisfiable`, `unavailable` or `internal`.
        public var error: String
        /// What went wrong, for people.
        public var message: String
        /// For `tokenExpired`: the oldest token the library still accepts (continuing from it skips the
        /// expired changes: resynchronise first, with `GET /v1/state`).
        @Nullable public var oldestToken: String?

        /// A value with these fields.
        public init(error: String, message: String, oldestToken: String? = nil) {
            self.error = error
            self.message = message
            self.oldestToken = oldestToken
        }
    }

    /// The answer of `GET /healthz`: the server runs and reads its library.
    public struct Health: Sendable, Hashable, Codable {
        /// `ok`.
        public var status: String
        /// The library's current change token.
        public var token: String

        /// A value with these fields.
        public init(status: String, token: String) {
            self.status = status
            self.token = token
        }
    }

    /// One page of assets (`GET /v1/assets`, `GET /v1/albums/{id}/assets`): keyset pagination.
    ///
    /// Pass `cursor` back to get the next page; it is null on the last one. `token` is the change token of
    /// the instant the page was read: a client that pages through a library while it changes follows the
    /// changes since the first page's token afterwards, and so misses nothing.
    public struct AssetPage: Sendable, Hashable, Codable {
        public var assets: [Asset]
        /// The cursor of the next page; nil on the last page.
        @Nullable public var cursor: String?
        /// The change token of the instant the page was read.
        public var token: String

        /// A value with these fields.
        public init(assets: [Asset], cursor: String?, token: String) {
            self.assets = assets
            self.cursor = cursor
            self.token = token
        }
    }

    /// Albums, smart albums and moments (`GET /v1/albums`), with the token of the instant they were read.
    public struct AlbumList: Sendable, Hashable, Codable {
        public var albums: [Album]
        public var token: String

        /// A value with these fields.
        public init(albums: [Album], token: String) {
            self.albums = albums
            self.token = token
        }
    }

    /// An asset a write created or changed, and the token just after its commit (a client that follows
    /// changes from its own writes' tokens, or leaves its own author out, never sees its write twice).
    public struct AssetWrite: Sendable, Hashable, Codable {
        public var asset: Asset
        public var token: String

        /// A value with these fields.
        public init(asset: Asset, token: String) {
            self.asset = asset
            self.token = token
        }
    }

    /// An album a write created or changed, and the token just after its commit.
    public struct AlbumWrite: Sendable, Hashable, Codable {
        public var album: Album
        public var token: String

        /// A value with these fields.
        public init(album: Album, token: String) {
            self.album = album
            self.token = token
        }
    }

    /// The first line of `GET /v1/state` (JSON Lines): the token of the instant the state was read, and how
    /// many object lines follow of each type (a client that counts fewer lost the end of the stream).
    public struct StateHeader: Sendable, Hashable, Codable {
        /// Continue with `GET /v1/changes?since=` this token.
        public var token: String
        public var assets: Int
        public var assetCollections: Int
        public var collectionLists: Int

        /// A value with these fields.
        public init(token: String, assets: Int, assetCollections: Int, collectionLists: Int) {
            self.token = token
            self.assets = assets
            self.assetCollections = assetCollections
            self.collectionLists = collectionLists
        }
    }

    /// Every following line of `GET /v1/state`: one object that exists at the header's token.
    public struct StateObject: Sendable, Hashable, Codable {
        /// `asset`, `assetCollection` or `collectionList`.
        public var objectType: String
        public var localIdentifier: String

        /// A value with these fields.
        public init(objectType: String, localIdentifier: String) {
            self.objectType = objectType
            self.localIdentifier = localIdentifier
        }
    }
}
