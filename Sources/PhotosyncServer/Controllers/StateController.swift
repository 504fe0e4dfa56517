import Hummingbird
import NIOCore
import PhotoLibrary
import PhotosyncWire

/// `GET /v1/state`: the one-call recovery from every token error — every identifier and the token of that
/// instant, read from one snapshot and streamed as JSON Lines: a ``Wire/StateHeader`` (the token, and how
/// many lines follow of each type), then a ``Wire/StateObject`` per object. Memory stays at one batch
/// however large the library.
struct StateController: Sendable {
    let environment: ServerEnvironment

    static let batchSize = 10_000

    func addRoutes(to reads: RouterGroup<APIRequestContext>) {
        reads.get("v1/state") { request, _ in try state(request) }
    }

    private func state(_ request: Request) throws(APIError) -> Response {
        _ = try QueryParameters(request, allowed: [])
        let reader: LibraryStateReader
        do { reader = try environment.library.makeStateReader() } catch { throw APIError(error) }
        let header = Wire.StateHeader(
            token: reader.changeToken.stringValue, assets: reader.counts[.asset] ?? 0,
            assetCollections: reader.counts[.assetCollection] ?? 0, collectionLists: reader.counts[.collectionList] ?? 0)
        var headers = HTTPFields()
        headers[.contentType] = "application/jsonl; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            try await writer.write(JSONResponse.buffer(header))
            var position = LibraryStateReader.Position()
            while true {
                let batch = try reader.nextBatch(after: &position, limit: Self.batchSize)
                guard !batch.isEmpty else { break }
                var buffer = ByteBuffer()
                for (type, identifier) in batch {
                    buffer.writeString("{\"localIdentifier\":")
                    buffer.writeString(Self.quoted(identifier))
                    buffer.writeString(",\"objectType\":\"\(type)\"}\n")
                }
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        })
    }

    /// A JSON string literal (identifiers are plain ASCII; anything else is escaped by the encoder).
    private static func quoted(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
            return "\"" + text + "\""
        }
        return (try? Wire.line(text)) ?? "\"\""
    }
}
