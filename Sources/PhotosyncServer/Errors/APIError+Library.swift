import Hummingbird
import PhotoLibrary

extension APIError {
    /// The HTTP form of a library error: token errors are 410 (expired, with the oldest valid token) and 400
    /// (`tokenInvalid`: undecodable, another library's, ahead of this one) — the command line's exit codes
    /// 3 and 4 —, bad predicates and cursors 400, unknown objects 404, requests that don't fit an object
    /// 409, a full disk 507, a library that can't be read 503.
    init(_ error: PhotoLibraryError) {
        switch error {
        case .persistentChangeTokenExpired(let oldest):
            self.init(.gone, "tokenExpired", error.description, oldestToken: oldest.stringValue)
        case .undecodableChangeToken, .changeTokenFromAnotherLibrary, .changeTokenAheadOfLibrary:
            self.init(.badRequest, "tokenInvalid", error.description)
        case .invalidPredicate(let message, let position):
            self.init(.badRequest, "invalidPredicate", position.map { "\(message) (at character \($0))" } ?? message)
        case .invalidValue(property: "cursor", let reason):
            self.init(.badRequest, "invalidCursor", "invalid cursor: \(reason)")
        case .invalidValue, .indexOutOfRange, .duplicateIdentifier:
            self.init(.badRequest, "invalidRequest", error.description)
        case .objectNotFound:
            self.init(.notFound, "notFound", error.description)
        case .duplicateMembership, .cyclicCollectionList, .invalidRequest:
            self.init(.conflict, "conflict", error.description)
        case .notEnoughSpace:
            self.init(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "unavailable", error.description)
        case .notALibrary, .corruptLibrary, .schemaTooNew, .storageUnavailable, .database, .persistentChangeDetailsUnavailable,
            .clientSchemaTooNew, .clientSchemaConflict, .clientSchemaUnsupportedEngine:
            self.init(.serviceUnavailable, "unavailable", error.description)
        case .fileUnreadable, .notInChangeBlock:
            self.init(.internalServerError, "internal", error.description)
        }
    }
}
