import Foundation
import Hummingbird
import NIOCore
import PhotosyncWire

/// Request bodies in JSON: at most 64 KiB, decoded strictly (unknown fields refused by the wire types), and
/// every decoding failure a 400 saying which field and why.
enum JSONBody {
    static func decode<Value: Decodable>(_ type: Value.Type, from request: Request, context: APIRequestContext) async throws -> Value {
        if let contentType = request.headers[.contentType], !contentType.lowercased().hasPrefix("application/json") {
            throw APIError(.unsupportedMediaType, "unsupportedMediaType", "the body must be JSON (Content-Type: application/json)")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "payloadTooLarge", "a JSON body holds at most \(context.maxUploadSize) bytes")
        }
        do {
            return try Wire.makeDecoder().decode(Value.self, from: Data(buffer: buffer))
        } catch let error as DecodingError {
            throw APIError.invalidRequest("invalid body: \(describe(error))")
        }
    }

    /// A decoding error in a sentence naming the field.
    static func describe(_ error: DecodingError) -> String {
        func field(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the body" : "\"" + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "\""
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(field(context.codingPath)) must be \(name(of: type))"
        case .valueNotFound(let type, let context): return "\(field(context.codingPath)) must be \(name(of: type)), not null"
        case .keyNotFound(let key, let context): return "\(field(context.codingPath + [key])) is required"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty, context.underlyingError != nil { return "not JSON" }
            return "\(field(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is Bool.Type: "true or false"
        case is String.Type: "a string"
        case is Double.Type, is Int.Type: "a number"
        case is [String].Type: "a list of strings"
        default: "an object"
        }
    }
}
