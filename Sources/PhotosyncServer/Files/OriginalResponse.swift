import Foundation
import Hummingbird
import NIOCore
import PhotoLibrary

/// `GET /v1/assets/{id}/original`: the original's bytes, streamed from disk (read in one piece up to 1 MiB).
///
/// `Content-Type` from the asset's type, a strong `ETag` (the content hash, `"<xxh3-128>"`), `Accept-Ranges`
/// with single byte ranges (`206`, `416` past the end; `If-Range`), `If-None-Match` → `304`, and
/// `Cache-Control: no-cache` (an asset's content can change: revalidate with the ETag). A mirrored file whose
/// size no longer matches the library (being rewritten, not yet mirrored again) is a `503` with
/// `Retry-After`, so that the ETag never names other bytes.
struct OriginalResponse {
    let files: LibraryFiles
    /// The resolved roots a served file must lie in.
    let roots: [String]

    func respond(to request: Request, asset: Asset) async throws(APIError) -> Response {
        guard let hash = asset.contentHash else { throw .notFound("asset \(asset.localIdentifier) has no content hash yet") }
        let tag = EntityTag.strong(hash)
        var headers = HTTPFields()
        headers[.eTag] = tag
        headers[.cacheControl] = "no-cache"
        headers[.acceptRanges] = "bytes"
        if let condition = request.headers[.ifNoneMatch], EntityTag.noneMatchHits(condition, tag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        let file = try files.openOriginal(of: asset, roots: roots)
        guard file.size == asset.fileSize else {
            throw APIError(.serviceUnavailable, "unavailable", "the original of \(asset.localIdentifier) is changing on disk; retry shortly",
                           headers: [.retryAfter: "2"])
        }
        headers[.contentType] = MediaTypes.mimeType(forTypeIdentifier: asset.uniformTypeIdentifier)
        headers[.contentDisposition] = Self.disposition(asset.originalFilename)
        var range = ByteRange(header: request.headers[.range], size: file.size)
        if !EntityTag.rangeApplies(request.headers[.ifRange], tag: tag) { range = .whole }
        let status: HTTPResponse.Status
        let bytes: ClosedRange<Int64>
        switch range {
        case .unsatisfiable:
            throw APIError(.rangeNotSatisfiable, "rangeNotSatisfiable", "the range starts past the end of the \(file.size)-byte file",
                           headers: [.contentRange: "bytes */\(file.size)"])
        case .part(let part):
            status = .partialContent
            bytes = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(file.size)"
        case .whole where file.size == 0:
            // Nothing to read (and no closed range of no bytes).
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers, body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer()))
        case .whole:
            status = .ok
            bytes = 0...(file.size - 1)
        }
        if request.method == .head {
            headers[.contentLength] = String(bytes.count)
            return Response(status: status, headers: headers)
        }
        return Response(status: status, headers: headers, body: try await FileBody.make(file, range: bytes))
    }

    /// `inline; filename="…"`, with the UTF-8 name in `filename*` (RFC 6266) when it isn't plain ASCII.
    static func disposition(_ name: String) -> String {
        let ascii = String(name.unicodeScalars.map { $0.isASCII && $0 != "\"" && $0 != "\\" && $0.value >= 0x20 ? Character($0) : "_" })
        var value = "inline; filename=\"\(ascii)\""
        if ascii != name, let encoded = name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            value += "; filename*=UTF-8''\(encoded)"
        }
        return value
    }
}
