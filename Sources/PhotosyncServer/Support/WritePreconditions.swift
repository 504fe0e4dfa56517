import Hummingbird
import PhotoLibrary

/// `If-Match: <token>` on a write: the write happens only if none of the objects it touches changed after
/// that token — checked inside the write's own transaction, so no other process can slip a change in
/// between (412 otherwise). A token the history no longer reaches can't prove anything: 412 too.
struct WritePrecondition: Sendable {
    let token: ChangeToken

    /// The precondition of a request, if it has an `If-Match` header (a token, quoted or not).
    ///
    /// - Throws: ``APIError``: 400 `tokenInvalid` for a value that is no token.
    static func of(_ request: Request) throws(APIError) -> WritePrecondition? {
        guard var value = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces) else { return nil }
        if value.hasPrefix("W/") { value.removeFirst(2) }
        if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
        do {
            return WritePrecondition(token: try ChangeToken(string: value))
        } catch {
            throw APIError(.badRequest, "tokenInvalid", "If-Match must be a change token: \(error)")
        }
    }

    /// Inside a change block: throws ``Failed`` if any of `identifiers` changed after the token.
    func check(_ identifiers: [String], in library: PhotoLibrary) throws {
        let changed: Set<String>
        do {
            changed = try library.localIdentifiersChanged(identifiers, since: token)
        } catch {
            if case .persistentChangeTokenExpired = error {
                throw Failed(message: "the If-Match token has expired: the history can't tell whether the object changed since")
            }
            throw error
        }
        if let first = changed.sorted().first {
            throw Failed(message: "\(first) changed after the If-Match token: read it again, then retry")
        }
    }

    /// The precondition failed: 412.
    struct Failed: Error {
        let message: String

        var apiError: APIError { APIError(.preconditionFailed, "preconditionFailed", message) }
    }
}

/// Finding the token of a write's own commit.
enum CommitToken {
    /// The token just after the transaction, committed after `before`, that touched `identifier`; `before`
    /// itself if it can't be found (an earlier token: a client continuing from it misses nothing).
    static func of(_ identifier: String, type: ObjectType, since before: ChangeToken, in library: PhotoLibrary) -> ChangeToken {
        guard let result = try? library.fetchPersistentChanges(since: before) else { return before }
        var iterator = result.makeThrowingIterator()
        while let change = try? iterator.next() {
            guard let details = try? change.changeDetails(for: type) else { continue }
            if details.insertedLocalIdentifiers.contains(identifier) || details.updatedLocalIdentifiers.contains(identifier)
                || details.deletedLocalIdentifiers.contains(identifier)
            {
                return change.changeToken
            }
        }
        return before
    }
}

/// Runs a change block for a request, mapping what it throws: library errors to their statuses, a failed
/// precondition to 412.
enum Writes {
    static func perform<Result: Sendable>(
        _ library: PhotoLibrary, author: String, _ block: @escaping @Sendable () throws -> Result
    ) async throws(APIError) -> Result {
        do {
            return try await library.performChanges(author: author, block)
        } catch let error as WritePrecondition.Failed {
            throw error.apiError
        } catch let error as PhotoLibraryError {
            throw APIError(error)
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.internalServerError, "internal", "\(error)")
        }
    }
}

extension WritePrecondition {
    /// Whether the request has no `If-Match` (creations refuse one: there is nothing to compare).
    static func headerless(_ request: Request) -> Bool { request.headers[.ifMatch] == nil }
}
