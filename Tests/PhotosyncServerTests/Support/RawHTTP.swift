import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A raw HTTP/1.1 exchange over a TCP socket: the request is sent byte for byte as given (a malformed
/// percent-encoding, an invalid UTF-8 query, headers no HTTP client library would send), and the answer is
/// read to the end of the connection (`Connection: close`).
enum RawHTTP {
    struct Answer: Sendable {
        /// The status code; nil when the server closed the connection without a status line.
        let status: Int?
        let headers: [(String, String)]
        let body: Data

        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    /// Sends `method target` with `headers` and `body`, and reads the answer (on a thread of its own, never
    /// the cooperative pool: the server under test may run in this process).
    static func exchange(port: Int, method: String, target: String, headers: [(String, String)] = [], body: Data = Data(),
                         timeout: Double = 20) async -> Answer {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PATCH", "PUT"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        let request = Data(head.utf8) + Data("\r\n".utf8) + body
        // A thread of its own: Dispatch's pool doesn't grow past blocked threads, so exchanges would queue.
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: parse(send(request, port: port, timeout: timeout))) }.start()
        }
    }

    /// A connection that has sent `GET target` and is left open, its answer unread: the client of a waiting
    /// request, which the test then makes go away with `close`. Nil when the connection or the send failed.
    static func openRequest(port: Int, target: String) -> Int32? {
        guard let socket = connect(port: port) else { return nil }
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            close(socket)
            return nil
        }
        return socket
    }

    /// Sends `GET target` on an open connection (a further request on it); false when the send failed.
    static func sendRequest(_ socket: Int32, target: String) -> Bool {
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        return request.withUnsafeBytes({ Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
    }

    private static func connect(port: Int) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    /// Everything the server sent before closing, or before `timeout` seconds (a stream, a long-poll).
    private static func send(_ request: Data, port: Int, timeout: Double) -> Data {
        guard let socket = connect(port: port) else { return Data() }
        defer { close(socket) }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        let sent = request.withUnsafeBytes { bytes -> Bool in
            var done = 0
            while done < bytes.count {
                let count = Glibc.send(socket, bytes.baseAddress! + done, bytes.count - done, Int32(MSG_NOSIGNAL))
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { return false }
                done += count
            }
            return true
        }
        if !sent { shutdown(socket, Int32(SHUT_WR)) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        return received
    }

    private static func parse(_ data: Data) -> Answer {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else { return Answer(status: nil, headers: [], body: Data()) }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        let status = parts.count >= 2 ? Int(parts[1]) : nil
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Data(data[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased().contains("chunked") }) {
            body = dechunked(body)
        }
        return Answer(status: status, headers: headers, body: body)
    }

    /// A chunked body's bytes (as much as arrived).
    private static func dechunked(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let line = rest.firstRange(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<line.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0 else { break }
            let start = line.upperBound
            let stop = min(rest.endIndex, start + size)
            result.append(rest[start..<stop])
            rest = rest[min(rest.endIndex, stop + 2)...]
        }
        return result
    }
}
