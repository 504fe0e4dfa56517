import Foundation
import Hummingbird
import NIOCore
import PhotosyncWire

/// Responses holding one wire shape as JSON (sorted keys, one line, a final newline).
enum JSONResponse {
    static let contentType = "application/json; charset=utf-8"

    /// The JSON of `value` as a buffer (a value that can't be encoded is a bug: it traps in debug builds and
    /// writes `null` otherwise).
    static func buffer(_ value: some Encodable) -> ByteBuffer {
        var data = (try? Wire.makeEncoder().encode(value)) ?? Data("null".utf8)
        data.append(UInt8(ascii: "\n"))
        return ByteBuffer(bytes: data)
    }

    /// A response with `value` as its body.
    static func make(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        make(buffer: buffer(value), status: status, headers: headers)
    }

    /// A response with an encoded JSON body.
    static func make(buffer: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: buffer))
    }
}
